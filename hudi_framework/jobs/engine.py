"""The two engines a job writes with: in-process (:class:`WriteClient`) or Spark (``SparkWriteClient``).

Both take a ``pyarrow.Table`` per batch, because the job keeps its expected model in Arrow; the
Spark writer turns it into a DataFrame and lets Spark's executors do the per-file-group work.
``pyspark`` and :mod:`hudi_framework.spark` are imported only when the Spark engine is used, so the
kernel and the CLI import without them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import pyarrow as pa

from hudi_framework.config.enums import WriteEngine
from hudi_framework.config.settings import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteClient, WriteResult

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["BatchWriter", "SparkBatchWriter", "open_writer", "spark_count", "start_spark"]


class BatchWriter(Protocol):
    """Writes one batch as one instant."""

    def write(self, data: pa.Table, operation: WriteOperation) -> WriteResult:
        """Run ``operation`` on ``data`` and return what it wrote."""
        ...


class SparkBatchWriter:
    """Writes batches through the Spark engine's ``SparkWriteClient``.

    Args:
        table: The table.
        settings: Write, index and merger settings.
        spark: The session to run on (never stopped here).
    """

    def __init__(self, table: HudiTable, settings: HudiSettings, spark: SparkSession) -> None:
        """Bind the Spark write client to ``table``."""
        from hudi_framework.spark.write_engine import SparkWriteClient

        self._spark = spark
        self._client = SparkWriteClient(table, settings, spark)

    def write(self, data: pa.Table, operation: WriteOperation) -> WriteResult:
        """Hand ``data`` to Spark as a DataFrame and write it."""
        return self._client.write(self._spark.createDataFrame(data), operation)


def open_writer(
    engine: WriteEngine, table: HudiTable, settings: HudiSettings, spark: SparkSession | None
) -> BatchWriter:
    """The writer of ``engine``.

    Raises:
        ValueError: The Spark engine was asked for without a session.
    """
    if engine is WriteEngine.LOCAL:
        return WriteClient(table, settings)
    if spark is None:
        raise ValueError("the spark engine needs a SparkSession")
    return SparkBatchWriter(table, settings, spark)


def start_spark(master: str, conf: Mapping[str, str]) -> SparkSession:
    """Start (or get) a session whose Python workers run this interpreter (sets ``PYSPARK_PYTHON``)."""
    from hudi_framework.spark.session import spark_session

    # Spark's own console progress bar would draw over the job's progress bars.
    session = spark_session("hudi-fw run", master=master, conf={"spark.ui.showConsoleProgress": "false", **conf})
    session.sparkContext.setLogLevel("ERROR")
    return session


def spark_count(spark: SparkSession, base_path: str, options: Mapping[str, str]) -> int:
    """Rows of the table as ``spark.read.format("hudi")`` sees them (``options``: Apache Hudi options)."""
    from hudi_framework.spark.session import register_data_source

    # A caller's own session may not have it yet (editable installs hide ``pyspark_hudi``).
    register_data_source(spark)
    return int(spark.read.format("hudi").options(**options).load(base_path).count())
