"""Building a SparkSession that runs this project's code in its Python workers."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path

from pyspark import SparkContext
from pyspark.sql import SparkSession

from hudi_framework.read.splits import SplitSizing

_DRIVER_JAVA_OPTIONS = "spark.driver.extraJavaOptions"
_LOG_CONFIG = Path(__file__).with_name("log4j2.properties")

#: Settings every hudi_framework session needs; callers may add or override others.
BASE_CONF: Mapping[str, str] = {
    "spark.ui.enabled": "false",
    "spark.sql.session.timeZone": "UTC",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
    # Hudi stores timestamps as INT64 micros; never let Spark write INT96.
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    # Workers fork from a daemon that has already imported our task modules (see its docstring).
    "spark.python.daemon.module": "hudi_framework.spark.daemon",
    # A Python error's message, not its traceback, in Spark's exception: the first line a user sees
    # of a failed write is then ``...: hudi_framework.errors.KeyFieldError: ...`` (docs/spark.md).
    "spark.sql.execution.pyspark.udf.hideTraceback.enabled": "true",
}


def spark_session(
    app_name: str = "hudi_framework",
    *,
    master: str = "local[*]",
    conf: Mapping[str, str] | None = None,
    prestart_planners: bool = True,
) -> SparkSession:
    """Get or create a session whose Python workers use this interpreter.

    Spark's workers run ``python3`` from PATH unless ``PYSPARK_PYTHON`` is set, and that interpreter
    may lack pyarrow or this project; pointing it at ``sys.executable`` avoids that. A new session
    logs warnings and errors only (``log4j2.properties`` beside this module) unless ``conf`` sets the
    driver's Java options; a local one binds to 127.0.0.1 without warning that the host name
    resolves to a loopback address.

    With ``prestart_planners`` (the default), a session this call creates starts Spark's planner
    processes for ``format("hudi")`` on a background thread
    (:func:`~hudi_framework.spark.planner_prestart.prestart_planners`), so that its first read does
    not wait for them; pass False for a session that never reads through ``format("hudi")``.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    if master.startswith("local"):
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    settings = {**BASE_CONF, **(conf or {})}
    java_options = settings.get(_DRIVER_JAVA_OPTIONS, "")
    if "log4j" not in java_options:
        settings[_DRIVER_JAVA_OPTIONS] = f"{java_options} -Dlog4j2.configurationFile={_LOG_CONFIG.as_uri()}".strip()
    builder = SparkSession.builder.appName(app_name).master(master)
    for key, value in settings.items():
        builder = builder.config(key, value)
    created = SparkContext._active_spark_context is None
    session = builder.getOrCreate()
    # Registered by this session, not only by Spark's scan: a data source registered from Python
    # carries the session's Python environment, so its read tasks get workers from the same
    # daemon as every other Python job of the session (already started, our modules preloaded)
    # instead of booting a second one on the first read (1.5-2 s). The warning Spark logs for the
    # replaced registration is silenced in this session's log configuration. The registration also
    # carries the session's file-split settings (see split_sizing).
    _register(session)
    if prestart_planners and created:
        from hudi_framework.spark.planner_prestart import prestart_planners as prestart

        prestart(session)
    return session


def register_data_source(session: SparkSession, *, again: bool = False) -> None:
    """Make sure ``format("hudi")`` resolves in ``session``, a session built elsewhere.

    Spark registers ``pyspark_hudi`` by itself (it scans the top-level ``pyspark_*`` modules; the
    project's build backend puts one in site-packages for editable installs too). Registering again
    would replace that registration with a warning in the user's log, so this registers only where
    the scan did not find it (the project on ``PYTHONPATH`` only, say), unless ``again``: then it
    registers anyway, taking up the session's current file-split settings (see
    :func:`split_sizing`). :func:`spark_session` registers always, its log configuration silencing
    the warning. A registration from the session also lets a large staged ``df.write`` merge in
    executors (:mod:`hudi_framework.spark.driver_session`); Spark's own registration merges in
    the commit process.
    """
    if again or not _registered(session):
        _register(session)


def _register(session: SparkSession) -> None:
    from hudi_framework.spark.datasource import HudiDataSource
    from hudi_framework.spark.driver_session import publish_handle

    session.dataSource.register(HudiDataSource.for_session(split_sizing(session), publish_handle(session)))


def split_sizing(session: SparkSession) -> SplitSizing:
    """How reads in ``session`` pack files into partitions: its ``spark.sql.files.maxPartitionBytes``,
    ``spark.sql.files.openCostInBytes`` and ``spark.sql.files.minPartitionNum`` (else its default
    parallelism), read when the data source is registered; Spark's defaults where the session does
    not say (Spark Connect)."""
    try:
        conf = session._jsparkSession.sessionState().conf()
        minimum = conf.filesMinPartitionNum()
        parallelism = int(minimum.get()) if minimum.isDefined() else int(session.sparkContext.defaultParallelism)
        return SplitSizing(
            max_split_bytes=int(conf.filesMaxPartitionBytes()),
            open_cost_bytes=int(conf.filesOpenCostInBytes()),
            min_splits=max(1, parallelism),
        )
    except Exception:  # no JVM handle: Spark's defaults, the planning machine's CPUs
        return SplitSizing()


def _registered(session: SparkSession) -> bool:
    try:
        return bool(session._jsparkSession.sessionState().dataSourceManager().dataSourceExists("hudi"))
    except Exception:  # a session without a JVM handle (Spark Connect): register, to be sure
        return False
