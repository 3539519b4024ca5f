"""Snapshot, time-travel and read-optimized plans.

A snapshot reads the latest file slice of every live file group (tech spec "Reader Expectations");
time travel (``as.of.instant``) does the same as of an instant, comparing *requested* times as Apache
Hudi's ``getLatestMergedFileSlicesBeforeOrOn`` does, with the schema resolved as of that instant.

Copy-on-write tables: a slice is its base file. Merge-on-read tables: a read-optimized query reads the
base files only (file groups with only log files have nothing to read); a snapshot (or time travel)
merges each slice's log files into its base file (:mod:`hudi_framework.read.merged`), counting only
blocks of instants completed at or before ``as_of``.

The slices come from a view that knows the files the timeline names: a file of a slice read (in the
partitions the filters keep) that storage lacks raises instead of serving an older slice, and time
travel refuses instants whose history cleaning deleted (:mod:`hudi_framework.runtime.retained`).
A time travel to an instant older than the active timeline reads the archive
(:mod:`hudi_framework.read.archived`): the archived commits' files, replacements and cleans join the
active timeline's, so the slices are the ones the archived history describes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hudi_framework.errors import TimeTravelError
from hudi_framework.layout.fs_view import check_base_file_formats
from hudi_framework.read.archived import archive_reached
from hudi_framework.read.filters import check_columns, normalize_filters
from hudi_framework.read.options import ReadOptions, resolve_instant_time
from hudi_framework.read.plan import ReadPlan
from hudi_framework.read.schema import project, read_schema
from hudi_framework.read.skipping_plan import PartitionPruning, skip_slices, stats_source_for
from hudi_framework.read.tasks import FileRef, build_tasks, prune
from hudi_framework.runtime.retained import check_retained, check_slice_files
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.vocabulary import QueryType, TimelineTimezone

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import pyarrow as pa

    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.read.filters import Disjunction
    from hudi_framework.read.skipping import ColumnStatsSource
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.timeline.archived_timeline import ArchivedTimeline
    from hudi_framework.timeline.timeline import Timeline

#: Base file formats the reader can open.
READABLE_FORMATS = ("parquet",)
_PENDING_WRITE_ACTIONS = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, Action.CLUSTERING})


def first_incomplete_commit(timeline: Timeline) -> Instant | None:
    """The earliest pending write that time travel may not pass (Java ``TimelineUtils.validateTimestampAsOf``).

    Pending commits, delta commits and replacecommits count; clustering does not (it changes no data)
    and neither does compaction (Java's commits timeline leaves ``compaction`` out).
    """
    pending = timeline.pending(_PENDING_WRITE_ACTIONS)
    clustering: set[Instant] = set()
    if any(i.action is Action.REPLACE_COMMIT for i in pending):
        # Layout 1 names pending clustering "replacecommit"; its requested file holds the plan.
        clustering = set(timeline.pending_clustering_plans())
    for inst in pending:
        if inst.action is not Action.CLUSTERING and inst not in clustering:
            return inst
    return None


def check_time_travel(timeline: Timeline, as_of: str) -> None:
    """Raise unless ``as_of`` is earlier than the first incomplete commit.

    Raises:
        TimeTravelError: A write requested at or before ``as_of`` has not completed, so the snapshot
            as of ``as_of`` is not stable yet.
    """
    incomplete = first_incomplete_commit(timeline)
    if incomplete is not None and not as_of < incomplete.requested_time:
        raise TimeTravelError(as_of, incomplete.requested_time)


def read_slices(
    table: HudiTable,
    *,
    as_of: str | None,
    full_schema: pa.Schema,
    filters: Disjunction,
    use_metadata: bool = False,
    by_stats: Callable[[Sequence[FileSlice], set[str]], set[str]] | None = None,
    archived: ArchivedTimeline | None = None,
) -> tuple[list[FileSlice], set[str]]:
    """The latest slice of every live file group as of ``as_of``, and the partitions ``filters``
    keep by their paths (whose slices' files are checked, but for those ``by_stats`` returns: the
    partitions statistics prune, given the slices and the partitions kept). ``archived``: the
    archive, when ``as_of`` reaches into it.

    Raises:
        UnsupportedFormatError: Base files in a format other than parquet (Lance).
        MissingDataFileError: A file of a slice read is named by the timeline but not in storage.
        CleanedInstantError: ``as_of`` reads a file a clean deleted.
    """
    view = table.file_system_view(check_files=True, use_metadata=use_metadata, archived=archived)
    slices = view.latest_file_slices(as_of=as_of)
    check_base_file_formats(slices, READABLE_FORMATS)
    read = set(prune(table.config, [s.partition_path for s in slices], full_schema=full_schema, filters=filters)[0])
    checked = read - by_stats(slices, read) if by_stats is not None else read
    checked_slices = [s for s in slices if s.partition_path in checked]
    check_slice_files(table, view, checked_slices, as_of, partitions=checked, archived=archived)
    return slices, read


def plan_snapshot(table: HudiTable, options: ReadOptions, *, stats_source: ColumnStatsSource | None = None) -> ReadPlan:
    """Plan a snapshot, time-travel or read-optimized read.

    Args:
        table: The table.
        options: ``query_type`` snapshot or read_optimized; ``as_of``, ``columns`` and ``filters``;
            ``data_skipping`` and ``data_skipping_source``.
        stats_source: Column statistics to skip files with, instead of the one the options name
            (used when ``data_skipping`` is on and there are filters).

    Raises:
        UnsupportedFormatError: Base files in a format other than parquet (Lance).
        UnsupportedQueryError: A merge-on-read snapshot of a table without meta fields and a composite key.
        TimeTravelError: ``as_of`` is not earlier than the first incomplete commit.
        CleanedInstantError: ``as_of`` is older than the history cleaning kept (see
            :mod:`hudi_framework.runtime.retained`).
        MissingDataFileError: A file of a slice read is named by the timeline but not in storage.
        InvalidInstantTimeError: ``as_of`` is not an instant time or date-time.
        InvalidFilterError: A malformed filter or unknown filter column.
        UnknownColumnError: A projected column is not in the schema.
    """
    config = table.config
    table.check_base_file_format()
    as_of = resolve_instant_time(options.as_of, TimelineTimezone(config.timeline_timezone))
    if as_of is not None:
        check_time_travel(table.timeline, as_of)
        check_retained(table, as_of)
    full_schema = read_schema(table, as_of=as_of)
    filters = normalize_filters(options.filters)
    check_columns(filters, full_schema)
    schema = project(full_schema, options.columns)
    merged = config.is_mor and options.query_type is QueryType.SNAPSHOT
    if not options.data_skipping:
        stats_source = None
    elif stats_source is None:
        stats_source = stats_source_for(table, options, full_schema)
    # Partition statistics describe the latest slices: time travel reads older ones.
    pruning = PartitionPruning(filters, full_schema, stats_source, merged) if as_of is None else None
    slices, kept = read_slices(
        table, as_of=as_of, full_schema=full_schema, filters=filters, use_metadata=options.metadata_enable,
        by_stats=pruning, archived=archive_reached(table, as_of) if as_of is not None else None,
    )  # fmt: skip
    slices, skipping = skip_slices(
        slices, kept, filters=filters, full_schema=full_schema, source=stats_source, merged=merged,
        pruned_by_stats=pruning.pruned if pruning is not None else None,
    )  # fmt: skip
    if merged:
        # Imported here: a copy-on-write snapshot's planner (Spark's schema process) builds no merger.
        from hudi_framework.read.merged_plan import instant_validity, plan_slice_tasks

        tasks = plan_slice_tasks(
            table, slices, schema=schema, full_schema=full_schema, filters=filters,
            validity=instant_validity(table, as_of=as_of), max_memory_bytes=options.merge_max_memory_bytes,
            use_record_positions=options.use_record_positions,
        )  # fmt: skip
        return ReadPlan(options.query_type, schema, tasks, as_of=as_of, skipping=skipping)
    files = [
        FileRef(s.partition_path, s.file_id, s.base_file_key, s.base_file.instant_time, s.base_file.size)
        for s in slices
        if s.base_file is not None and s.base_file_key is not None
    ]
    tasks = build_tasks(config, files, schema=schema, full_schema=full_schema, filters=filters)
    return ReadPlan(options.query_type, schema, tasks, as_of=as_of, skipping=skipping)
