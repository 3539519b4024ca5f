"""Archiving the timeline: the chosen instants are appended to the archive, then their files leave the active timeline.

Which instants: :mod:`hudi_framework.services.archival_plan`. The order is crash-safe: the archive
is appended to first (a new snapshot of the LSM timeline, or the v6 log); only then are the active
instant files deleted, the requested and inflight files of every archived instant first and then
the completed files oldest first (Java's order: a completed file removed before its pending ones
would make the instant look pending again, and deleting oldest first leaves no hole in the active
timeline). A crash in between leaves instants both archived and active; readers of the archive
prefer the active timeline, and the next archival archives them again, which the archive formats
keep once.

A data table with a metadata table is archived first, then the metadata table's own timeline, with
its own bounds. Under optimistic concurrency control the table lock is held throughout.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hudi_framework.config.settings import HudiSettings
from hudi_framework.lock import table_lock
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.runtime.retained import earliest_retained
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.archival_plan import ArchivalPolicy, MetadataTableState, instants_to_archive
from hudi_framework.timeline.archive import ArchivedInstant, ArchiveFormat, archive_format
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.lsm import LsmArchive
from hudi_framework.timeline.naming import LAYOUT_V1, parse_instant_file_name
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import TableType
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.markers import delete_markers

__all__ = ["ArchivalResult", "archival_due", "archive_timeline"]


@dataclass(frozen=True, slots=True)
class ArchivalResult:
    """What one archival moved.

    Attributes:
        archived: Data-table instants moved to the archive, oldest first.
        metadata_archived: The metadata table's instants moved to its archive.
    """

    archived: tuple[Instant, ...] = ()
    metadata_archived: tuple[Instant, ...] = ()


def archival_due(timeline: Timeline, max_commits: int) -> bool:
    """Whether ``timeline`` holds more than ``max_commits`` completed commits: below that no rule
    archives anything (the cleaner's retention only raises the bound), and the metadata table's
    timeline cannot archive past the data table's first instant either."""
    return len(timeline.commits_timeline()) > max_commits


def archive_timeline(table: HudiTable, settings: HudiSettings | None = None) -> ArchivalResult:
    """Archive what the rules allow, once: the data table, then its metadata table.

    Args:
        table: The table (reloaded first).
        settings: The session's settings (``services.archive``, the cleaner's retention, the lock).

    Returns:
        The instants archived (empty when nothing was due).

    Raises:
        LsmTimelineError: The archive cannot be read or written.
        MetadataTableUnusableError: The metadata table exists but cannot be read.
    """
    settings = settings or HudiSettings()
    with _locked(table, settings):
        table.reload()
        timeline = table.timeline
        mdt = table.metadata_table() if table.config.version >= 8 else None
        state = None
        if mdt is not None:
            compactions = mdt.timeline.completed({Action.COMMIT})
            state = MetadataTableState(latest_compaction=compactions[-1].requested_time if compactions else "")
        policy = ArchivalPolicy.for_table(settings, merge_on_read=table.config.table_type is TableType.MERGE_ON_READ)
        chosen = instants_to_archive(
            timeline.instants, policy, last_clean_retained=earliest_retained(timeline), metadata=state
        )
        archive = _archive(table, settings, table.archive_directory)
        _move(timeline, archive, chosen, delete_marker_dirs=True)
        mdt_archived: list[Instant] = []
        if mdt is not None:
            mdt_archived = _archive_metadata_table(table, mdt, settings)
        if chosen or mdt_archived:
            table.reload()
        return ArchivalResult(tuple(chosen), tuple(mdt_archived))


def _archive_metadata_table(table: HudiTable, mdt: MetadataTable, settings: HudiSettings) -> list[Instant]:
    data = table.timeline
    floors = [i.requested_time for i in data.commits_timeline(include_pending=True)]
    floors += [i.requested_time for i in data.pending()][:1]
    state = MetadataTableState(data_floor=min(floors, default=None))
    mdt_timeline = mdt.timeline.reload()
    chosen = instants_to_archive(
        mdt_timeline.instants,
        ArchivalPolicy.for_metadata_table(settings),
        last_clean_retained=earliest_retained(mdt_timeline),
        metadata=state,
    )
    directory = f"{mdt_timeline.directory}/{_mdt_history_path(mdt)}"
    _move(mdt_timeline, _archive(table, settings, directory), chosen, delete_marker_dirs=False)
    return chosen


def _mdt_history_path(mdt: MetadataTable) -> str:
    return (mdt.properties.get("hoodie.timeline.history.path") or "history").strip("/")


def _archive(table: HudiTable, settings: HudiSettings, directory: str) -> ArchiveFormat:
    if table.config.timeline_layout_version == LAYOUT_V1:
        return archive_format(table.storage, LAYOUT_V1, directory)
    batch = settings.services.archive.timeline_compaction_batch_size
    return LsmArchive(table.storage, directory, compaction_batch_size=batch)


@contextlib.contextmanager
def _locked(table: HudiTable, settings: HudiSettings) -> Iterator[None]:
    cc = WriteConcurrency.from_settings(settings, table)
    if cc.locks and cc.open_lock is not None:
        with table_lock(cc.open_lock(), table=cc.table, policy=cc.lock_policy):
            yield
    else:
        yield


def _move(timeline: Timeline, archive: ArchiveFormat, chosen: Sequence[Instant], *, delete_marker_dirs: bool) -> None:
    """Append ``chosen`` to ``archive``, then delete their active files in Java's order."""
    if not chosen:
        return
    files = {inst: timeline.state_files(inst) for inst in chosen}
    archive.append([_archived(timeline, inst, files[inst]) for inst in chosen])
    storage = timeline.storage
    for inst in chosen:
        for state in (State.REQUESTED, State.INFLIGHT):
            key = files[inst].get(state)
            if key is not None:
                storage.delete(key)
        if delete_marker_dirs:
            delete_markers(storage, inst.requested_time)
    for inst in chosen:
        key = files[inst].get(State.COMPLETED)
        if key is not None:
            storage.delete(key)


def _archived(timeline: Timeline, inst: Instant, files: dict[State, str]) -> ArchivedInstant:
    """The archive's record of ``inst``: its completed file and, per Java, the plan of its pending action."""
    storage = timeline.storage
    completed = files.get(State.COMPLETED)
    metadata = storage.read(completed) if completed is not None else b""
    plan = b""
    pending_action = _pending_action(files, timeline.layout_version) or inst.action
    if pending_action in _PLAN_IN_REQUESTED and State.REQUESTED in files:
        plan = storage.read(files[State.REQUESTED])
    elif pending_action in _PLAN_IN_INFLIGHT:
        for state in (State.REQUESTED, State.INFLIGHT):  # a non-empty inflight file wins, as in Java
            content = storage.read(files[state]) if state in files else b""
            plan = content or plan
    return ArchivedInstant(inst.requested_time, inst.completion_time, inst.action.value, metadata or None, plan or None)


_PLAN_IN_REQUESTED = frozenset({Action.CLEAN, Action.COMPACTION, Action.LOG_COMPACTION})
_PLAN_IN_INFLIGHT = frozenset({Action.REPLACE_COMMIT, Action.CLUSTERING})


def _pending_action(files: dict[State, str], layout: int) -> Action | None:
    """The action the instant's requested file names (``compaction`` for a compaction's commit)."""
    key = files.get(State.REQUESTED)
    if key is None:
        return None
    parsed = parse_instant_file_name(key.rsplit("/", 1)[-1], layout)
    if parsed is None:
        return None
    return parsed.instant.action
