"""Rolling back the failed writes of other writers: ``hoodie.cleaner.policy.failed.writes``.

* ``EAGER`` (single writer): every unfinished write instant is a failed write, since no other writer
  can be running; the next write rolls them all back before it starts.
* ``LAZY`` (several writers): only unfinished instants whose heartbeat expired are failed; the
  others may belong to a live writer. The next writer's start (or a clean) rolls them back.

Pending table services (compaction, log compaction, clustering) are never failed writes: their
plans are completed by a later run of the service, so they are left alone, as Apache Hudi does.
Each rollback is recorded as a rollback instant (:func:`~hudi_framework.write.rollback.rollback_failed_write`).

Under ``EAGER`` the sweep also removes what a failed Spark job's straggling tasks left in
``.hoodie/.temp`` after the job's own cleanup ran (Spark calls a writer's abort without waiting for
tasks it asked to stop): staged rows, and the markers and new data files of a write that was already
undone (:func:`drop_abandoned_scratch`). Readers never see those files; the sweep keeps them from
piling up.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from hudi_framework.config.enums import FailedWritesPolicy
from hudi_framework.errors import IllegalTransitionError, InstantNotFoundError
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action
from hudi_framework.write.heartbeat import HEARTBEAT_ROOT, HeartbeatPolicy, heartbeat_key, is_heartbeat_expired
from hudi_framework.write.markers import MARKER_ROOT, STAGING_DIR_PREFIX, delete_markers, marked_data_files
from hudi_framework.write.rollback import RollbackResult, rollback_failed_write

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.table.table_config import TableConfig
    from hudi_framework.timeline.instant import Instant
    from hudi_framework.timeline.timeline import Timeline
    from hudi_framework.timeline.transitions import TimelineWriter

__all__ = ["drop_abandoned_scratch", "drop_leftovers_of_completed", "failed_writes", "rollback_failed_writes"]

#: Pending instants of these actions are table-service plans, not failed writes.
_SERVICE_ACTIONS = frozenset({Action.COMPACTION, Action.LOG_COMPACTION, Action.CLUSTERING})


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
    """Roll back every failed write (see :func:`failed_writes`), newest first, and drop its heartbeat.

    An instant another writer rolled back (or completed) meanwhile is skipped.

    Returns:
        One result per instant rolled back.
    """
    timeline = writer.timeline()
    scratch = storage.list_dirs(MARKER_ROOT)  # one listing for both sweeps (a request on S3)
    drop_leftovers_of_completed(storage, timeline, marker_dirs=scratch)
    results = []
    for instant in failed_writes(timeline, policy, heartbeat, exclude=exclude):
        try:
            results.append(rollback_failed_write(storage, config, writer, instant, record=True))
        except (InstantNotFoundError, IllegalTransitionError):
            continue
        storage.delete(heartbeat_key(instant.requested_time), missing_ok=True)
    if policy is FailedWritesPolicy.EAGER:
        # The timeline from before the rollbacks: the instants rolled back are on it (so left alone
        # here) and their markers are gone already.
        drop_abandoned_scratch(storage, timeline, exclude=exclude, marker_dirs=scratch)
    return results


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
    later); a version 6 log file also holds other writes' blocks and is left alone.

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
            for info in storage.list(key.rstrip("/"), recursive=True):
                storage.delete(info.key)
            swept.append(name)
        elif name.isdigit() and name not in known and name not in exclude and (oldest is None or name > oldest):
            for data_file in marked_data_files(storage, name):
                if name in data_file.rsplit("/", 1)[-1]:
                    storage.delete(data_file)
            delete_markers(storage, name)
            swept.append(name)
    return sorted(swept)


def drop_leftovers_of_completed(
    storage: StorageBackend, timeline: Timeline, *, marker_dirs: Collection[str] | None = None
) -> list[str]:
    """Delete heartbeat files and markers of completed instants (a writer that died right after
    its completed file was written never cleaned them up).

    Returns:
        The requested times whose leftovers were deleted.
    """
    completed = {i.requested_time for i in timeline.completed()}
    dropped = []
    for info in storage.list(HEARTBEAT_ROOT):
        if info.name in completed:
            storage.delete(info.key)
            dropped.append(info.name)
    for key in storage.list_dirs(MARKER_ROOT) if marker_dirs is None else marker_dirs:
        name = key.rstrip("/").rsplit("/", 1)[-1]
        if name in completed:
            delete_markers(storage, name)
            dropped.append(name)
    return sorted(set(dropped))
