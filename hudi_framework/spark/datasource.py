"""``format("hudi")``: the Spark Python data source (reads and writes).

Reads: the driver plans one task per base file (the kernel's read plan); executors read their files
with pyarrow and yield Arrow batches cast to Spark's exact schema.

Writes: Spark gives a Python data source no say over how rows are distributed, while a Hudi write
must see every incoming row of a file group together. So write tasks *stage* their rows (each task
one Parquet file under ``.hoodie/.temp/<staging id>/``, marker first), and ``commit`` runs the
kernel's write pipeline over the staged rows and completes one instant. ``abort`` removes the staged
files (found by listing, since Spark passes no messages for failed tasks). Staged files are never
data files, so a failed job leaves the table exactly as it was.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    Filter,
    InputPartition,
    WriterCommitMessage,
)
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
from pyspark.sql.types import StructType

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import TableNotFoundError
from hudi_framework.read.base_file import read_task
from hudi_framework.read.filters import Predicate
from hudi_framework.read.plan import ReadTask
from hudi_framework.read.reader import build_options, plan_read
from hudi_framework.read.schema import read_schema, spark_type
from hudi_framework.spark.filters import split_filters
from hudi_framework.spark.options import SourceOptions
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.table.table import HudiTable
from hudi_framework.write.client import WriteClient
from hudi_framework.write.operation import WriteOperation, is_replace

STAGING_ROOT = ".hoodie/.temp"


def _open_table(options: SourceOptions) -> HudiTable:
    settings = options.settings()
    return HudiTable.open(options.path, storage_options=options.storage_options(settings))


def _spark_schema(schema: pa.Schema) -> StructType:
    return from_arrow_schema(pa.schema([pa.field(f.name, spark_type(f.type), True) for f in schema]))


@dataclass(frozen=True)
class _ReadPartition(InputPartition):
    task: ReadTask


class HudiDataSourceReader(DataSourceReader):
    """Plans on the driver, reads base files in executors."""

    def __init__(self, options: SourceOptions, schema: StructType) -> None:
        self._options = options
        self._arrow_schema = to_arrow_schema(schema, timezone="UTC")
        self._filters: list[Predicate] = []

    def partitions(self) -> Sequence[InputPartition]:
        table = _open_table(self._options)
        plan = plan_read(table, build_options(options=self._options.hoodie, filters=self._filters or None))
        return [_ReadPartition(task) for task in plan.tasks]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, _ReadPartition):
            return  # an empty plan: Spark still runs one default partition
        table = _open_table(self._options)
        for batch in read_task(partition.task, table.storage):
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


@dataclass
class _Staged(WriterCommitMessage):
    key: str
    rows: int


class HudiDataSourceWriter(DataSourceArrowWriter):
    """Stages rows in tasks; commits one Hudi instant on the driver."""

    def __init__(self, options: SourceOptions, overwrite: bool) -> None:
        self._options = options
        self._overwrite = overwrite
        self._staging = f"{STAGING_ROOT}/staging-{uuid.uuid4().hex}"

    def _storage(self) -> StorageBackend:
        try:
            return _open_table(self._options).storage
        except TableNotFoundError:
            from hudi_framework.plugin.manager import build_plugin_manager
            from hudi_framework.plugin.registry import ComponentRegistry
            from hudi_framework.storage.resolve import open_storage

            settings = self._options.settings()
            registry = ComponentRegistry.from_manager(build_plugin_manager())
            return open_storage(
                registry,
                self._options.path,
                backend=settings.storage.backend,
                options=self._options.storage_options(settings),
            )

    def write(self, iterator: Iterator[pa.RecordBatch]) -> _Staged:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        part, attempt = (ctx.partitionId(), ctx.attemptNumber()) if ctx is not None else (0, 0)
        batches = list(iterator)
        key = f"{self._staging}/{part:05d}-{attempt}.parquet"
        storage = self._storage()
        if not batches:
            return _Staged(key="", rows=0)
        table = pa.Table.from_batches(batches)
        with storage.open_output(key) as sink:
            pq.write_table(table, sink)
        return _Staged(key=key, rows=table.num_rows)

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        storage = self._storage()
        try:
            keys = sorted(m.key for m in messages if isinstance(m, _Staged) and m.key)
            parts = []
            for key in keys:
                with storage.open_input(key) as f:
                    parts.append(pq.read_table(f))
            data = pa.concat_tables(parts, promote_options="default") if parts else None
            self._commit_rows(data)
        finally:
            self._cleanup(storage)

    def _commit_rows(self, data: pa.Table | None) -> None:
        settings = self._options.settings()
        storage_options = self._options.storage_options(settings)
        try:
            table = HudiTable.open(self._options.path, storage_options=storage_options)
        except TableNotFoundError:
            if data is None:
                return
            table = HudiTable.create(
                self._options.path,
                table_config_from_settings(settings),
                schema=data.schema,
                storage_options=storage_options,
            )
        if data is None:
            return
        operation = WriteOperation(settings.write.operation.value)
        if self._overwrite and not is_replace(operation):
            operation = WriteOperation.INSERT_OVERWRITE_TABLE
        WriteClient(table, settings).write(data, operation)

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        self._cleanup(self._storage())

    def _cleanup(self, storage: StorageBackend) -> None:
        for info in storage.list(self._staging, recursive=True):
            storage.delete(info.key)


class HudiDataSource(DataSource):
    """``spark.read.format("hudi")`` / ``df.write.format("hudi")``."""

    @classmethod
    def name(cls) -> str:
        return "hudi"

    def schema(self) -> StructType:
        options = SourceOptions.parse(self.options)
        table = _open_table(options)
        read_options = build_options(options=options.hoodie)
        return _spark_schema(read_schema(table, as_of=read_options.as_of))

    def reader(self, schema: StructType) -> DataSourceReader:
        options = SourceOptions.parse(self.options)
        if options.filter_pushdown:
            return HudiPushdownReader(options, schema)
        return HudiDataSourceReader(options, schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceArrowWriter:
        options = SourceOptions.parse(self.options)
        # Bad options fail here, on the driver, before any task stages a row.
        options.settings()
        return HudiDataSourceWriter(options, overwrite)
