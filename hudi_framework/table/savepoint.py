"""Savepoints, restore and rolling back the latest commit.

* A **savepoint** keeps a completed commit restorable: ``<T>.savepoint.inflight`` then the
  completed ``<T>.savepoint`` (layout 2: ``<T>_<C>.savepoint``) holding Avro
  ``HoodieSavepointMetadata`` with the data files of every partition as of ``T``. It takes the time
  ``T`` of the commit it keeps, as Apache Hudi does. Cleaning must keep those files.
* A **restore** brings the table back to a savepoint: ``<R>.restore.requested`` (Avro
  ``HoodieRestorePlan``: every instant after ``T``, newest first), an empty inflight file, then each
  of those instants is rolled back (its files and instant files deleted; merge-on-read v6 log
  appends get rollback blocks) and ``<R>.restore`` (Avro ``HoodieRestoreMetadata``) completes it.
* :func:`rollback_latest_commit` undoes the newest completed write with a rollback instant.
"""

from __future__ import annotations

import getpass
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_framework.errors import InstantNotFoundError, SavepointError
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant
from hudi_framework.write.rollback import RollbackResult, rollback_instant
from hudi_framework.write.transaction import timeline_writer

if TYPE_CHECKING:
    from hudi_framework.table.table import HudiTable

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

    Raises:
        SavepointError: There is no completed savepoint at ``instant_time``.
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
    later = [
        i
        for i in reversed(writer.timeline().instants)
        if i.requested_time > instant_time and i.comparable_action in _RESTORED_ACTIONS
    ]
    infos = [{"commitTime": i.requested_time, "action": i.action.value} for i in later]
    plan = write_container(AvroSchemaName.RESTORE_PLAN, {"instantsToRollback": infos, "version": 1})
    inflight = writer.transition_to_inflight(writer.create_requested(Action.RESTORE, content=plan))
    details: dict[str, list[dict[str, object] | None]] = {}
    for inst in later:
        if inst.comparable_action in {Action.ROLLBACK, Action.CLEAN}:
            # Their own records only; what they deleted stays deleted, as in Apache Hudi.
            writer.delete_instant(inst, allow_completed=True)
            continue
        result = rollback_instant(storage, config, writer, inst, record=False)
        details[inst.requested_time] = [_rollback_record(result, inst)]
    metadata = {
        "startRestoreTime": inflight.requested_time,
        "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "instantsToRollback": [i.requested_time for i in later],
        "hoodieRestoreMetadata": details,
        "version": 1,
        "restoreInstantInfo": infos,
    }
    done = writer.complete(inflight, write_container(AvroSchemaName.RESTORE_METADATA, metadata))
    return RestoreResult(done, tuple(i.requested_time for i in later))


def _rollback_record(result: RollbackResult, inst: Instant) -> dict[str, object]:
    partitions: dict[str, list[str]] = {}
    for key in result.deleted:
        partitions.setdefault(key.rpartition("/")[0], []).append(key)
    return {
        "startRollbackTime": inst.requested_time,
        "timeTakenInMillis": 0,
        "totalFilesDeleted": len(result.deleted),
        "commitsRollback": [inst.requested_time],
        "partitionMetadata": {
            p: {
                "partitionPath": p,
                "successDeleteFiles": keys,
                "failedDeleteFiles": [],
                "rollbackLogFiles": None,
                "logFilesFromFailedCommit": None,
            }
            for p, keys in sorted(partitions.items())
        },
        "version": 1,
        "instantsRollback": [{"commitTime": inst.requested_time, "action": inst.action.value}],
    }


def rollback_latest_commit(table: HudiTable, instant_time: str | None = None) -> RollbackResult:
    """Roll back the newest completed write (``instant_time``, when given, must be it).

    Raises:
        SavepointError: No completed write, ``instant_time`` is not the newest one, or it is savepointed.
    """
    timeline = table.reload().timeline
    latest = timeline.latest_completed_commit()
    if latest is None:
        raise SavepointError(f"{table.base_uri} has no completed commit to roll back")
    if instant_time is not None and instant_time != latest.requested_time:
        raise SavepointError(f"only the latest commit {latest.requested_time} can be rolled back, not {instant_time}")
    if any(s.instant_time == latest.requested_time for s in list_savepoints(table)):
        raise SavepointError(f"{latest.requested_time} is savepointed; delete the savepoint first")
    writer = timeline_writer(table.storage, table.config)
    return rollback_instant(table.storage, table.config, writer, latest, record=True)
