"""Driver memory of a Spark upsert on a standalone cluster: the driver apart from its executors.

``python -m bench.cluster_write_memory --rows 8000000 --batch 8000000``

Starts a Spark standalone cluster on 127.0.0.1 (a master and two workers of one core,
``tests/cluster/standalone.py``). A copy-on-write table of ``--rows`` rows in 8 partitions is
bulk-inserted once from ``spark.range`` rows (``bench.spark_write_memory``'s data) and copied for each
mode; each mode upserts the same ``--batch`` rows (half updates of stored keys, half new keys), from
a driver of its own (``tests/cluster/driver.py``: a spawned process holding the session), so no mode
inherits another's Python workers:

* ``datasource``: ``df.write.format("hudi")`` upsert, as a user writes it;
* ``table-api``: ``HudiSparkTable.for_path(spark, path).upsert(df)``;
* ``datasource-local``: ``df.write.format("hudi")`` with the merge held in the commit process
  (``write.distributed.min.bytes`` out of reach), for contrast.

Memory is the peak of the driver's process tree, sampled every 100 ms: the driver's Python process,
its JVM and every Python worker that JVM forks (the data source's commit process and the planners
included), as RSS added up (a page that forked workers share with their daemon counts in each) and as
PSS (each page once). The executors are the workers' children, not the driver's: their trees are
sampled apart. Whether the merge ran in executor tasks is shown three ways: the tasks and task time
Spark's status store counts per executor during the upsert, the CPU seconds of the executors' process
trees (their JVMs and Python workers) against the driver tree's, and the write tokens of the new
files (a Spark task's carry its stage id; the local engine's are ``<n>-0-0``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.proctree import PeriodicSampler, ProcStat, descendants, pss_bytes
from bench.spark_write_memory import batch_frame, merged_in_executors, rows_frame, write_options

_MB = 1 << 20
_LOG_CONFIG = Path(__file__).parents[1] / "hudi_framework" / "spark" / "log4j2.properties"


@dataclass
class DriverPeak:
    """Peaks over one mode, in MB (each field's own peak: the tree's is the sum at its worst sample)."""

    tree_mb: float = 0.0  #: this Python + the driver JVM + its Python workers: their RSS added up
    tree_pss_mb: float = 0.0  #: the same tree's PSS (a page forked workers share with their daemon counts once)
    jvm_mb: float = 0.0
    python_mb: float = 0.0  #: this process
    python_worker_mb: float = 0.0  #: the biggest single Python worker of the driver
    python_workers: int = 0  #: the most Python workers alive at once in the driver tree
    executors_tree_mb: float = 0.0  #: both workers' executors with their Python workers, for comparison
    samples: int = 0
    at_peak: tuple[str, ...] = ()  #: the driver tree's processes at the RSS peak: "pid name rss/pss MB"


def _command(pid: int) -> str:
    """The module or class a process runs (the argument after ``-m``, or the JVM's main class)."""
    try:
        args = (Path("/proc") / str(pid) / "cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return "?"
    if "-m" in args:
        return args[args.index("-m") + 1]
    return next((a for a in args if a.startswith("org.apache.spark.")), Path(args[0]).name)


def _mb(stats: list[ProcStat]) -> float:
    return sum(s.rss_bytes for s in stats) / _MB


def _rss_mb(pid: int) -> float:
    try:
        return int((Path("/proc") / str(pid) / "statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / _MB
    except OSError:
        return 0.0


class ClusterSampler(PeriodicSampler):
    """Peak RSS of the driver's tree (the driver process ``driver`` and its descendants) and of the
    executors' trees (the descendants of the workers ``workers``), sampled in a thread."""

    def __init__(self, driver: int, workers: list[int], interval: float = 0.1) -> None:
        self._driver = driver
        self._workers = workers
        super().__init__(interval, "bench-cluster-sampler")
        self.peak = DriverPeak()

    def sample(self) -> None:
        tree = descendants(self._driver)
        workers = [s for s in tree if s.name != "java"]
        own = _rss_mb(self._driver)
        executors = [s for pid in self._workers for s in descendants(pid)]
        pss = {s.pid: pss_bytes(s.pid) / _MB for s in tree}
        total = own + _mb(tree)
        p = self.peak
        at_peak = p.at_peak
        if total > p.tree_mb:
            at_peak = tuple(
                f"{s.pid}<{s.ppid} {_command(s.pid)} {s.rss_bytes / _MB:.0f}/{pss[s.pid]:.0f}" for s in tree
            )
        self.peak = DriverPeak(
            tree_mb=max(p.tree_mb, total),
            tree_pss_mb=max(p.tree_pss_mb, pss_bytes(self._driver) / _MB + sum(pss.values())),
            jvm_mb=max(p.jvm_mb, _mb([s for s in tree if s.name == "java"])),
            python_mb=max(p.python_mb, own),
            python_worker_mb=max(p.python_worker_mb, max((s.rss_bytes / _MB for s in workers), default=0.0)),
            python_workers=max(p.python_workers, len(workers)),
            executors_tree_mb=max(p.executors_tree_mb, _mb(executors)),
            samples=p.samples + 1,
            at_peak=at_peak,
        )


@dataclass(frozen=True)
class Work:
    """Where the work went: CPU seconds of the process trees, and Spark's task counts by executor."""

    driver_cpu_s: float
    executors_cpu_s: float
    tasks: dict[str, int]  #: executor id -> tasks finished ("driver" runs none on a cluster)
    task_s: dict[str, float]  #: executor id -> summed task duration

    def minus(self, before: Work) -> dict[str, Any]:
        return {
            "driver_cpu_s": round(self.driver_cpu_s - before.driver_cpu_s, 1),
            "executors_cpu_s": round(self.executors_cpu_s - before.executors_cpu_s, 1),
            "tasks": {k: v - before.tasks.get(k, 0) for k, v in self.tasks.items()},
            "task_s": {k: round(v - before.task_s.get(k, 0.0), 1) for k, v in self.task_s.items()},
        }


def _cpu_s(stats: list[ProcStat]) -> float:
    return sum(s.cpu_s for s in stats)


def _proc(pid: int) -> list[ProcStat]:
    try:
        return [ProcStat.parse(pid, (Path("/proc") / str(pid) / "stat").read_text())]
    except OSError:
        return []


# --- run in the driver (``ClusterDriver.run``: ``fn(spark, *args)`` in its process) -------------------


def task_counts(spark: Any) -> tuple[dict[str, int], dict[str, float]]:
    """Tasks finished and their summed duration (s) by executor id, from Spark's live status store
    (kept with the UI off); the driver's entry runs no task on a cluster."""
    summaries = spark.sparkContext._jsc.sc().statusStore().executorList(False)
    tasks, task_s = {}, {}
    for i in range(summaries.size()):
        summary = summaries.apply(i)
        tasks[str(summary.id())] = int(summary.totalTasks())
        if str(summary.id()) != "driver":  # its "duration" is its uptime, not task time
            task_s[str(summary.id())] = int(summary.totalDuration()) / 1000
    return tasks, task_s


def bulk_insert(spark: Any, path: str, rows: int) -> None:
    rows_frame(spark, 0, rows, 1).write.format("hudi").options(**write_options("bulk_insert")).mode("append").save(path)


def upsert(spark: Any, mode: str, path: str, rows: int, batch: int) -> float:
    """Upsert the batch through ``mode``; the wall seconds of the call."""
    df = batch_frame(spark, rows, batch)
    began = time.perf_counter()
    if mode == "table-api":
        from hudi_framework.spark import HudiSparkTable

        HudiSparkTable.for_path(spark, path).upsert(df)
    else:
        options = write_options("upsert")
        if mode == "datasource-local":
            options["write.distributed.min.bytes"] = str(1 << 62)
        df.write.format("hudi").options(**options).mode("append").save(path)
    return time.perf_counter() - began


def count_rows(spark: Any, path: str) -> int:
    return int(spark.read.format("hudi").load(path).count())


# --- run here --------------------------------------------------------------------------------------

MODES = ("datasource", "table-api", "datasource-local")


def measure_work(driver: Any, workers: list[int]) -> Work:
    tasks, task_s = driver.run(task_counts)
    tree = _proc(driver.pid) + descendants(driver.pid)
    return Work(_cpu_s(tree), _cpu_s([s for pid in workers for s in descendants(pid)]), tasks, task_s)


def driver_conf(args: argparse.Namespace) -> dict[str, str]:
    """What the benchmark sets over the cluster tests' application conf."""
    log = f"-Dlog4j2.configurationFile={_LOG_CONFIG.as_uri()}"
    return {
        # No start-up tuning (the tests' -XX:TieredStopAtLevel=1): steady-state JIT, as a user's job runs.
        "spark.driver.extraJavaOptions": log,
        "spark.executor.extraJavaOptions": log,
        "spark.driver.memory": args.driver_memory,
        "spark.executor.memory": args.executor_memory,
        "spark.sql.shuffle.partitions": str(args.shuffle_partitions),
        "spark.default.parallelism": str(args.shuffle_partitions),
    }


def _table_mb(path: str) -> float:
    return sum(p.stat().st_size for p in Path(path).rglob("*.parquet") if ".hoodie" not in p.parts) / _MB


def run_mode(mode: str, cluster: Any, conf: dict[str, str], path: str, rows: int, batch: int) -> dict[str, Any]:
    """One upsert in a driver of its own (started before, stopped after the measured call)."""
    from tests.cluster.driver import ClusterDriver

    workers = [w.pid for w in cluster.workers]
    driver = ClusterDriver(cluster, conf)
    try:
        before = measure_work(driver, workers)
        with ClusterSampler(driver.pid, workers) as sampler:
            wall = driver.run(upsert, mode, path, rows, batch)
        work = measure_work(driver, workers).minus(before)
        count = driver.run(count_rows, path)
    finally:
        driver.stop()
    return {
        "mode": mode,
        "wall_s": round(wall, 1),
        "rows_after": count,
        "files_written_by_tasks": merged_in_executors(path),
        **{k: round(v, 1) if isinstance(v, float) else v for k, v in asdict(sampler.peak).items()},
        **work,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1_000_000)
    parser.add_argument("--modes", default="datasource,table-api", help=f"comma-separated, of {', '.join(MODES)}")
    parser.add_argument("--driver-memory", default="1g", help="spark.driver.memory (the driver JVM's heap)")
    parser.add_argument("--executor-memory", default="3g", help="spark.executor.memory (one executor per worker)")
    parser.add_argument("--worker-memory", default="4g", help="each worker's memory for its executors")
    parser.add_argument("--shuffle-partitions", type=int, default=16)
    parser.add_argument("--work-dir", type=Path, default=None, help="where the cluster and tables live")
    parser.add_argument("--out", type=Path, default=None, help="append the results as JSON lines")
    args = parser.parse_args()
    modes = args.modes.split(",")
    if unknown := set(modes) - set(MODES):
        parser.error(f"unknown modes {sorted(unknown)}")

    from tests.cluster.driver import ClusterDriver
    from tests.cluster.standalone import start_cluster

    work = Path(tempfile.mkdtemp(prefix="bench-cluster-write-", dir=args.work_dir))
    cluster = start_cluster(work / "cluster", worker_memory=args.worker_memory)
    conf = driver_conf(args)
    try:
        base = str(work / "base")
        began = time.perf_counter()
        loader = ClusterDriver(cluster, conf)
        try:
            loader.run(bulk_insert, base, args.rows)
        finally:
            loader.stop()
        loaded = {"step": "bulk_insert", "rows": args.rows, "wall_s": round(time.perf_counter() - began, 1)}
        print(json.dumps({**loaded, "table_mb": round(_table_mb(base), 1)}), flush=True)
        for mode in modes:
            path = str(work / mode)
            shutil.copytree(base, path)
            result = {
                "rows": args.rows,
                "batch": args.batch,
                "driver_memory": args.driver_memory,
                "executor_memory": args.executor_memory,
                "shuffle_partitions": args.shuffle_partitions,
                "load_avg_1m": round(os.getloadavg()[0], 1),
                **run_mode(mode, cluster, conf, path, args.rows, args.batch),
                "load_avg_after_1m": round(os.getloadavg()[0], 1),
                "at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            }
            print(json.dumps(result), flush=True)
            if args.out is not None:
                with args.out.open("a") as f:
                    f.write(json.dumps(result) + "\n")
            shutil.rmtree(path)
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
