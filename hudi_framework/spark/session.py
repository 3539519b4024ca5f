"""Building a SparkSession that runs this project's code in its Python workers."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from pyspark.sql import SparkSession

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
}


def spark_session(
    app_name: str = "hudi_framework", *, master: str = "local[*]", conf: Mapping[str, str] | None = None
) -> SparkSession:
    """Get or create a session whose Python workers use this interpreter.

    Spark's workers run ``python3`` from PATH unless ``PYSPARK_PYTHON`` is set, and that interpreter
    may lack pyarrow or this project; pointing it at ``sys.executable`` avoids that.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    builder = SparkSession.builder.appName(app_name).master(master)
    for key, value in {**BASE_CONF, **(conf or {})}.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    register_data_source(session)
    return session


def register_data_source(session: SparkSession) -> None:
    """Register ``format("hudi")`` explicitly.

    Spark finds ``pyspark_hudi`` by itself when the project is installed normally; an editable
    install hides top-level modules from Spark's module scan, so sessions built here register it.
    """
    from hudi_framework.spark.datasource import HudiDataSource

    session.dataSource.register(HudiDataSource)
