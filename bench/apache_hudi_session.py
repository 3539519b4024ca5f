"""The Spark session an Apache Hudi step runs in: Apache Hudi 1.2.0's Spark 3.5 bundle, started, warmed
up and stopped outside the measured step, with the settings of our Spark steps.

The bundle needs Spark 3.5 (the project runs on PySpark 4), so the session lives in the oracle's venv
(``tests/oracle/provision.py``, a test and bench tool, never a runtime dependency) behind the oracle's
JSON-lines driver (``tests/oracle/driver.py``), a child of the worker: its JVM's CPU time and memory
count as a Spark step's do (:mod:`bench.proctree`). A request's round trip over the pipe is well
under a millisecond.

Settings as :mod:`bench.spark_session`'s: ``local[2]``, two shuffle partitions, parallelism 2, UI
off, Spark's default driver memory, session time zone UTC and no start-up tuning (the oracle's
``-XX:TieredStopAtLevel=1`` and 2 GB driver are overridden). Apache Hudi's own requirements stay:
the Kryo serializer with its registrator and its SQL extension and catalog.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.proctree import await_exit, descendants
from bench.spark_session import CONF as SPARK_CONF
from tests.oracle.client import ApacheHudi
from tests.oracle.provision import OracleUnavailableError, provision

#: Overrides of the oracle driver's session: the bench's Spark settings and Spark's defaults.
CONF = {
    **SPARK_CONF,
    "spark.driver.memory": "1g",  # Spark's default, which our Spark steps run with
    "spark.driver.extraJavaOptions": "-Duser.timezone=UTC",  # no -XX:TieredStopAtLevel=1
}
#: The warm-up: a first two-task job, so the executor's threads and the code paths of a job are up.
WARMUP = "SELECT count(*) FROM range(0, 2, 1, 2)"


@dataclass(frozen=True)
class Started:
    """A running Apache Hudi session and what getting it ready cost."""

    client: ApacheHudi
    startup_s: float  #: the driver process, its JVM and ``getOrCreate``
    warmup_s: float  #: :data:`WARMUP`
    scratch: Path  #: the driver's own directory (its log, hand-off files), removed on stop


def unavailable() -> str | None:
    """Why Apache Hudi's steps cannot run here (None when they can): provisioning is impossible offline.

    Provisions when it can (downloads the bundle and PySpark 3.5 once, into the user's cache)."""
    try:
        provision()
    except OracleUnavailableError as exc:
        return f"apache_hudi (cannot provision Apache Hudi offline: {str(exc).splitlines()[0]})"
    return None


def start() -> Started:
    """Start the driver with the bench's settings, then run the warm-up job."""
    env = provision()
    scratch = Path(tempfile.mkdtemp(prefix="bench-apache-hudi-"))
    began = time.perf_counter()
    client = ApacheHudi(env, scratch, conf=CONF)
    started = time.perf_counter()
    client.sql(WARMUP)
    return Started(client, started - began, time.perf_counter() - started, scratch)


def stop(started: Started, timeout: float = 30.0) -> None:
    """Stop the session and wait for the driver and its JVM to exit."""
    tree = [p.pid for p in descendants(os.getpid())]
    started.client.close()
    await_exit(tree, timeout)
    shutil.rmtree(started.scratch, ignore_errors=True)


@contextmanager
def session() -> Iterator[ApacheHudi]:
    """A session for unmeasured work (preparing a state)."""
    started = start()
    try:
        yield started.client
    finally:
        stop(started)
