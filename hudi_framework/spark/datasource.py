"""``format("hudi")``: the Spark Python data source (reads and writes).

Reads: the driver plans one task per base file, or per file slice to merge for merge-on-read
snapshots and incremental reads (the kernel's read plan), and packs them into splits sized as Spark
sizes file splits (:mod:`hudi_framework.read.splits`); executors read (and merge) their files with
pyarrow and yield Arrow batches cast to Spark's exact schema.

Writes: :mod:`hudi_framework.spark.datasource_write` (direct writes in executors for operations that
never read stored records, staged rows merged at commit for the others).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import ClassVar

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
from hudi_framework.read.plan import ReadTask, SkippingCounts
from hudi_framework.read.reader import build_options, plan_read, run_task
from hudi_framework.read.schema import read_schema, spark_type
from hudi_framework.read.splits import SplitSizing, pack_tasks
from hudi_framework.spark.filters import split_filters
from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.task_errors import reported_to_spark

_LOG = logging.getLogger(__name__)


def _spark_schema(schema: pa.Schema) -> StructType:
    return from_arrow_schema(pa.schema([pa.field(f.name, spark_type(f.type), True) for f in schema]))


@dataclass(frozen=True)
class _ReadPartition(InputPartition):
    tasks: tuple[ReadTask | MergedReadTask, ...]


class HudiDataSourceReader(DataSourceReader):
    """Plans on the driver, reads base files (and merges file slices) in executors."""

    def __init__(self, options: SourceOptions, schema: StructType, sizing: SplitSizing | None = None) -> None:
        self._options = options
        self._arrow_schema = to_arrow_schema(schema, timezone="UTC")
        self._filters: list[Predicate] = []
        self._sizing = sizing or SplitSizing()

    def partitions(self) -> Sequence[InputPartition]:
        with reported_to_spark():
            table = self._options.open_table()
            plan = plan_read(table, build_options(options=self._options.hoodie, filters=self._filters or None))
            if self._filters:
                _log_skipping(plan.skipping, len(plan.tasks))
            # One Spark task per file would pay a task's fixed cost (~50-80 ms) for every small file.
            return [_ReadPartition(tuple(split)) for split in pack_tasks(plan.tasks, self._sizing)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, _ReadPartition):
            return  # an empty plan: Spark still runs one default partition
        with reported_to_spark():
            table = self._options.open_table()
            for task in partition.tasks:
                # A Spark task holds one core: decoding on Arrow's whole CPU pool would compete with the
                # other tasks and with the JVM thread taking in the batches.
                for batch in run_task(task, table.storage, use_threads=False):
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


def _log_skipping(counts: SkippingCounts, tasks: int) -> None:
    """What the pushed filters left out, in the driver's log (INFO; Python worker stderr)."""
    _LOG.info(
        "hudi read plan: %d of %d partitions pruned, %d of %d file slices skipped by column statistics (%s), "
        "%d read tasks",
        counts.partitions_pruned, counts.partitions_considered, counts.files_skipped, counts.files_considered,
        counts.stats_source or "none", tasks,
    )  # fmt: skip


def _to_spark_batch(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    # Spark checks the batch schema exactly: same names, order and types, no large/dictionary types.
    columns = []
    for f in schema:
        column = batch.column(batch.schema.get_field_index(f.name))
        columns.append(column if column.type == f.type else column.cast(f.type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


class HudiDataSource(DataSource):
    """``spark.read.format("hudi")`` / ``df.write.format("hudi")``.

    Read splits are sized from :attr:`split_sizing`; Spark's planner processes cannot see the
    session, so :meth:`for_session` bakes the session's file-split settings into a subclass that
    travels (pickled by value) with the registration.
    """

    #: How reads pack tasks into Spark partitions (None: Spark's defaults, this machine's CPU count).
    split_sizing: ClassVar[SplitSizing | None] = None

    @classmethod
    def name(cls) -> str:
        return "hudi"

    @classmethod
    def for_session(cls, sizing: SplitSizing) -> type[HudiDataSource]:
        """This data source, splitting reads by ``sizing`` (to register on the session it came from)."""
        # Defined here, not importable by name: cloudpickle then ships the class with its sizing.
        return type(cls.__name__, (cls,), {"split_sizing": sizing, "__qualname__": f"{cls.__qualname__}.for_session"})

    def schema(self) -> StructType:
        with reported_to_spark():
            options = SourceOptions.parse(self.options, read=True)
            table = options.open_table()
            read_options = build_options(options=options.hoodie)
            return _spark_schema(read_schema(table, as_of=read_options.as_of))

    def reader(self, schema: StructType) -> DataSourceReader:
        with reported_to_spark():
            options = SourceOptions.parse(self.options, read=True)
        reader = HudiPushdownReader if options.filter_pushdown else HudiDataSourceReader
        return reader(options, schema, self.split_sizing)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceArrowWriter:
        # Imported here: the planner processes Spark starts for a read need no write path.
        from hudi_framework.spark.datasource_write import build_writer

        # Bad options fail here, on the driver side, before any task runs.
        with reported_to_spark(write=True):
            return build_writer(SourceOptions.parse(self.options), schema, overwrite)
