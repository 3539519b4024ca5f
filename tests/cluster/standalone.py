"""A Spark standalone cluster on 127.0.0.1 for tests: one master and two workers, each its own JVM
started from the installed ``pyspark`` package's ``bin/spark-class`` (no other Spark install).

Each worker offers one core and a small memory; executors (and their Python workers) are child
processes of the workers, so a test can kill one (:meth:`StandaloneCluster.executor_pids`). The
daemons log to files under the cluster's directory, which an error quotes when the cluster does
not come up.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pyspark

WORKERS: Final = 2
WORKER_MEMORY: Final = "1g"
#: The master's and workers' own heaps (their executors are sized by the application).
DAEMON_MEMORY: Final = "256m"
_START_TIMEOUT_S: Final = 120.0
_EXECUTOR_CLASS: Final = "CoarseGrainedExecutorBackend"


class ClusterStartError(RuntimeError):
    """The master or a worker did not come up; the message quotes the end of its log."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def spark_home() -> Path:
    return Path(pyspark.__file__).parent


def daemon_env(root: Path) -> dict[str, str]:
    """The environment of the master and workers: Spark from the pyspark package, bound to
    127.0.0.1, no credentials (whatever an executor needs must come from the application)."""
    log_config = Path(__file__).parents[2] / "hudi_framework" / "spark" / "log4j2.properties"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "SPARK_", "PYSPARK_", "HUDI_"))}
    conf_dir = root / "conf"
    conf_dir.mkdir(parents=True, exist_ok=True)
    env.update(
        SPARK_HOME=str(spark_home()),
        SPARK_CONF_DIR=str(conf_dir),  # empty: no spark-defaults or spark-env from elsewhere
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_DAEMON_MEMORY=DAEMON_MEMORY,
        SPARK_DAEMON_JAVA_OPTS=f"-XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile={log_config.as_uri()}",
        SPARK_LOG_DIR=str(root / "logs"),
    )
    env.pop("PYTHONPATH", None)  # the application ships its own (spark.executorEnv.PYTHONPATH)
    return env


@dataclass
class StandaloneCluster:
    """A running master and workers (see :func:`start_cluster`)."""

    root: Path
    master_url: str
    ui_url: str
    master: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def state(self) -> dict[str, object]:
        with urllib.request.urlopen(f"{self.ui_url}/json/", timeout=5) as response:
            return dict(json.load(response))

    def executor_pids(self) -> dict[int, list[int]]:
        """Executor JVM pids by worker pid (children of each worker whose command is an executor)."""
        found: dict[int, list[int]] = {w.pid: [] for w in self.workers}
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if ppid in found and _EXECUTOR_CLASS in (proc / "cmdline").read_bytes().decode(errors="replace"):
                    found[ppid].append(int(proc.name))
            except (OSError, IndexError, ValueError):
                continue  # the process ended while we looked
        return found

    def stop(self) -> None:
        for proc in [*self.workers, self.master]:
            _terminate(proc)


def _terminate(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is not None:
        return
    # The daemon's process group: the JVM and whatever it started (executors, Python workers).
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)
    except ProcessLookupError:
        pass


def _daemon(root: Path, name: str, args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    log = (root / f"{name}.log").open("wb")
    spark_class = spark_home() / "bin" / "spark-class"
    return subprocess.Popen(
        [str(spark_class), *args],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, killed as one at the end
        cwd=root,
    )


def _log_tail(root: Path, name: str) -> str:
    path = root / f"{name}.log"
    return path.read_text(errors="replace")[-3000:] if path.exists() else "(no log)"


def start_cluster(
    root: Path, workers: int = WORKERS, *, worker_memory: str = WORKER_MEMORY, worker_cores: int = 1
) -> StandaloneCluster:
    """Start a master and ``workers`` workers (``worker_cores`` cores and ``worker_memory`` each: the
    most their executors may take) and wait until every worker has registered.

    Raises:
        ClusterStartError: A daemon exited or the workers did not register in time.
    """
    root.mkdir(parents=True, exist_ok=True)
    env = daemon_env(root)
    port, ui_port = free_port(), free_port()
    master_url = f"spark://127.0.0.1:{port}"
    master = _daemon(
        root,
        "master",
        [
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(ui_port),
        ],
        env,
    )
    cluster = StandaloneCluster(root, master_url, f"http://127.0.0.1:{ui_port}", master)
    try:
        for i in range(workers):
            work_dir = root / f"worker-{i}"
            work_dir.mkdir(exist_ok=True)
            args = [
                "org.apache.spark.deploy.worker.Worker",
                "--host", "127.0.0.1",
                "--port", str(free_port()),
                "--webui-port", str(free_port()),
                "--cores", str(worker_cores),
                "--memory", worker_memory,
                "--work-dir", str(work_dir),
                master_url,
            ]  # fmt: skip
            cluster.workers.append(_daemon(root, f"worker-{i}", args, env))
        _wait_for_workers(cluster, workers)
    except BaseException:
        cluster.stop()
        raise
    return cluster


def _wait_for_workers(cluster: StandaloneCluster, workers: int) -> None:
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        for name, proc in [("master", cluster.master)] + [(f"worker-{i}", w) for i, w in enumerate(cluster.workers)]:
            if proc.poll() is not None:
                raise ClusterStartError(f"{name} exited ({proc.returncode}):\n{_log_tail(cluster.root, name)}")
        try:
            if int(str(cluster.state().get("aliveworkers", 0))) >= workers:
                return
        except OSError:
            pass  # the master's UI is not up yet
        time.sleep(0.5)
    raise ClusterStartError(
        f"{workers} workers did not register in {_START_TIMEOUT_S:.0f} s:\n{_log_tail(cluster.root, 'master')}"
    )


if __name__ == "__main__":  # python -m tests.cluster.standalone DIR: start, print, stop on Enter
    started = start_cluster(Path(sys.argv[1]))
    print(started.master_url, started.ui_url, flush=True)
    try:
        sys.stdin.readline()
    finally:
        started.stop()
