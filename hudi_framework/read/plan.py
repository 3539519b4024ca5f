"""Read plans: what to read, as small picklable tasks an engine can ship to its workers.

Planning (listing, timeline, schema resolution) happens once on the driver and produces a
:class:`ReadPlan`. Each :class:`ReadTask` covers one base file (merge-on-read slices with log files
are :class:`~hudi_framework.read.merged_task.MergedReadTask`\\ s) and holds plain data only (no storage
client, table or manager), so Spark can pickle it into an ``InputPartition``; a worker runs it with
:func:`hudi_framework.read.base_file.read_task` and a storage backend it builds for itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from hudi_framework.vocabulary import QueryType

if TYPE_CHECKING:
    from hudi_framework.read.filters import Disjunction
    from hudi_framework.read.merged_task import MergedReadTask

#: Column holding the requested time of the write that last wrote a record.
COMMIT_TIME_COLUMN = "_hoodie_commit_time"


@dataclass(frozen=True, slots=True)
class CommitTimeRange:
    """A range of ``_hoodie_commit_time`` values; by default ``(start, end]`` like Hudi's windows.

    Attributes:
        start: Lower bound, None for none.
        end: Upper bound, None for none.
        start_inclusive: Whether ``start`` itself is in the range.
        end_inclusive: Whether ``end`` itself is in the range.
    """

    start: str | None = None
    end: str | None = None
    start_inclusive: bool = False
    end_inclusive: bool = True

    def mask(self, values: pa.Array | pa.ChunkedArray) -> pa.Array:
        """Boolean mask of the values in range (null values are not)."""
        # Imported where rows are filtered: Spark's partition planner unpickles plans without it.
        import pyarrow.compute as pc

        result = pc.is_valid(values)
        if self.start is not None:
            lower = pc.greater_equal if self.start_inclusive else pc.greater
            result = pc.and_kleene(result, lower(values, pa.scalar(self.start, pa.string())))
        if self.end is not None:
            upper = pc.less_equal if self.end_inclusive else pc.less
            result = pc.and_kleene(result, upper(values, pa.scalar(self.end, pa.string())))
        return pc.fill_null(result, False)


@dataclass(frozen=True, slots=True)
class CommitTimeFilter:
    """Which ``_hoodie_commit_time`` values an incremental read keeps: any listed instant, or any
    value in one of the ranges.

    Attributes:
        instants: Exact commit times (Apache Hudi 1.x: the requested times of the instants completed
            in the window).
        ranges: Ranges of commit times (Apache Hudi 0.x style windows, and full-scan fallbacks).
    """

    instants: frozenset[str] = frozenset()
    ranges: tuple[CommitTimeRange, ...] = ()

    def mask(self, values: pa.Array | pa.ChunkedArray) -> pa.Array:
        """Boolean mask of the rows to keep."""
        import pyarrow.compute as pc

        result = pc.is_in(values, value_set=pa.array(sorted(self.instants), pa.string()))
        for window in self.ranges:
            result = pc.or_(result, window.mask(values))
        return pc.fill_null(result, False)


@dataclass(frozen=True, slots=True)
class ReadTask:
    """Read one base file: project, restore partition columns, filter rows and conform to a schema.

    Attributes:
        file_key: Storage key of the base file, relative to the table base path.
        partition_path: Relative partition path of the file group (``""`` if non-partitioned).
        partition_values: ``(field, value)`` decoded from the partition path (value None for the
            default partition). Used for partition columns missing from the file.
        schema: The exact schema of every batch the task yields.
        file_id: The file group's id (for diagnostics and engine-side grouping).
        instant_time: The instant that wrote the file.
        file_size: Size in bytes if known (engines use it to balance splits).
        commit_time_filter: Incremental reads: which ``_hoodie_commit_time`` values to keep.
        row_filter: Normalised filters (:mod:`hudi_framework.read.filters`) applied to the rows.
        filter_schema: Read-schema types of the columns ``row_filter`` uses (they may be projected
            away, or missing from older files).
    """

    file_key: str
    partition_path: str
    partition_values: tuple[tuple[str, str | None], ...]
    schema: pa.Schema
    file_id: str = ""
    instant_time: str = ""
    file_size: int | None = None
    commit_time_filter: CommitTimeFilter | None = None
    row_filter: Disjunction = ()
    filter_schema: pa.Schema | None = None


@dataclass(frozen=True, slots=True)
class SkippingCounts:
    """What planning left out before any data file was opened.

    Attributes:
        partitions_considered: Partitions holding file slices to read.
        partitions_pruned: Of those, partitions the filters exclude by their path values.
        partitions_pruned_by_stats: Of the others, partitions whose statistics (the metadata table's
            ``partition_stats``) exclude every row the filters match.
        files_considered: File slices in the partitions kept.
        files_skipped: Of those, slices whose column statistics exclude every row the filters match.
        stats_source: Where the statistics came from (None: no partition was pruned by statistics
            and no file skipping was attempted).
    """

    partitions_considered: int = 0
    partitions_pruned: int = 0
    partitions_pruned_by_stats: int = 0
    files_considered: int = 0
    files_skipped: int = 0
    stats_source: str | None = None


@dataclass(frozen=True, slots=True)
class ReadPlan:
    """Everything a read does, decided up front.

    Attributes:
        query_type: The query type served.
        schema: The schema of the result (the projection applied).
        tasks: One task per base file (:class:`ReadTask`) or, for merge-on-read snapshots and
            incremental reads, per file slice (:class:`~hudi_framework.read.merged_task.MergedReadTask`),
            sorted by partition path and file id.
        as_of: The resolved time-travel instant, if any.
        begin: Incremental: the resolved exclusive lower bound (None: from the start).
        end: Incremental: the resolved inclusive upper bound (None: to the latest commit).
        instants: Incremental: requested times of the instants in the window, in timeline order.
        full_table_scan: Incremental: whether the plan fell back to scanning the latest snapshot.
        skipping: Snapshot, time travel and read-optimized: partitions and files left out.
    """

    query_type: QueryType
    schema: pa.Schema
    tasks: tuple[ReadTask | MergedReadTask, ...] = ()
    as_of: str | None = None
    begin: str | None = None
    end: str | None = None
    instants: tuple[str, ...] = ()
    full_table_scan: bool = False
    skipping: SkippingCounts = SkippingCounts()

    def empty_table(self) -> pa.Table:
        """An empty table with the plan's schema."""
        return self.schema.empty_table()
