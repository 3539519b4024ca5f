"""Savepoints, restore and rolling back the latest commit.

* A **savepoint** keeps a completed commit restorable: ``<T>.savepoint.inflight`` then the
  completed ``<T>.savepoint`` (layout 2: ``<T>_<C>.savepoint``) holding Avro
  ``HoodieSavepointMetadata`` with the data files of every partition as of ``T``. It takes the time
  ``T`` of the commit it keeps, as Apache Hudi does. Cleaning must keep those files.
* A **restore** brings the table back to a savepoint: ``<R>.restore.requested`` (Avro
  ``HoodieRestorePlan``: every instant after ``T``, newest first), an empty inflight file, then each
  of those instants is rolled back with a rollback instant of its own (its files and instant files
  deleted; merge-on-read v6 log appends get rollback blocks), ``<R>.restore`` (Avro
  ``HoodieRestoreMetadata``, holding each rollback's metadata) completes it and the rollback
  instants go. A restore whose process died is pending: writers refuse to start
  (:class:`~hudi_framework.errors.PendingRestoreError`) and running it again finishes it under
  ``R``, each rollback under its own instant (:mod:`~hudi_framework.table.restore_plan`).
* :func:`rollback_latest_commit` undoes the newest completed write with a rollback instant, after
  finishing any rollback whose process died.
"""

from __future__ import annotations

import getpass
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_framework.errors import IllegalTransitionError, InstantNotFoundError, PendingRestoreError, SavepointError
from hudi_framework.table.restore_plan import (
    check_no_pending_restore,
    decode_restore_plan,
    encode_restore_plan,
    restored_savepoint,
)
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_framework.write.rollback import RollbackResult, execute_rollback, pending_rollbacks, rollback_instant
from hudi_framework.write.transaction import timeline_writer

if TYPE_CHECKING:
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.timeline.timeline import Timeline
    from hudi_framework.timeline.transitions import TimelineWriter

__all__ = [
    "RestoreResult",
    "Savepoint",
    "SavepointError",
    "create_savepoint",
    "delete_savepoint",
    "list_savepoints",
    "restore_to_savepoint",
    "rollback_latest_commit",
]

#: Actions a restore rolls back when they come after the savepoint (writes and table services).
_RESTORED_ACTIONS = frozenset(
    {*WRITE_ACTIONS, Action.COMPACTION, Action.LOG_COMPACTION, Action.CLUSTERING, Action.ROLLBACK, Action.CLEAN}
)


@dataclass(frozen=True, slots=True)
class Savepoint:
    """One savepoint.

    Attributes:
        instant_time: The savepointed commit's time.
        savepointed_by: Who created it.
        savepointed_at_ms: When (epoch milliseconds).
        comments: Free text.
        files: Partition -> data file names kept.
    """

    instant_time: str
    savepointed_by: str
    savepointed_at_ms: int
    comments: str
    files: dict[str, list[str]]


@dataclass(frozen=True, slots=True)
class RestoreResult:
    """What a restore did: the restore instant and the instants it rolled back (newest first)."""

    restore_instant: Instant
    rolled_back: tuple[str, ...]


def create_savepoint(table: HudiTable, instant_time: str, *, user: str | None = None, comments: str = "") -> Savepoint:
    """Savepoint the completed commit ``instant_time``.

    Raises:
        SavepointError: ``instant_time`` is not a completed commit, or is savepointed already.
    """
    timeline = table.reload().timeline
    commits = {i.requested_time for i in timeline.commits_timeline()}
    if instant_time not in commits:
        raise SavepointError(f"{instant_time} is not a completed commit of {table.base_uri}")
    if any(s.instant_time == instant_time for s in list_savepoints(table)):
        raise SavepointError(f"{instant_time} is savepointed already")
    files: dict[str, list[str]] = {}
    for fs in table.latest_file_slices(as_of=instant_time, check_format=False):
        names = ([fs.base_file_name] if fs.base_file_name else []) + fs.log_file_names
        files.setdefault(fs.partition_path, []).extend(names)
    savepoint = Savepoint(
        instant_time=instant_time,
        savepointed_by=user or getpass.getuser(),
        savepointed_at_ms=int(time.time() * 1000),
        comments=comments,
        files={p: sorted(names) for p, names in sorted(files.items())},
    )
    record = {
        "savepointedBy": savepoint.savepointed_by,
        "savepointedAt": savepoint.savepointed_at_ms,
        "comments": comments,
        "partitionMetadata": {
            p: {"partitionPath": p, "savepointDataFile": names} for p, names in savepoint.files.items()
        },
        "version": 1,
    }
    writer = timeline_writer(table.storage, table.config)
    inflight = writer.create_savepoint_inflight(instant_time)
    writer.complete(inflight, write_container(AvroSchemaName.SAVEPOINT_METADATA, record))
    return savepoint


def list_savepoints(table: HudiTable) -> list[Savepoint]:
    """Every completed savepoint, oldest first."""
    timeline = table.reload().timeline
    out = []
    for inst in timeline.completed({Action.SAVEPOINT}):
        data = timeline.read_bytes(inst)
        rec = read_container(data, path=timeline.file_key(inst)).record if data else {}
        parts = rec.get("partitionMetadata") or {}
        out.append(
            Savepoint(
                instant_time=inst.requested_time,
                savepointed_by=str(rec.get("savepointedBy", "")),
                savepointed_at_ms=int(rec.get("savepointedAt") or 0),
                comments=str(rec.get("comments", "")),
                files={p: list(m.get("savepointDataFile") or []) for p, m in parts.items()},
            )
        )
    return out


def delete_savepoint(table: HudiTable, instant_time: str) -> None:
    """Delete the savepoint of ``instant_time`` (its files may then be cleaned).

    Raises:
        SavepointError: There is no such savepoint.
    """
    timeline = table.reload().timeline
    try:
        inst = timeline.get(instant_time, Action.SAVEPOINT)
    except InstantNotFoundError:
        raise SavepointError(f"no savepoint at {instant_time}") from None
    timeline_writer(table.storage, table.config).delete_instant(inst, allow_completed=True)


def restore_to_savepoint(table: HudiTable, instant_time: str) -> RestoreResult:
    """Bring the table back to the savepoint ``instant_time``: every later instant is rolled back.

    A restore to the same savepoint whose process died is finished under its own instant, as
    Apache Hudi resumes a failed restore.

    Raises:
        SavepointError: There is no completed savepoint at ``instant_time``.
        PendingRestoreError: A restore to another savepoint is pending.
    """
    savepoints = [s.instant_time for s in list_savepoints(table)]
    if instant_time not in savepoints:
        raise SavepointError(f"no savepoint at {instant_time}")
    newer = [t for t in savepoints if t > instant_time]
    if newer:
        raise SavepointError(f"savepoints {', '.join(newer)} are newer than {instant_time}; delete them first")
    started = time.monotonic()
    storage, config = table.storage, table.config
    writer = timeline_writer(storage, config)
    timeline = writer.timeline()
    pending = timeline.pending({Action.RESTORE})
    if pending:
        restore = pending[0]
        other = restored_savepoint(timeline, restore)
        if other != instant_time:
            raise PendingRestoreError(restore.requested_time, other)
        planned = decode_restore_plan(timeline, restore)
        inflight = restore if restore.state is State.INFLIGHT else writer.transition_to_inflight(restore)
    else:
        later = [
            i
            for i in reversed(timeline.instants)
            if i.requested_time > instant_time and i.comparable_action in _RESTORED_ACTIONS
        ]
        planned = [(i.requested_time, i.action.value) for i in later]
        inflight = writer.transition_to_inflight(
            writer.create_requested(Action.RESTORE, content=encode_restore_plan(later))
        )
    details: dict[str, list[dict[str, object] | None]] = {}
    for target, action in planned:
        record = _restore_one(table, writer, target, Action(action))
        if record is not None:
            details[target] = [record]
    metadata = {
        "startRestoreTime": inflight.requested_time,
        "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "instantsToRollback": [t for t, _ in planned],
        "hoodieRestoreMetadata": details,
        "version": 1,
        "restoreInstantInfo": [{"commitTime": t, "action": a} for t, a in planned],
    }
    done = writer.complete(inflight, write_container(AvroSchemaName.RESTORE_METADATA, metadata))
    # The restore's own rollback instants go once it completed, as in Apache Hudi.
    for rollback in writer.timeline().by_action(Action.ROLLBACK):
        if rollback.requested_time > done.requested_time:
            writer.delete_instant(rollback, allow_completed=True)
    return RestoreResult(done, tuple(t for t, _ in planned))


def _restore_one(table: HudiTable, writer: TimelineWriter, target: str, action: Action) -> dict[str, object] | None:
    """Roll back (or finish rolling back) one instant of a restore; its rollback metadata record."""
    storage, config = table.storage, table.config
    timeline = writer.timeline()
    try:
        current: Instant | None = timeline.get(target, action)
    except InstantNotFoundError:
        current = None
    if action.completes_as in {Action.ROLLBACK, Action.CLEAN}:
        # Their own records only; what they deleted stays deleted, as in Apache Hudi.
        if current is not None:
            writer.delete_instant(current, allow_completed=True)
        return None
    pending = {p.plan.target_time: p for p in pending_rollbacks(storage, writer, timeline)}
    if target in pending:
        done = execute_rollback(storage, config, writer, pending[target].instant, pending[target].plan)
    elif current is not None:
        done = rollback_instant(storage, config, writer, current, record=True, timeline=timeline)
    else:
        # Rolled back by the attempt that died: its completed rollback holds the record.
        return _completed_rollback_of(writer.timeline(), target)
    assert done.rollback_instant is not None
    avro = writer.timeline().read_avro(done.rollback_instant)
    return avro.record if avro is not None else None


def _completed_rollback_of(timeline: Timeline, target: str) -> dict[str, object] | None:
    for rollback in reversed(timeline.completed({Action.ROLLBACK})):
        avro = timeline.read_avro(rollback)
        if avro is not None and target in (avro.record.get("commitsRollback") or []):
            return avro.record
    return None


def rollback_latest_commit(table: HudiTable, instant_time: str | None = None) -> RollbackResult:
    """Roll back the newest completed write (``instant_time``, when given, must be it).

    Rollbacks whose process died are finished first, under their own instants; if one of them
    rolled back ``instant_time`` (or, without it, any), its result is returned and no other commit
    is rolled back.

    Raises:
        SavepointError: No completed write, ``instant_time`` is not the newest one, or it is savepointed.
        PendingRestoreError: A restore is pending.
    """
    storage, config = table.storage, table.config
    writer = timeline_writer(storage, config)
    timeline = table.reload().timeline
    check_no_pending_restore(timeline)
    finished: dict[str, RollbackResult] = {}
    for pending in pending_rollbacks(storage, writer, timeline):
        try:
            finished[pending.plan.target_time] = execute_rollback(
                storage, config, writer, pending.instant, pending.plan
            )
        except (InstantNotFoundError, IllegalTransitionError):
            continue  # another process finished it
    if finished and (instant_time is None or instant_time in finished):
        return finished[instant_time or max(finished)]
    timeline = table.reload().timeline
    latest = timeline.latest_completed_commit()
    if latest is None:
        raise SavepointError(f"{table.base_uri} has no completed commit to roll back")
    if instant_time is not None and instant_time != latest.requested_time:
        raise SavepointError(f"only the latest commit {latest.requested_time} can be rolled back, not {instant_time}")
    if any(s.instant_time == latest.requested_time for s in list_savepoints(table)):
        raise SavepointError(f"{latest.requested_time} is savepointed; delete the savepoint first")
    return rollback_instant(storage, config, writer, latest, record=True, timeline=timeline)
