"""The distributed merge of a ``format("hudi")`` staged write, run from the writer's commit.

The write tasks staged their rows as Parquet files under the table's ``.hoodie/.temp/``. The commit
process, attached to the driver's JVM (:mod:`hudi_framework.spark.driver_session`), reads those
files back as a DataFrame (one Spark partition per staged file, read in executors with the table's
storage backend, batch by batch) and runs :class:`~hudi_framework.spark.write_engine.SparkWriteClient`
over it: keys, pre-combine, tagging and the file-group merges run in executor tasks, the commit
process only plans and commits. Its memory is then bounded by the plan and the write stats, not by
the batch.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.types import StringType, StructField, StructType

from hudi_framework.config.settings import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.worker import WorkerSpec, worker_components
from hudi_framework.spark.write_engine import SparkWriteClient
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.pipeline import WriteResult

__all__ = ["distributed_merge", "staged_frame"]

_KEY = "staged_key"


def staged_frame(spark: SparkSession, spec: WorkerSpec, keys: Sequence[str], schema: StructType) -> DataFrame:
    """The rows of the staged files ``keys`` (relative to the table's base path), of Spark schema ``schema``.

    Files keep their order (the order of the write tasks' partitions), so rows keep their arrival order.
    """
    # One partition per file, in the given order: arrival order follows the partition ids.
    rdd = spark.sparkContext.parallelize([(k,) for k in keys], max(1, len(keys)))
    names = spark.createDataFrame(rdd, StructType([StructField(_KEY, StringType(), False)]))

    def read(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        storage = worker_components(spec).storage
        for batch in batches:
            for key in batch.column(0).to_pylist():
                with storage.open_input(key) as f:
                    yield from pq.ParquetFile(f).iter_batches()

    return names.mapInArrow(read, schema)


def distributed_merge(
    spark: SparkSession,
    table: HudiTable,
    settings: HudiSettings,
    keys: Sequence[str],
    schema: StructType,
    operation: WriteOperation,
) -> WriteResult:
    """Run ``operation`` over the staged files ``keys`` with the Spark engine, in ``spark``'s executors."""
    spec = WorkerSpec.of(table, settings)
    client = SparkWriteClient(table, settings, spark)
    # Read before the write starts: a single writer's first step sweeps staged rows as leftovers of
    # dead writes, these included. Cached in executors (memory, then disk), never on the driver.
    rows = staged_frame(spark, spec, keys, schema).persist(StorageLevel.MEMORY_AND_DISK_DESER)
    try:
        rows.count()
        return client.write(rows, operation)
    finally:
        rows.unpersist()
