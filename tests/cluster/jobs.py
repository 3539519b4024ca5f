"""Functions the cluster's driver runs (``ClusterDriver.run(fn, *args)`` calls ``fn(spark, *args)``).

They take and return picklable values (Arrow tables, dicts); everything a test asserts is computed
in the test process from what they return and from the table's files.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

HUDI = "hudi"


def executor_facts(spark: Any, tasks: int = 4) -> list[dict[str, Any]]:
    """What Python workers see: their pid and the executor JVM above them, the project's location
    and the installed plugins (entry points found in the executor's interpreter)."""

    def facts(_: Any) -> Iterator[dict[str, Any]]:
        import hudi_framework
        from hudi_framework.plugin import build_plugin_manager

        yield {
            "pid": os.getpid(),
            "executor": _executor_jvm(),
            "hudi_framework": hudi_framework.__file__,
            "plugins": sorted(name for name, _ in build_plugin_manager().list_name_plugin() if name),
            "aws": sorted(k for k in os.environ if k.startswith("AWS_")),
            "host": socket.gethostname(),
        }

    return list(spark.sparkContext.parallelize(range(tasks), tasks).mapPartitions(facts).collect())


def driver_pid(spark: Any) -> int:
    return os.getpid()


def _executor_jvm() -> int:
    """The executor JVM running this Python worker: the first ancestor whose command is an executor."""
    pid = os.getpid()
    while pid > 1:
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        if b"CoarseGrainedExecutorBackend" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
    raise RuntimeError("this Python worker has no executor JVM above it")


def write_df(spark: Any, path: str, rows: pa.Table, options: Mapping[str, str], mode: str = "append") -> None:
    spark.createDataFrame(rows).write.format(HUDI).options(**options).mode(mode).save(path)


def read_df(spark: Any, path: str, options: Mapping[str, str] | None = None) -> pa.Table:
    return spark.read.format(HUDI).options(**(options or {})).load(path).toArrow()


def client_write(spark: Any, path: str, rows: pa.Table, operation: str, options: Mapping[str, str]) -> dict[str, Any]:
    """One ``SparkWriteClient`` operation on the table the hoodie ``options`` open (storage settings
    and credentials included); returns the result's counts and the task counts of the table
    services that ran through the Spark task runner (so in executors)."""
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.spark import service_runner
    from hudi_framework.spark.write_engine import SparkWriteClient

    ran: list[int] = []
    original = service_runner.SparkTaskRunner.map

    def spied(self: Any, fn: Any, tasks: Any, **kwargs: Any) -> Any:
        tasks = list(tasks)
        ran.append(len(tasks))
        return original(self, fn, tasks, **kwargs)

    settings = HudiSettings.from_hoodie_options(dict(options), env=False)
    table = HudiTable.open(path, settings=settings)
    service_runner.SparkTaskRunner.map = spied  # type: ignore[method-assign]
    try:
        result = SparkWriteClient(table, settings, spark).write(spark.createDataFrame(rows), operation)
    finally:
        service_runner.SparkTaskRunner.map = original  # type: ignore[method-assign]
    return {
        "instant": result.instant.requested_time,
        "inserts": result.num_inserts,
        "updates": result.num_updates,
        "deletes": result.num_deletes,
        "failures": [str(f) for f in result.post_commit_failures],
        "service_tasks": ran,
    }


def streamer(spark: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
    from hudi_framework.config import HudiSettings
    from hudi_framework.streamer import run_streamer

    report = run_streamer(HudiSettings.load(overrides=dict(overrides), env=False), spark=spark)
    return {"commits": report.commits, "rows": [r.rows for r in report.rounds if r.committed]}


def killed_bulk_insert(spark: Any, path: str, rows: pa.Table, options: Mapping[str, str]) -> dict[str, Any]:
    """``bulk_insert`` through ``df.write.format("hudi")`` whose executor running the first attempt of
    partition 0 is killed (SIGKILL) as that attempt marks its data file (tests/cluster/killer.py): the
    task is lost with its executor and Spark runs it again on another. Returns what the tasks logged:
    ``<partition>-<attempt>-<executor pid>`` per input task, ``killed-<pid>`` with the marker seen."""
    from pyspark import TaskContext

    log_dir = Path(path + ".attempts")
    log_dir.mkdir()

    def arm_killer(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        ctx = TaskContext.get()
        assert ctx is not None
        executor = _executor_jvm()
        (log_dir / f"{ctx.partitionId()}-{ctx.attemptNumber()}-{executor}").touch()
        if ctx.partitionId() == 0 and ctx.attemptNumber() == 0:
            watcher = [sys.executable, "-m", "tests.cluster.killer", str(executor), path, str(log_dir)]
            subprocess.Popen(watcher, start_new_session=True)  # outlives the executor it kills
        yield from batches

    frame = spark.createDataFrame(rows)
    frame.repartition(2).mapInArrow(arm_killer, frame.schema).write.format(HUDI).options(**options).mode("append").save(
        path
    )
    from tests.cluster.driver import wait_for_executors

    wait_for_executors(spark)  # the master replaces the lost executor: later tests get two again
    return {name.name: name.read_text() for name in log_dir.iterdir()}
