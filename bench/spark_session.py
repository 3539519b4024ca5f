"""The SparkSession a Spark step runs in: started, warmed up and stopped outside the measured step.

Every repetition starts its own session in its own worker process, as a one-off Spark job would:
``local[2]``, two shuffle partitions, UI off, the project's base settings, and no start-up tuning
(``-XX:TieredStopAtLevel=1`` speeds the tests' start-up but halves steady-state throughput).
Start-up (the JVM and ``getOrCreate``) and warm-up (the first job through Python workers) are
timed and reported apart from the step.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from bench.proctree import await_exit, descendants

#: The session of every Spark step (see ../shared/docs/spark-notes.md).
CONF = {
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.ui.enabled": "false",
}
MASTER = "local[2]"


@dataclass(frozen=True)
class Started:
    """A running session and what getting it ready cost."""

    spark: Any
    startup_s: float  #: JVM launch and ``getOrCreate``
    warmup_s: float  #: a first tiny job through the Python workers (both slots)


def _identity(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    yield from batches


def start(*, planners: bool = True) -> Started:
    """Start a session, then run one tiny Arrow job so that the Python worker daemon is up.

    With ``planners``, the warm-up also waits for the planner prestart ``spark_session`` runs in
    the background on a new session (:mod:`hudi_framework.spark.planner_prestart`), so that it
    never overlaps the measured step; without, the session starts none (the first read starts
    them, as in a session built without ``spark_session``).
    """
    from hudi_framework.spark.planner_prestart import prestart_planners
    from hudi_framework.spark.session import spark_session

    began = time.perf_counter()
    spark = spark_session("hudi_framework-bench", master=MASTER, conf=CONF, prestart_planners=False)
    spark.sparkContext.setLogLevel("ERROR")
    started = time.perf_counter()
    spark.range(0, 2, numPartitions=2).mapInArrow(_identity, "id long").collect()
    if planners:
        prestart_planners(spark).join()
    return Started(spark, started - began, time.perf_counter() - started)


def stop(spark: Any, timeout: float = 30.0) -> None:
    """Stop the session and wait for its JVM (and the workers it forked) to exit, so that the next
    repetition does not share the cores with a dying one."""
    tree = [p.pid for p in descendants(os.getpid())]
    gateway = spark.sparkContext._gateway
    spark.stop()
    proc = getattr(gateway, "proc", None)
    if proc is not None:
        # The JVM exits when its stdin closes (PySpark's own shutdown signal).
        if proc.stdin is not None:
            proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout)  # what is still running after this is killed below
    await_exit(tree, timeout)
