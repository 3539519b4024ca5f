"""Rolling back the failed writes of other writers: ``hoodie.cleaner.policy.failed.writes``.

* ``EAGER`` (single writer): every unfinished write instant is a failed write, since no other writer
  can be running; the next write rolls them all back before it starts.
* ``LAZY`` (several writers): only unfinished instants whose heartbeat expired are failed; the
  others may belong to a live writer. The next writer's start (or a clean) rolls them back.

Pending table services (compaction, log compaction, clustering) are never failed writes: their
plans are completed by a later run of the service, so they are left alone, as Apache Hudi does.
Each rollback is recorded as a rollback instant (:func:`~hudi_framework.write.rollback.rollback_failed_write`);
a rollback whose process died is finished first, under its own instant, under either policy.

The sweep also removes what dead writers left behind: markers and heartbeats of writes that
completed (:func:`drop_leftovers_of_completed`), and half-written instant files, heartbeats and
markers (:mod:`~hudi_framework.write.incomplete`). Under ``EAGER`` it removes too what a failed
Spark job's straggling tasks left in ``.hoodie/.temp`` after the job's own cleanup ran (Spark calls
a writer's abort without waiting for tasks it asked to stop): staged rows, and the markers and new
data files of a write that was already undone (:func:`drop_abandoned_scratch`). Readers never see
those files; the sweep keeps them from piling up.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from hudi_framework.errors import IllegalTransitionError, InstantNotFoundError
from hudi_framework.table.restore_plan import check_no_pending_restore
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action
from hudi_framework.vocabulary import FailedWritesPolicy
from hudi_framework.write.heartbeat import HEARTBEAT_ROOT, HeartbeatPolicy, is_heartbeat_expired
from hudi_framework.write.incomplete import discard_incomplete_writes, sweep_metadata_incomplete_writes
from hudi_framework.write.markers import MARKER_ROOT, STAGING_DIR_PREFIX, delete_markers, marked_data_files
from hudi_framework.write.rollback import RollbackResult, execute_rollback, pending_rollbacks, rollback_failed_write

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.table.table_config import TableConfig
    from hudi_framework.timeline.instant import Instant
    from hudi_framework.timeline.timeline import Timeline
    from hudi_framework.timeline.transitions import TimelineWriter

__all__ = [
    "drop_abandoned_scratch",
    "drop_leftovers_of_completed",
    "failed_writes",
    "rollback_failed_writes",
    "sweep_leftovers",
]

#: Pending instants of these actions are table-service plans, not failed writes.
_SERVICE_ACTIONS = frozenset({Action.COMPACTION, Action.LOG_COMPACTION, Action.CLUSTERING})
_SERVICE_ACTION_NAMES = frozenset(a.value for a in _SERVICE_ACTIONS)


def failed_writes(
    timeline: Timeline,
    policy: FailedWritesPolicy,
    heartbeat: HeartbeatPolicy,
    *,
    exclude: Collection[str] = (),
) -> list[Instant]:
    """The unfinished write instants ``policy`` counts as failed, newest first.

    Args:
        timeline: A fresh timeline of the table.
        policy: ``EAGER`` (all) or ``LAZY`` (heartbeat expired).
        heartbeat: Interval and tolerated misses (LAZY).
        exclude: Requested times never counted (the caller's own write).
    """
    clustering = set(timeline.pending_clustering_plans())
    pending = [
        i
        for i in timeline.pending(WRITE_ACTIONS)
        if i.action not in _SERVICE_ACTIONS and i not in clustering and i.requested_time not in exclude
    ]
    if policy is FailedWritesPolicy.LAZY:
        storage = timeline.storage
        pending = [
            i for i in pending if is_heartbeat_expired(storage, i.requested_time, heartbeat, timezone=timeline.timezone)
        ]
    return sorted(pending, key=lambda i: i.requested_time, reverse=True)


def rollback_failed_writes(
    storage: StorageBackend,
    config: TableConfig,
    writer: TimelineWriter,
    policy: FailedWritesPolicy,
    heartbeat: HeartbeatPolicy,
    *,
    exclude: Collection[str] = (),
) -> list[RollbackResult]:
    """Finish pending rollbacks, then roll back every failed write (see :func:`failed_writes`),
    newest first, and sweep what dead writers left.

    A rollback whose process died is finished under its own instant whatever the policy, as Apache
    Hudi does (its plan only names a failed or rolled-back write's files); an instant another
    writer rolled back (or completed) meanwhile is skipped.

    Returns:
        One result per rollback completed.

    Raises:
        PendingRestoreError: A restore is pending; it must be finished first.
    """
    timeline = writer.timeline()
    check_no_pending_restore(timeline)
    scratch = storage.list_dirs(MARKER_ROOT)  # one listing for both sweeps (a request on S3)
    sweep_leftovers(storage, timeline, marker_dirs=scratch, orphan_heartbeats=policy is FailedWritesPolicy.EAGER)
    results = []
    finished = set()
    for pending in pending_rollbacks(storage, writer, timeline):
        if pending.plan.target_action in _SERVICE_ACTION_NAMES:
            continue  # a table service finishes its own rollbacks, as in Apache Hudi
        try:
            results.append(execute_rollback(storage, config, writer, pending.instant, pending.plan))
        except (InstantNotFoundError, IllegalTransitionError):
            continue
        finished.add(pending.plan.target_time)
    for instant in failed_writes(timeline, policy, heartbeat, exclude={*exclude, *finished}):
        try:
            results.append(rollback_failed_write(storage, config, writer, instant, record=True))
        except (InstantNotFoundError, IllegalTransitionError):
            continue
    if policy is FailedWritesPolicy.EAGER:
        # The timeline from before the rollbacks: the instants rolled back are on it (so left alone
        # here) and their markers are gone already.
        drop_abandoned_scratch(storage, timeline, exclude=exclude, marker_dirs=scratch)
    return results


def sweep_leftovers(
    storage: StorageBackend,
    timeline: Timeline,
    *,
    marker_dirs: Collection[str] | None = None,
    orphan_heartbeats: bool = False,
) -> None:
    """Remove what dead writers left that is safe to remove under any policy: markers and heartbeats
    of completed instants (:func:`drop_leftovers_of_completed`) and half-written small objects under
    ``.hoodie`` (:func:`~hudi_framework.write.incomplete.sweep_metadata_incomplete_writes`).

    ``orphan_heartbeats`` (single writer, ``EAGER``): also the heartbeats of instants the timeline
    holds in no state (a rollback that died after removing its target, before its heartbeat).
    """
    drop_leftovers_of_completed(storage, timeline, marker_dirs=marker_dirs, orphan_heartbeats=orphan_heartbeats)
    sweep_metadata_incomplete_writes(storage)


def drop_abandoned_scratch(
    storage: StorageBackend,
    timeline: Timeline,
    *,
    exclude: Collection[str] = (),
    marker_dirs: Collection[str] | None = None,
) -> list[str]:
    """Delete staging directories, and markers of writes no longer on the timeline with their files.

    Single writer only (``EAGER``): no other write can own them. A marker directory counts when its
    instant is newer than the oldest active instant (older ones may have been archived) and is on the
    timeline in no state: its write was undone, and a task wrote on afterwards. Only data files whose
    names carry that instant are deleted (new base files and log files of table version 8 and
    later), with what their writers left half-written; a version 6 log file also holds other writes'
    blocks and is left alone.

    Args:
        storage: The table's storage.
        timeline: A fresh timeline.
        exclude: Instants never touched (the caller's own write).
        marker_dirs: ``storage.list_dirs(MARKER_ROOT)`` if the caller has it.

    Returns:
        The directory names swept.
    """
    known = {i.requested_time for i in timeline.instants}
    oldest = min(known, default=None)
    swept = []
    for key in storage.list_dirs(MARKER_ROOT) if marker_dirs is None else marker_dirs:
        name = key.rstrip("/").rsplit("/", 1)[-1]
        if name.startswith(STAGING_DIR_PREFIX):
            storage.delete_tree(key.rstrip("/"))
            swept.append(name)
        elif name.isdigit() and name not in known and name not in exclude and (oldest is None or name > oldest):
            marked = marked_data_files(storage, name)
            owned = [f for f in marked if name in f.rsplit("/", 1)[-1]]
            for data_file in owned:
                storage.delete(data_file)
            discard_incomplete_writes(storage, {f.rpartition("/")[0] for f in marked}, set(owned).__contains__)
            delete_markers(storage, name)
            swept.append(name)
    return sorted(swept)


def drop_leftovers_of_completed(
    storage: StorageBackend,
    timeline: Timeline,
    *,
    marker_dirs: Collection[str] | None = None,
    orphan_heartbeats: bool = False,
) -> list[str]:
    """Delete heartbeat files and markers of completed instants (a writer that died right after
    its completed file was written never cleaned them up), with what failed task attempts of those
    writes left half-written next to the marked files; with ``orphan_heartbeats`` (single writer
    only), also heartbeats of instants on the timeline in no state.

    Returns:
        The requested times whose leftovers were deleted.
    """
    completed = {i.requested_time for i in timeline.completed()}
    known = {i.requested_time for i in timeline.instants}
    dropped = []
    for info in storage.list(HEARTBEAT_ROOT):
        if info.name in completed or (orphan_heartbeats and info.name not in known):
            storage.delete(info.key)
            dropped.append(info.name)
    for key in storage.list_dirs(MARKER_ROOT) if marker_dirs is None else marker_dirs:
        name = key.rstrip("/").rsplit("/", 1)[-1]
        if name in completed:
            marked = set(marked_data_files(storage, name))
            # Reported files are published, so only dead attempts' files can be half-written.
            discard_incomplete_writes(storage, {f.rpartition("/")[0] for f in marked}, marked.__contains__)
            delete_markers(storage, name)
            dropped.append(name)
    return sorted(set(dropped))
