"""The cluster's Spark driver, in a process of its own.

A Python process holds one SparkContext, and the suite's ``spark`` fixture (``local[2]``) may already
hold one in the pytest process: xdist's group keeps the cluster's tests on one worker but does not
keep other groups off that worker, and ``-n 0`` runs everything in one process. So the session on
the cluster lives in a spawned child, and tests send it module-level functions to run
(``driver.run(fn, *args)``: ``fn(spark, *args)`` there, its result pickled back). The child is also
a driver apart from the test process: its process tree is the driver's, executors are the workers'.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Final, TypeVar

from tests.cluster.standalone import StandaloneCluster

R = TypeVar("R")

EXECUTORS: Final = 2
_REGISTER_TIMEOUT_S: Final = 120.0
_LOG_CONFIG: Final = Path(__file__).parents[2] / "hudi_framework" / "spark" / "log4j2.properties"


class ClusterJobError(RuntimeError):
    """A function failed in the cluster's driver; the message holds its traceback there."""


def cluster_conf(cluster: StandaloneCluster, python_path: str) -> dict[str, str]:
    """The application's settings: one 1-core executor per worker, this venv's Python and
    ``PYTHONPATH`` shipped to executors (the workers' environment has neither), UI off."""
    fast_jvm = f"-XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile={_LOG_CONFIG.as_uri()}"
    return {
        "spark.executor.cores": "1",
        "spark.executor.memory": "512m",
        "spark.cores.max": str(EXECUTORS),
        "spark.driver.memory": "768m",
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.pyspark.python": sys.executable,
        "spark.executorEnv.PYTHONPATH": python_path,
        "spark.executorEnv.PYSPARK_PYTHON": sys.executable,
        "spark.driver.extraJavaOptions": fast_jvm,  # test start-up only: never in benchmarks
        "spark.executor.extraJavaOptions": fast_jvm,
        "spark.scheduler.minRegisteredResourcesRatio": "1.0",
        "spark.scheduler.maxRegisteredResourcesWaitingTime": "60s",
        "spark.ui.showConsoleProgress": "false",
        "spark.local.dir": str(cluster.root / "driver-local"),
    }


def executors_alive(spark: Any) -> int:
    """Executors registered with the driver (the driver's own block manager excluded)."""
    return int(spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size()) - 1


def wait_for_executors(spark: Any, count: int = EXECUTORS, timeout_s: float = _REGISTER_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while executors_alive(spark) < count:
        if time.monotonic() > deadline:
            raise ClusterJobError(f"{executors_alive(spark)} of {count} executors registered in {timeout_s:.0f} s")
        time.sleep(0.3)


def _serve(conn: Connection, master_url: str, conf: Mapping[str, str]) -> None:
    # The driver sees no credentials from the environment: S3 settings reach tasks through options.
    for name in [n for n in os.environ if n.startswith(("AWS_", "HUDI_"))]:
        del os.environ[name]
    os.environ["PYSPARK_PYTHON"] = os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from hudi_framework.spark.session import spark_session

    try:
        spark = spark_session("hudi_framework-cluster-tests", master=master_url, conf=conf)
        spark.sparkContext.setLogLevel("ERROR")
        wait_for_executors(spark)
    except BaseException:
        conn.send(("err", traceback.format_exc()))
        return
    conn.send(("ok", None))
    try:
        while True:
            request = conn.recv()
            if request is None:
                break
            fn, args, kwargs = request
            try:
                conn.send(("ok", fn(spark, *args, **kwargs)))
            except BaseException:
                conn.send(("err", traceback.format_exc()))
    finally:
        spark.stop()


class ClusterDriver:
    """A SparkSession on ``cluster`` in a spawned child process (see the module docstring)."""

    def __init__(self, cluster: StandaloneCluster, conf: Mapping[str, str] | None = None) -> None:
        """Start the driver; ``conf`` adds to or overrides :func:`cluster_conf` (a benchmark's sizes)."""
        self.cluster = cluster
        python_path = os.pathsep.join(p for p in [str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH")] if p)
        settings = {**cluster_conf(cluster, python_path), **(conf or {})}
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, cluster.master_url, settings), daemon=True)
        self._process.start()
        child.close()
        self._receive()  # the session is up and both executors registered

    @property
    def pid(self) -> int:
        return int(self._process.pid or 0)

    def run(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        """``fn(spark, *args, **kwargs)`` in the driver; ``fn`` must be importable (module level)."""
        self._conn.send((fn, args, kwargs))
        return self._receive()  # type: ignore[no-any-return]

    def _receive(self) -> Any:
        try:
            status, value = self._conn.recv()
        except EOFError as e:
            raise ClusterJobError(f"the cluster's driver process exited ({self._process.exitcode})") from e
        if status == "err":
            raise ClusterJobError(value)
        return value

    def stop(self) -> None:
        if self._process.is_alive():
            with contextlib.suppress(OSError):  # the child already went
                self._conn.send(None)
            self._process.join(timeout=30)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(timeout=10)
