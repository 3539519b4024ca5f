"""``format("hudi")``: the Spark Python data source (reads and writes).

Reads: the driver plans one task per base file, or per file slice to merge for merge-on-read
snapshots and incremental reads (the kernel's read plan); executors read (and merge) their files with
pyarrow and yield Arrow batches cast to Spark's exact schema.

Writes: :mod:`hudi_framework.spark.datasource_write` (direct writes in executors for operations that
never read stored records, staged rows merged at commit for the others).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    Filter,
    InputPartition,
)
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
from pyspark.sql.types import StructType

from hudi_framework.read.filters import Predicate
from hudi_framework.read.merged_task import MergedReadTask
from hudi_framework.read.plan import ReadTask
from hudi_framework.read.reader import build_options, plan_read, run_task
from hudi_framework.read.schema import read_schema, spark_type
from hudi_framework.spark.filters import split_filters
from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.task_errors import reported_to_spark


def _spark_schema(schema: pa.Schema) -> StructType:
    return from_arrow_schema(pa.schema([pa.field(f.name, spark_type(f.type), True) for f in schema]))


@dataclass(frozen=True)
class _ReadPartition(InputPartition):
    task: ReadTask | MergedReadTask


class HudiDataSourceReader(DataSourceReader):
    """Plans on the driver, reads base files (and merges file slices) in executors."""

    def __init__(self, options: SourceOptions, schema: StructType) -> None:
        self._options = options
        self._arrow_schema = to_arrow_schema(schema, timezone="UTC")
        self._filters: list[Predicate] = []

    def partitions(self) -> Sequence[InputPartition]:
        with reported_to_spark():
            table = self._options.open_table()
            plan = plan_read(table, build_options(options=self._options.hoodie, filters=self._filters or None))
            return [_ReadPartition(task) for task in plan.tasks]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, _ReadPartition):
            return  # an empty plan: Spark still runs one default partition
        with reported_to_spark():
            table = self._options.open_table()
            for batch in run_task(partition.task, table.storage):
                yield _to_spark_batch(batch, self._arrow_schema)


class HudiPushdownReader(HudiDataSourceReader):
    """A reader that also takes Spark's filters: partition pruning plus exact row filtering.

    Used only with the ``filter.pushdown`` option, which needs the session setting
    ``spark.sql.python.filterPushdown.enabled=true``.
    """

    def pushFilters(self, filters: list[Filter]) -> Iterable[Filter]:  # noqa: N802 - Spark's name
        accepted, rejected = split_filters(filters, set(self._arrow_schema.names))
        self._filters.extend(accepted)
        yield from rejected


def _to_spark_batch(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    # Spark checks the batch schema exactly: same names, order and types, no large/dictionary types.
    columns = []
    for f in schema:
        column = batch.column(batch.schema.get_field_index(f.name))
        columns.append(column if column.type == f.type else column.cast(f.type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


class HudiDataSource(DataSource):
    """``spark.read.format("hudi")`` / ``df.write.format("hudi")``."""

    @classmethod
    def name(cls) -> str:
        return "hudi"

    def schema(self) -> StructType:
        with reported_to_spark():
            options = SourceOptions.parse(self.options)
            table = options.open_table()
            read_options = build_options(options=options.hoodie)
            return _spark_schema(read_schema(table, as_of=read_options.as_of))

    def reader(self, schema: StructType) -> DataSourceReader:
        with reported_to_spark():
            options = SourceOptions.parse(self.options)
        if options.filter_pushdown:
            return HudiPushdownReader(options, schema)
        return HudiDataSourceReader(options, schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceArrowWriter:
        # Imported here: the planner processes Spark starts for a read need no write path.
        from hudi_framework.spark.datasource_write import build_writer

        # Bad options fail here, on the driver side, before any task runs.
        with reported_to_spark(write=True):
            return build_writer(SourceOptions.parse(self.options), schema, overwrite)
