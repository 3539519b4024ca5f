"""Planning a clean: which files go, written as ``T.clean.requested`` (Avro ``HoodieCleanerPlan``).

With ``services.clean.incremental`` (Apache Hudi's ``hoodie.clean.incremental.enabled``, on by
default) only the partitions written since the last clean's retained commit are listed
(:mod:`hudi_services_cleaning.incremental`); otherwise every partition is. Only committed files are
ever planned: the file-system view drops files of pending instants, so an inflight write (or a
pending compaction's new base file) is never touched.
"""

from __future__ import annotations

import datetime as dt

from hudi_framework.config.services import CleanSettings
from hudi_framework.layout.file_group import FileGroupId, FileSlice
from hudi_framework.layout.fs_view import FileSystemView
from hudi_framework.services.clean_plan import (
    CleanerPlan,
    CleanFileInfo,
    RetainedInstant,
    encode_cleaner_plan,
    savepoint_extra_metadata,
)
from hudi_framework.table.table import HudiTable
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import CleanerPolicy
from hudi_framework.write.savepoint import list_savepoints
from hudi_framework.write.transaction import timeline_writer
from hudi_services_cleaning.incremental import partitions_to_clean
from hudi_services_cleaning.retention import earliest_commit_to_retain
from hudi_services_cleaning.selection import (
    SliceGuard,
    replaced_slices_to_clean,
    slices_to_clean_by_commits,
    slices_to_clean_by_versions,
)

__all__ = ["build_clean_plan", "pending_compaction_bases", "schedule_clean"]


def pending_compaction_bases(timeline: Timeline) -> dict[FileGroupId, str]:
    """File group -> base instant of the slice a pending compaction or log compaction reads."""
    out: dict[FileGroupId, str] = {}
    for plans in (timeline.pending_compaction_plans(), timeline.pending_log_compaction_plans()):
        for plan in plans.values():
            for op in plan.get("operations") or ():
                fg = FileGroupId(op.get("partitionPath") or "", op["fileId"])
                base = op.get("baseInstantTime") or ""
                out[fg] = min(out.get(fg, base), base)
    return out


def _slices_to_clean(
    view: FileSystemView, partition: str, settings: CleanSettings, retain_from: str | None, guard: SliceGuard
) -> list[FileSlice]:
    out: list[FileSlice] = []
    by_versions = settings.policy is CleanerPolicy.KEEP_LATEST_FILE_VERSIONS
    for group in view.all_file_groups(partition, include_replaced=True):
        if group.replaced_by is not None:
            if by_versions or (retain_from is not None and group.replaced_by < retain_from):
                out += replaced_slices_to_clean(group.slices, guard)
        elif by_versions:
            out += slices_to_clean_by_versions(group.slices, settings.file_versions_retained, guard)
        elif retain_from is not None:
            out += slices_to_clean_by_commits(group.slices, retain_from, guard)
    return out


def build_clean_plan(table: HudiTable, settings: CleanSettings, *, now: dt.datetime | None = None) -> CleanerPlan:
    """The plan a clean would run now (possibly deleting nothing).

    Args:
        table: The table (its timeline as loaded is used).
        settings: ``services.clean`` (policy and retention).
        now: Current time for ``KEEP_LATEST_BY_HOURS`` (aware); the wall clock by default.
    """
    timeline = table.timeline
    retained = earliest_commit_to_retain(timeline, settings, now=now)
    latest = timeline.latest_completed_commit()
    policy = settings.policy.value
    by_commits = settings.policy is not CleanerPolicy.KEEP_LATEST_FILE_VERSIONS
    if by_commits and retained is None:
        # Not enough history yet: nothing is old enough, and nothing needs listing.
        return CleanerPlan(None, latest.requested_time if latest else "", policy)
    savepoints = list_savepoints(table)
    extra = savepoint_extra_metadata([s.instant_time for s in savepoints])
    guard = SliceGuard(
        savepointed_files=frozenset(name for s in savepoints for names in s.files.values() for name in names),
        pending_compaction_bases=pending_compaction_bases(timeline),
    )
    retain_from = retained.requested_time if retained is not None else None
    partitions = None
    if settings.incremental and by_commits and retain_from is not None:
        partitions = partitions_to_clean(timeline, retain_from, [s.instant_time for s in savepoints])
    view = table.file_system_view(partitions=partitions)
    storage = table.storage
    files: dict[str, tuple[CleanFileInfo, ...]] = {}
    for partition in view.partitions:
        keys = []
        for file_slice in _slices_to_clean(view, partition, settings, retain_from, guard):
            if file_slice.base_file_key is not None:
                keys.append(file_slice.base_file_key)
            keys += file_slice.log_file_keys
        files[partition] = tuple(CleanFileInfo(key, storage.uri(key)) for key in keys)
    return CleanerPlan(
        earliest_instant_to_retain=_retained(retained),
        last_completed_commit=latest.requested_time if latest else "",
        policy=policy,
        files=files,
        extra_metadata=extra,
    )


def _retained(instant: Instant | None) -> RetainedInstant | None:
    return RetainedInstant(instant.requested_time, instant.action.value) if instant is not None else None


def schedule_clean(
    table: HudiTable,
    settings: CleanSettings,
    *,
    instant_time: str | None = None,
    now: dt.datetime | None = None,
) -> str | None:
    """Plan a clean and write its ``T.clean.requested`` file, unless it would delete nothing.

    Args:
        table: The table.
        settings: ``services.clean``.
        instant_time: The clean instant; a new time after every instant by default.
        now: Current time for ``KEEP_LATEST_BY_HOURS``.

    Returns:
        The clean instant, or None when no file needs deleting (nothing is written, as Apache Hudi).

    Raises:
        IllegalTransitionError: ``instant_time`` is not newer than every instant on the timeline.
    """
    table.reload()
    plan = build_clean_plan(table, settings, now=now)
    if plan.file_count == 0:
        return None
    writer = timeline_writer(table.storage, table.config)
    requested = writer.create_requested(Action.CLEAN, instant_time, encode_cleaner_plan(plan))
    table.reload()
    return requested.requested_time
