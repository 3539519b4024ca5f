"""Instants: (requested time, action, state[, completion time]) and the enums they use."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Action(enum.StrEnum):
    """Timeline actions of the Hudi spec."""

    COMMIT = "commit"
    DELTA_COMMIT = "deltacommit"
    REPLACE_COMMIT = "replacecommit"
    CLUSTERING = "clustering"
    COMPACTION = "compaction"
    LOG_COMPACTION = "logcompaction"
    CLEAN = "clean"
    ROLLBACK = "rollback"
    SAVEPOINT = "savepoint"
    RESTORE = "restore"
    INDEXING = "indexing"
    SCHEMA_COMMIT = "schemacommit"


class State(enum.StrEnum):
    """Lifecycle states of an instant, in order."""

    REQUESTED = "requested"
    INFLIGHT = "inflight"
    COMPLETED = "completed"


#: Actions whose completed instant writes data files (the "commits timeline").
WRITE_ACTIONS: frozenset[Action] = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})


@dataclass(frozen=True, slots=True, order=False)
class Instant:
    """One instant on the timeline.

    Attributes:
        requested_time: The instant time (``yyyyMMddHHmmssSSS``), the identity of the instant.
        action: The action, as named by the instant's *current* file. Pending compactions are
            ``compaction`` and complete as ``commit``; pending clustering (v8+) completes as
            ``replacecommit``; pending log compaction completes as ``deltacommit``.
        state: The instant's state.
        completion_time: Completion time for completed instants (layout 2: from the file name;
            layout 1: the completed file's modification time), else None.
    """

    requested_time: str
    action: Action
    state: State
    completion_time: str | None = None

    @property
    def is_completed(self) -> bool:
        """Whether the instant completed."""
        return self.state is State.COMPLETED

    def sort_key(self) -> tuple[str, int]:
        """Order by requested time, then state."""
        return (self.requested_time, _STATE_ORDER[self.state])

    def __str__(self) -> str:
        done = f" -> {self.completion_time}" if self.completion_time else ""
        return f"[{self.requested_time}{done}] {self.action}.{self.state}"


_STATE_ORDER = {State.REQUESTED: 0, State.INFLIGHT: 1, State.COMPLETED: 2}

#: The action a pending action completes as.
COMPLETES_AS: dict[Action, Action] = {
    Action.COMPACTION: Action.COMMIT,
    Action.CLUSTERING: Action.REPLACE_COMMIT,
    Action.LOG_COMPACTION: Action.DELTA_COMMIT,
}
