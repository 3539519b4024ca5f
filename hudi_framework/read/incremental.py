"""Incremental plans: the records changed in a window ``(begin, end]``, in their latest state as of ``end``.

Apache Hudi's rules, per table version (``MergeOnReadIncrementalRelationV1``/``V2`` and the
``IncrementalQueryAnalyzer`` behind Spark's incremental queries):

* **Window.** v8+: the completed write instants whose *completion* time is in ``(begin, end]``
  (Hudi 1.1 made ``begin`` exclusive again). v6: those whose *requested* time is in ``(begin, end]``.
  No ``begin`` (or ``earliest``) reads from the start; no ``end`` to the latest commit.
* **Files.** For every file group written by an instant of the window, the newest base file written
  in the window, listed from the instants' commit metadata. File groups replaced (insert overwrite,
  clustering) are left out: v8+ by any replacecommit requested at or before the window's last instant,
  v6 by a replacecommit of the window.
* **Rows.** v8+: ``_hoodie_commit_time`` is the requested time of an instant of the window. v6: it is
  between the window's first and last instants (inclusive).
* **Cleaned files and archived instants.** If a file of the window is gone (cleaned), or the window
  reaches into the archived timeline, Hudi can fall back to a full table scan: the *latest* snapshot
  filtered by commit time (``hoodie.datasource.read.incr.fallback.fulltablescan.enable``, default true
  for v8+, false for v6, which then raises
  :class:`~hudi_framework.errors.IncrementalPathNotFoundError`, naming the clean that deleted the
  file). A window reaching into the archive (its ``begin`` is before the active timeline) reads the
  archived instants (:mod:`hudi_framework.read.archived`): with fallback on it scans fully, keeping
  the records of the window's instants (v8+; v6: the commit-time range), as Java does; with fallback
  off the archived commits' metadata names the files written.
* v6 refuses a window when a write older than a completed one is still pending ("hollow commit",
  Java's default ``hoodie.read.timeline.holes.resolution.policy=FAIL``), since requested-time windows
  would skip its records once it completes.

Tables without meta fields have no ``_hoodie_commit_time`` and cannot be read incrementally.

**Merge-on-read** (Java ``MergeOnReadIncrementalRelationV1/V2``): every file group with a base or log
file written in the window is read as its latest merged slice as of the window's last instant, with
only the log blocks of the window's instants (Java's ``InstantRange`` on the log scanner); the merged
rows are then filtered by commit time as above, so each changed record comes in its latest state.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from hudi_framework.errors import IncrementalPathNotFoundError, IncrementalQueryError
from hudi_framework.layout.fs_view import COMPLETION_TIME_SLICING_VERSION, check_base_file_formats
from hudi_framework.layout.naming import BaseFileName, parse_data_file_name
from hudi_framework.read.archived import CommitHistory
from hudi_framework.read.filters import check_columns, normalize_filters
from hudi_framework.read.merged_plan import instant_validity, plan_slice_tasks
from hudi_framework.read.merged_task import InstantValidity
from hudi_framework.read.options import ReadOptions, resolve_instant_time
from hudi_framework.read.plan import CommitTimeFilter, CommitTimeRange, ReadPlan
from hudi_framework.read.schema import project, read_schema
from hudi_framework.read.snapshot import READABLE_FORMATS, first_incomplete_commit, read_slices
from hudi_framework.read.tasks import FileRef, build_tasks
from hudi_framework.runtime.retained import cleaned_files, earliest_retained
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.metadata import ReplaceCommitMetadata
from hudi_framework.vocabulary import QueryType, TimelineTimezone

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.read.filters import Disjunction
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.timeline.timeline import Timeline


def _window_time(instant: Instant, by_completion: bool) -> str:
    return (instant.completion_time or instant.requested_time) if by_completion else instant.requested_time


def instants_in_window(
    commits: Iterable[Instant], begin: str | None, end: str | None, *, by_completion: bool
) -> list[Instant]:
    """The completed write instants in ``(begin, end]``, in timeline (requested-time) order."""
    return [
        i
        for i in commits
        if (begin is None or _window_time(i, by_completion) > begin)
        and (end is None or _window_time(i, by_completion) <= end)
    ]


def _reaches_archive(commits: Sequence[Instant], begin: str | None, by_completion: bool) -> bool:
    """Whether the window may hold archived instants (Java's ``startInstantArchived``)."""
    if not commits:
        return False
    if not by_completion:
        # v6 (Java ``isBeforeTimelineStarts``): a begin before the first active commit.
        return begin is None or begin < commits[0].requested_time
    first = min(_window_time(c, by_completion=True) for c in commits)
    return begin is None or begin < first


def _check_hollow(timeline: Timeline, commits: Sequence[Instant]) -> None:
    incomplete = first_incomplete_commit(timeline)
    if incomplete is not None and commits and commits[-1].requested_time > incomplete.requested_time:
        raise IncrementalQueryError(
            f"found hollow commit {incomplete.requested_time}: a write older than completed ones is still "
            "pending, so a requested-time window could miss its records"
        )


def _written_files(
    timeline: CommitHistory, window: Sequence[Instant]
) -> tuple[dict[tuple[str, str], FileRef], list[str]]:
    """The newest base file per file group written in the window, and every file written in it."""
    latest: dict[tuple[str, str], FileRef] = {}
    affected: list[str] = []
    for inst in window:
        metadata = timeline.read_commit_metadata(inst)
        for partition, stats in (metadata.partition_to_write_stats or {}).items():
            for stat in stats:
                # Log files (merge-on-read) are not base files; the name tells, whatever the stat's fields.
                parsed = parse_data_file_name(stat.path.rsplit("/", 1)[-1]) if stat.path else None
                if stat.path is None or not isinstance(parsed, BaseFileName):
                    continue
                part = stat.partition_path if stat.partition_path is not None else partition
                file_id = stat.file_id or parsed.file_id
                affected.append(stat.path)
                # Instants come in requested-time order, so the last write of a group wins (as in Java).
                latest[(part, file_id)] = FileRef(
                    part, file_id, stat.path, inst.requested_time, stat.file_size_in_bytes
                )
    return latest, affected


def _replaced(timeline: CommitHistory, window: Sequence[Instant], by_completion: bool) -> set[tuple[str, str]]:
    if by_completion:
        last = max(i.requested_time for i in window)
        return set(timeline.replaced_file_groups(as_of=last))
    replaced: set[tuple[str, str]] = set()
    for inst in window:
        if inst.action is Action.REPLACE_COMMIT:
            metadata = timeline.read_commit_metadata(inst)
            if isinstance(metadata, ReplaceCommitMetadata):
                replaced.update(metadata.replaced_file_ids())
    return replaced


def _missing(storage: StorageBackend, keys: Iterable[str]) -> list[str]:
    """Keys that are not in storage; one listing per directory instead of a request per file."""
    by_dir: dict[str, list[str]] = defaultdict(list)
    for key in keys:
        by_dir[key.rsplit("/", 1)[0] if "/" in key else ""].append(key)
    missing: list[str] = []
    for directory, wanted in sorted(by_dir.items()):
        present = {info.key for info in storage.list(directory)}
        missing.extend(k for k in wanted if k not in present)
    return missing


def _path_not_found(history: CommitHistory, key: str) -> IncrementalPathNotFoundError:
    """The error for a missing file of the window, naming the clean that deleted it."""
    timeline = history.timeline
    return IncrementalPathNotFoundError(
        key, cleaned_by=cleaned_files(timeline, history.archived).get(key), retained=earliest_retained(timeline)
    )


def _fallback_filter(
    commits: Sequence[Instant],
    window: Sequence[Instant],
    begin: str | None,
    end: str | None,
    *,
    by_completion: bool,
    archived: bool,
) -> CommitTimeFilter:
    """The commit-time filter of a full table scan."""
    if not by_completion:
        # V1 relation: begin < commit time <= end, with the latest commit as the default end.
        last = end if end is not None else (commits[-1].requested_time if commits else None)
        return CommitTimeFilter(ranges=(CommitTimeRange(begin, last),))
    requested = frozenset(i.requested_time for i in window)
    if not archived:
        return CommitTimeFilter(instants=requested)
    # The archive could not be read (its format is not available): keep records older than the
    # active timeline by requested time.
    first = commits[0].requested_time
    older = (
        CommitTimeRange(begin, end) if end is not None and end < first else CommitTimeRange(begin, first, False, False)
    )
    return CommitTimeFilter(instants=requested, ranges=(older,))


def _full_scan(
    table: HudiTable,
    plan: ReadPlan,
    full_schema: pa.Schema,
    filters: Disjunction,
    commit_filter: CommitTimeFilter,
    options: ReadOptions,
) -> ReadPlan:
    """Java's fallback: the *latest* snapshot, filtered by commit time."""
    slices, _ = read_slices(table, as_of=None, full_schema=full_schema, filters=filters)
    if table.config.is_mor:
        tasks = plan_slice_tasks(
            table, slices, schema=plan.schema, full_schema=full_schema, filters=filters,
            validity=instant_validity(table), commit_time_filter=commit_filter,
            max_memory_bytes=options.merge_max_memory_bytes, use_record_positions=options.use_record_positions,
        )  # fmt: skip
        return replace(plan, tasks=tasks, full_table_scan=True)
    files = [
        FileRef(s.partition_path, s.file_id, s.base_file_key, s.base_file.instant_time, s.base_file.size)
        for s in slices
        if s.base_file is not None and s.base_file_key is not None
    ]
    tasks = build_tasks(
        table.config, files, schema=plan.schema, full_schema=full_schema, filters=filters,
        commit_time_filter=commit_filter,
    )  # fmt: skip
    return replace(plan, tasks=tasks, full_table_scan=True)


def _window_filter(window: Sequence[Instant], by_completion: bool) -> CommitTimeFilter:
    requested = [i.requested_time for i in window]
    if by_completion:
        return CommitTimeFilter(instants=frozenset(requested))
    return CommitTimeFilter(ranges=(CommitTimeRange(requested[0], requested[-1], start_inclusive=True),))


def plan_incremental(table: HudiTable, options: ReadOptions) -> ReadPlan:
    """Plan an incremental read of ``(options.begin, options.end]``.

    Raises:
        IncrementalQueryError: The table has no meta fields, or (v6) a hollow commit.
        UnsupportedQueryError: A merge-on-read table without meta fields and with a composite key.
        IncrementalPathNotFoundError: A file of the window is gone and fallback is off.
        MissingDataFileError: The full-scan fallback reads a slice whose file storage lacks.
        UnsupportedFormatError: Base files in a format other than parquet (Lance).
        InvalidInstantTimeError: ``begin`` or ``end`` is not an instant time or date-time.
        InvalidFilterError: A malformed filter or unknown filter column.
        UnknownColumnError: A projected column is not in the schema.
    """
    config = table.config
    if not config.populate_meta_fields:
        raise IncrementalQueryError(
            f"table {config.name!r} does not populate meta fields (hoodie.populate.meta.fields=false): "
            "without _hoodie_commit_time per record there is nothing to select changes by"
        )
    table.check_base_file_format()
    timezone = TimelineTimezone(config.timeline_timezone)
    begin = resolve_instant_time(options.begin, timezone)
    end = resolve_instant_time(options.end, timezone)
    by_completion = config.version >= COMPLETION_TIME_SLICING_VERSION
    # Java's default (hoodie.datasource.read.schema.use.end.instanttime=false): the latest table schema.
    full_schema = read_schema(table)
    filters = normalize_filters(options.filters)
    check_columns(filters, full_schema)
    schema = project(full_schema, options.columns)
    timeline = table.timeline
    active = timeline.commits_timeline()
    if not by_completion:
        # Java checks the whole completed timeline, before selecting the window.
        _check_hollow(timeline, active)
    reached = _reaches_archive(active, begin, by_completion)
    history = CommitHistory.of(table, reached)
    if by_completion and history.archived is None and not history.archive_unreadable:
        # v8+ (Java's IncrementalQueryAnalyzer): the start is archived only if something is.
        reached = False
    commits = history.commits_timeline()
    window = instants_in_window(commits, begin, end, by_completion=by_completion)
    fallback = (
        by_completion if options.incremental_fallback_full_scan is None else options.incremental_fallback_full_scan
    )
    plan = ReadPlan(
        QueryType.INCREMENTAL, schema, begin=begin, end=end, instants=tuple(i.requested_time for i in window)
    )
    if fallback and reached:
        unread = history.archive_unreadable
        scan_filter = _fallback_filter(commits, window, begin, end, by_completion=by_completion, archived=unread)
        return _full_scan(table, plan, full_schema, filters, scan_filter, options)
    if not window:
        return plan
    if config.is_mor:
        return _plan_mor(
            table, history, plan, window, full_schema, filters, options, by_completion=by_completion,
            fallback=fallback,
        )  # fmt: skip
    latest, affected = _written_files(history, window)
    replaced = _replaced(history, window, by_completion)
    selected = [ref for key, ref in latest.items() if key not in replaced]
    # Java checks every file of the window on v8+ (V2 relation), only the files it reads on v6 (V1).
    missing = _missing(table.storage, affected if by_completion else [ref.key for ref in selected])
    if missing:
        if not fallback:
            raise _path_not_found(history, missing[0])
        scan_filter = _fallback_filter(commits, window, begin, end, by_completion=by_completion, archived=False)
        return _full_scan(table, plan, full_schema, filters, scan_filter, options)
    tasks = build_tasks(
        config, selected, schema=schema, full_schema=full_schema, filters=filters,
        commit_time_filter=_window_filter(window, by_completion),
    )  # fmt: skip
    return replace(plan, tasks=tasks)


def _touched_groups(timeline: CommitHistory, window: Sequence[Instant]) -> tuple[set[tuple[str, str]], list[str]]:
    """File groups with a base or log file written in the window, and every file written in it."""
    groups: set[tuple[str, str]] = set()
    affected: list[str] = []
    for inst in window:
        metadata = timeline.read_commit_metadata(inst)
        for partition, stats in (metadata.partition_to_write_stats or {}).items():
            for stat in stats:
                if not stat.path:
                    continue
                parsed = parse_data_file_name(stat.path.rsplit("/", 1)[-1])
                file_id = stat.file_id or (parsed.file_id if parsed is not None else None)
                if file_id is None:
                    continue
                groups.add((stat.partition_path if stat.partition_path is not None else partition, file_id))
                affected.append(stat.path)
    return groups, affected


def _plan_mor(
    table: HudiTable,
    history: CommitHistory,
    plan: ReadPlan,
    window: Sequence[Instant],
    full_schema: pa.Schema,
    filters: Disjunction,
    options: ReadOptions,
    *,
    by_completion: bool,
    fallback: bool,
) -> ReadPlan:
    """Merged slices of the file groups the window wrote, with only the window's log blocks."""
    groups, affected = _touched_groups(history, window)
    replaced = _replaced(history, window, by_completion)
    last = max(i.requested_time for i in window)
    slices = [
        s
        for s in table.file_system_view().latest_file_slices(as_of=last)
        if (s.partition_path, s.file_id) in groups and (s.partition_path, s.file_id) not in replaced
    ]
    check_base_file_formats(slices, READABLE_FORMATS)
    missing = _missing(table.storage, affected)
    if missing:
        if not fallback:
            raise _path_not_found(history, missing[0])
        commits = history.commits_timeline()
        scan_filter = _fallback_filter(
            commits, window, plan.begin, plan.end, by_completion=by_completion, archived=False
        )
        return _full_scan(table, plan, full_schema, filters, scan_filter, options)
    validity = InstantValidity(frozenset(i.requested_time for i in window))
    tasks = plan_slice_tasks(
        table, slices, schema=plan.schema, full_schema=full_schema, filters=filters, validity=validity,
        commit_time_filter=_window_filter(window, by_completion), max_memory_bytes=options.merge_max_memory_bytes,
        use_record_positions=options.use_record_positions,
    )  # fmt: skip
    return replace(plan, tasks=tasks)
