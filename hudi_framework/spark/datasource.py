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
from typing import TYPE_CHECKING, ClassVar

from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceReader,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
    Filter,
    InputPartition,
)
from pyspark.sql.types import StructType

from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.task_errors import reported_to_spark

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.read.filters import Predicate
    from hudi_framework.read.merged_task import MergedReadTask
    from hudi_framework.read.plan import ReadPlan, ReadTask, SkippingCounts
    from hudi_framework.read.splits import SplitSizing

# Spark runs schema() and reader()/partitions() each in a fresh Python process on a session's first
# read, and imports this module there: the read path is imported inside the methods that use it, so
# each planner process imports only its own part (tests/acceptance/test_spark_planner_imports.py pins the set).

_LOG = logging.getLogger(__name__)


def _spark_schema(schema: pa.Schema) -> StructType:
    import pyarrow as pa
    from pyspark.sql.pandas.types import from_arrow_schema

    from hudi_framework.read.schema import spark_type

    return from_arrow_schema(pa.schema([pa.field(f.name, spark_type(f.type), True) for f in schema]))


@dataclass(frozen=True)
class ReadPartition(InputPartition):
    tasks: tuple[ReadTask | MergedReadTask, ...]


class HudiDataSourceReader(DataSourceReader):
    """Plans on the driver, reads base files (and merges file slices) in executors."""

    def __init__(
        self,
        options: SourceOptions,
        schema: StructType,
        sizing: SplitSizing | None = None,
        planned: list[ReadPartition] | None = None,
    ) -> None:
        """A reader of ``schema``; ``planned``: the splits when the schema's process planned them."""
        from pyspark.sql.pandas.types import to_arrow_schema

        self._options = options
        self._arrow_schema = to_arrow_schema(schema, timezone="UTC")
        self._filters: list[Predicate] = []
        self._sizing = sizing
        self._planned = planned

    def __getstate__(self) -> dict[str, object]:
        # Spark pickles the reader into every read task: the whole plan stays in the planner.
        return {k: v for k, v in vars(self).items() if k != "_planned"}

    def __setstate__(self, state: dict[str, object]) -> None:
        vars(self).update(state, _planned=None)

    def partitions(self) -> Sequence[InputPartition]:
        if self._planned is not None:
            return self._planned
        from hudi_framework.read.reader import build_options, plan_read

        with reported_to_spark():
            table = self._options.open_table()
            plan = plan_read(table, build_options(options=self._options.hoodie, filters=self._filters or None))
            if self._filters:
                _log_skipping(plan.skipping, len(plan.tasks))
            return read_splits(plan, self._sizing)

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        if not isinstance(partition, ReadPartition):
            return  # an empty plan: Spark still runs one default partition
        from hudi_framework.read.reader import run_task

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
        from hudi_framework.spark.filters import split_filters

        accepted, rejected = split_filters(filters, set(self._arrow_schema.names))
        self._filters.extend(accepted)
        yield from rejected


def read_splits(plan: ReadPlan, sizing: SplitSizing | None) -> list[ReadPartition]:
    """The plan's tasks packed into splits (one Spark task per file would pay a task's fixed cost,
    ~50-80 ms, for every small file)."""
    from hudi_framework.read.splits import SplitSizing, pack_tasks

    return [ReadPartition(tuple(split)) for split in pack_tasks(plan.tasks, sizing or SplitSizing())]


def _log_skipping(counts: SkippingCounts, tasks: int) -> None:
    """What the pushed filters left out, in the driver's log (INFO; Python worker stderr)."""
    _LOG.info(
        "hudi read plan: %d of %d partitions pruned (%d by partition statistics), %d of %d file slices skipped "
        "by column statistics (%s), %d read tasks",
        counts.partitions_pruned + counts.partitions_pruned_by_stats, counts.partitions_considered,
        counts.partitions_pruned_by_stats, counts.files_skipped, counts.files_considered,
        counts.stats_source or "none", tasks,
    )  # fmt: skip


def _to_spark_batch(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    import pyarrow as pa

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

    #: Set by :meth:`schema`: the parsed options and, for a read without filter pushdown, its splits.
    #: Spark runs :meth:`schema` and :meth:`reader` in two fresh processes on a session's first read
    #: and hands the second this instance pickled by the first; planning where the schema was read
    #: spares the second process opening the table (and importing the read path) again, and reads
    #: the files of the instant whose schema Spark was given.
    _parsed: SourceOptions | None = None
    _planned: list[ReadPartition] | None = None

    def schema(self) -> StructType:
        from hudi_framework.read.reader import build_options, plan_read
        from hudi_framework.read.schema import read_schema

        with reported_to_spark():
            options = SourceOptions.parse(self.options, read=True)
            table = options.open_table()
            read_options = build_options(options=options.hoodie)
            schema = _spark_schema(read_schema(table, as_of=read_options.as_of))
            self._parsed = options
            # Filters reach only the reader (pushFilters): a pushdown read plans there, with them.
            if not options.filter_pushdown:
                self._planned = read_splits(plan_read(table, read_options), self.split_sizing)
            return schema

    def reader(self, schema: StructType) -> DataSourceReader:
        options, planned = self._parsed, self._planned
        if options is None:  # the schema was given (spark.read.schema(...)): schema() did not run
            with reported_to_spark():
                options = SourceOptions.parse(self.options, read=True)
        with reported_to_spark():
            options.refuse_streaming()
        reader = HudiPushdownReader if options.filter_pushdown else HudiDataSourceReader
        return reader(options, schema, self.split_sizing, planned)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceArrowWriter:
        # Imported here: the planner processes Spark starts for a read need no write path.
        from hudi_framework.spark.datasource_write import build_writer

        # Bad options fail here, on the driver side, before any task runs.
        with reported_to_spark(write=True):
            options = SourceOptions.parse(self.options)
            options.refuse_streaming()
            return build_writer(options, schema, overwrite)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamArrowWriter:  # noqa: N802
        """``df.writeStream.format("hudi")``: one commit per micro-batch (:mod:`.stream_write`)."""
        from hudi_framework.spark.stream_write import HudiStreamWriter

        with reported_to_spark(write=True):
            return HudiStreamWriter.build(SourceOptions.parse(self.options), schema, overwrite)

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:  # noqa: N802
        """``spark.readStream.format("hudi")``: new records by completion time (:mod:`.stream_read`)."""
        from hudi_framework.spark.stream_read import HudiStreamReader

        with reported_to_spark():
            return HudiStreamReader.build(self._parsed or SourceOptions.parse(self.options, read=True), schema,
                                          self.split_sizing)  # fmt: skip
