"""Arrow schemas on both sides of ``mapInArrow``, and the driver-side helpers of the Spark stages.

A ``mapInArrow`` function declares its output as a Spark ``StructType``; the batches it yields
must have the Arrow types Spark derives from it (``string``, never ``large_string``; microsecond
timestamps; Spark's list and map field names). Kernel functions return whatever Arrow types they
like, so every executor function ends with :func:`to_spark_batches`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
from pyspark.sql.types import StructType

from hudi_framework.read.schema import spark_type
from hudi_framework.spark.task_errors import typed_task_errors

if TYPE_CHECKING:
    from pyspark import Broadcast
    from pyspark.sql import DataFrame

__all__ = ["SparkResources", "SparkSchema", "collect_arrow", "to_spark_batches"]


class SparkSchema:
    """One schema as Spark declares it (:attr:`struct`) and as its Arrow batches carry it (:attr:`arrow`)."""

    def __init__(self, struct: StructType) -> None:
        """Wrap a Spark schema."""
        self.struct = struct
        self.arrow: pa.Schema = to_arrow_schema(struct, timezone="UTC")

    @classmethod
    def of_arrow(cls, schema: pa.Schema) -> SparkSchema:
        """The Spark schema of an Arrow schema (every field nullable, types as Spark has them)."""
        fields = [pa.field(f.name, spark_type(f.type), nullable=True) for f in schema]
        return cls(from_arrow_schema(pa.schema(fields)))

    @classmethod
    def of_frame(cls, frame: DataFrame) -> SparkSchema:
        """The schema of a DataFrame."""
        return cls(frame.schema)


def to_spark_batches(table: pa.Table, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """``table``'s columns named by ``schema``, in its order and types, as record batches."""
    if not table.num_rows:
        return
    columns = []
    for wanted in schema:
        column = table.column(wanted.name)
        columns.append(column if column.type == wanted.type else column.cast(wanted.type))
    yield from pa.Table.from_arrays(columns, schema=schema).to_batches()


def collect_arrow(frame: DataFrame) -> pa.Table:
    """Run ``frame`` and bring its (small) result to the driver; task errors keep their type."""
    with typed_task_errors():
        return frame.toArrow()


@dataclass
class SparkResources:
    """Spark objects one write holds until it ends, however it ends (see :meth:`release`).

    Attributes:
        cached: Persisted DataFrames.
        broadcasts: Broadcast variables.
    """

    cached: list[DataFrame] = field(default_factory=list)
    broadcasts: list[Broadcast[Any]] = field(default_factory=list)

    def release(self) -> None:
        """Unpersist and destroy everything held."""
        for frame in self.cached:
            frame.unpersist()
        for variable in self.broadcasts:
            variable.destroy()
        self.cached.clear()
        self.broadcasts.clear()
