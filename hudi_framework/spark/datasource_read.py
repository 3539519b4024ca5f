"""The read side of ``format("hudi")``: read splits planned on the driver, read in tasks.

The driver plans one task per base file, or per file slice to merge for merge-on-read snapshots and
incremental reads (the kernel's read plan), and packs them into splits sized as Spark sizes file
splits (:mod:`hudi_framework.read.splits`); executors read (and merge) their files with pyarrow and
yield Arrow batches cast to Spark's exact schema. Batch reads (:mod:`hudi_framework.spark.datasource`)
and streaming reads (:mod:`hudi_framework.spark.stream_read`) share them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark.sql.datasource import DataSourceReader, Filter, InputPartition
from pyspark.sql.types import StructType

from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.task_errors import reported_to_spark

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.read.filters import Predicate
    from hudi_framework.read.merged_task import MergedReadTask
    from hudi_framework.read.plan import ReadPlan, ReadTask, SkippingCounts
    from hudi_framework.read.splits import SplitSizing

# Imported by Spark's planner processes (see datasource.py): the read path is imported inside the
# methods that use it.

__all__ = ["HudiDataSourceReader", "HudiPushdownReader", "ReadPartition", "read_splits"]

_LOG = logging.getLogger(__name__)


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
