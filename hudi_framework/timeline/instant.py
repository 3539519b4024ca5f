"""Instants: (requested time, action, state[, completion time]) and the enums they use."""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final


class Action(enum.StrEnum):
    """Timeline actions of the Hudi spec (``HoodieTimeline`` constants)."""

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

    @property
    def completes_as(self) -> Action:
        """The action of the completed instant (compaction completes as ``commit`` and so on)."""
        return COMPLETES_AS.get(self, self)


class State(enum.StrEnum):
    """Lifecycle states of an instant, in order."""

    REQUESTED = "requested"
    INFLIGHT = "inflight"
    COMPLETED = "completed"

    @property
    def rank(self) -> int:
        """Position in the lifecycle: requested 0, inflight 1, completed 2."""
        return _STATE_RANK[self]


_STATE_RANK: Final = MappingProxyType({State.REQUESTED: 0, State.INFLIGHT: 1, State.COMPLETED: 2})

#: Actions whose completed instant writes data files (the "commits timeline").
WRITE_ACTIONS: frozenset[Action] = frozenset({Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT})

#: The action a pending action completes as.
COMPLETES_AS: Final = MappingProxyType(
    {
        Action.COMPACTION: Action.COMMIT,
        Action.CLUSTERING: Action.REPLACE_COMMIT,
        Action.LOG_COMPACTION: Action.DELTA_COMMIT,
    }
)

#: Actions that start in the inflight state, with no requested file (``HoodieTimeline``).
NO_REQUESTED_STATE: frozenset[Action] = frozenset({Action.SAVEPOINT})


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

    @property
    def is_pending(self) -> bool:
        """Whether the instant is requested or inflight."""
        return self.state is not State.COMPLETED

    @property
    def comparable_action(self) -> Action:
        """The action after completion; the same for every state of one instant."""
        return self.action.completes_as

    def sort_key(self) -> tuple[str, int]:
        """Order by requested time, then state."""
        return (self.requested_time, self.state.rank)

    def with_state(self, state: State, completion_time: str | None = None) -> Instant:
        """A copy in another state; completing also switches to the completed action."""
        action = self.action.completes_as if state is State.COMPLETED else self.action
        return dataclasses.replace(self, action=action, state=state, completion_time=completion_time)

    def __str__(self) -> str:
        """``[T -> C] action.state``, as in logs and the CLI."""
        done = f" -> {self.completion_time}" if self.completion_time else ""
        return f"[{self.requested_time}{done}] {self.action}.{self.state}"
