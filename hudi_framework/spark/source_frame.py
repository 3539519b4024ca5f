"""A source plan as a DataFrame: the driver planned the splits, Spark's executors read them.

One Spark task per split (``spark.range(n, numPartitions=n)``: task ``i`` holds the number ``i``);
each task rebuilds the source from the job's :class:`~hudi_framework.runtime.sources.SourceRef` and
yields ``Source.read(split)`` as Arrow batches, cast to the batch schema by column name. Nothing but
the ref, the splits and the schema crosses to executors.

The batch schema must be known before Spark runs the read. When neither a schema file nor the
source's plan gives it, a small Spark job reads the first record batch of every split and the
driver unifies those schemas (numeric types widen, as Arrow's permissive promotion does).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING

import pyarrow as pa

from hudi_framework.contracts.source import SourceSplit
from hudi_framework.model.conform import conform
from hudi_framework.runtime.sources import SourceRef
from hudi_framework.spark.arrow_types import SparkSchema, to_spark_batches
from hudi_framework.spark.task_errors import typed_task_errors

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["infer_split_schema", "source_frame"]

_SPLIT = "id"


def _split_numbers(batches: Iterator[pa.RecordBatch]) -> Iterator[int]:
    for batch in batches:
        yield from batch.column(_SPLIT).to_pylist()


def _read_task(
    ref: SourceRef,
    splits: Sequence[SourceSplit],
    schema: pa.Schema,
    spark_arrow: pa.Schema,
    batches: Iterator[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    source, context = ref.source(), ref.context()
    for number in _split_numbers(batches):
        for batch in source.read(splits[number], context):
            yield from to_spark_batches(conform(pa.Table.from_batches([batch]), schema), spark_arrow)


def _schema_task(
    ref: SourceRef, splits: Sequence[SourceSplit], batches: Iterator[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    source, context = ref.source(), ref.context()
    for number in _split_numbers(batches):
        first = next(iter(source.read(splits[number], context)), None)
        if first is not None and first.num_rows:
            text = first.schema.serialize().to_pybytes()
            yield pa.RecordBatch.from_pydict({"schema": [text]}, schema=pa.schema([("schema", pa.binary())]))


def _seeds(spark: SparkSession, count: int) -> DataFrame:
    return spark.range(0, count, 1, numPartitions=max(count, 1))


def infer_split_schema(spark: SparkSession, ref: SourceRef, splits: Sequence[SourceSplit]) -> pa.Schema | None:
    """The unified schema of the first record batch of every split (None: every split is empty)."""
    frame = _seeds(spark, len(splits)).mapInArrow(partial(_schema_task, ref, tuple(splits)), "schema binary")
    with typed_task_errors():
        rows = frame.collect()
    schemas = [pa.ipc.read_schema(pa.py_buffer(row["schema"])) for row in rows]
    if not schemas:
        return None
    return pa.unify_schemas(schemas, promote_options="permissive")


def source_frame(spark: SparkSession, ref: SourceRef, splits: Sequence[SourceSplit], schema: pa.Schema) -> DataFrame:
    """A lazy DataFrame of the rows of ``splits``, with ``schema``'s columns (one Spark task per split)."""
    target = SparkSchema.of_arrow(schema)
    task = partial(_read_task, ref, tuple(splits), schema, target.arrow)
    return _seeds(spark, len(splits)).mapInArrow(task, target.struct)
