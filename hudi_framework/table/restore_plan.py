"""The restore plan (Avro ``HoodieRestorePlan`` in ``<R>.restore.requested``) and pending restores.

A restore rolls back every instant after a savepoint. Until its completed file is written the table
is between two states, so, as in Apache Hudi, no write starts while a restore is pending
(:func:`check_no_pending_restore`); running the restore again finishes it under the same instant.
Version 1 plans (the only ones this schema holds) do not name the savepoint: it is the newest
completed savepoint before the oldest instant the plan rolls back, as Apache Hudi reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hudi_framework.errors import PendingRestoreError
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.timeline.instant import Action, Instant, State

if TYPE_CHECKING:
    from hudi_framework.timeline.timeline import Timeline

__all__ = ["check_no_pending_restore", "decode_restore_plan", "encode_restore_plan", "restored_savepoint"]


def encode_restore_plan(instants: Sequence[Instant]) -> bytes:
    """The plan rolling back ``instants`` (newest first)."""
    infos = [{"commitTime": i.requested_time, "action": i.action.value} for i in instants]
    return write_container(AvroSchemaName.RESTORE_PLAN, {"instantsToRollback": infos, "version": 1})


def decode_restore_plan(timeline: Timeline, restore: Instant) -> list[tuple[str, str]]:
    """``(time, action)`` of each instant the pending or completed ``restore`` rolls back, newest first."""
    key = timeline.file_key(restore, State.REQUESTED)
    data = timeline.storage.read(key)
    record = read_container(data, path=timeline.storage.uri(key)).record
    return [(str(i["commitTime"]), str(i["action"])) for i in record.get("instantsToRollback") or []]


def restored_savepoint(timeline: Timeline, restore: Instant) -> str:
    """The savepoint ``restore`` brings the table back to ("" if it cannot be told)."""
    planned = decode_restore_plan(timeline, restore)
    if not planned:
        return ""
    oldest = min(t for t, _ in planned)
    before = [s.requested_time for s in timeline.completed({Action.SAVEPOINT}) if s.requested_time < oldest]
    return max(before, default="")


def check_no_pending_restore(timeline: Timeline) -> None:
    """Refuse to go on while a restore is pending (a write would mix with a half-restored table).

    Raises:
        PendingRestoreError: Naming the restore and the savepoint to run it again with.
    """
    pending = timeline.pending({Action.RESTORE})
    if pending:
        restore = pending[0]
        raise PendingRestoreError(restore.requested_time, restored_savepoint(timeline, restore))
