"""What a cleaning service plugin sees of the kernel: the clean planner's inputs, its decision, the host.

A cleaning plugin owns the *policy*: which commit the retained history starts from, which file
slices of each file group go, when a clean is due. It reads the table through :class:`CleanHost`
(commits, the last clean, savepoints, pending compactions, file groups with their slices) and
answers with a :class:`CleanDecision`. The kernel owns the *machinery*: the Avro
``HoodieCleanerPlan`` written as ``T.clean.requested``, deleting the files, the
``HoodieCleanMetadata`` of the completed ``clean``, the table lock, and rolling back failed writes.

The objects handed out (instants, slices, file groups, savepoints) are read-only views; the
kernel's own types satisfy these protocols.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

__all__ = [
    "CleanDecision",
    "CleanHost",
    "CleanOutcome",
    "CleanerPlanView",
    "LastClean",
    "ServiceFileGroup",
    "ServiceFileSlice",
    "ServiceInstant",
    "ServiceSavepoint",
]


class ServiceInstant(Protocol):
    """An instant on the timeline."""

    @property
    def requested_time(self) -> str:
        """Its instant time."""

    @property
    def action(self) -> str:
        """Its action (``commit``, ``deltacommit``, ``replacecommit``...)."""

    @property
    def is_pending(self) -> bool:
        """Whether it is requested or inflight."""


class ServiceFileSlice(Protocol):
    """One file slice: a base file (or none) and the log files written on it."""

    @property
    def file_group_id(self) -> Hashable:
        """Its file group (partition and file id)."""

    @property
    def base_instant_time(self) -> str:
        """The instant that started the slice."""

    @property
    def base_file_name(self) -> str | None:
        """The base file's name, None for a slice of log files only."""

    @property
    def log_file_names(self) -> Sequence[str]:
        """The log files' names, oldest first."""

    @property
    def base_file_key(self) -> str | None:
        """The base file's storage key (``partition/name``)."""

    @property
    def log_file_keys(self) -> Sequence[str]:
        """The log files' storage keys, oldest first."""


class ServiceFileGroup(Protocol):
    """One file group with its committed slices."""

    @property
    def slices(self) -> Sequence[ServiceFileSlice]:
        """Its slices, oldest first (a pending compaction's slice included)."""

    @property
    def replaced_by(self) -> str | None:
        """The completed replacecommit that replaced the group, None while it is live."""


class ServiceSavepoint(Protocol):
    """A completed savepoint."""

    @property
    def instant_time(self) -> str:
        """The savepointed commit's time."""

    @property
    def files(self) -> Mapping[str, Sequence[str]]:
        """Partition -> names of the data files it keeps."""


@dataclass(frozen=True, slots=True)
class LastClean:
    """What the newest completed clean recorded.

    Attributes:
        earliest_commit_to_retain: Requested time of the commit it retained history from ("" if none).
        savepointed_timestamps: The savepoints its plan kept.
    """

    earliest_commit_to_retain: str
    savepointed_timestamps: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CleanDecision:
    """A policy's answer: what one clean deletes.

    Attributes:
        policy: The policy name written into the plan (``KEEP_LATEST_COMMITS``...).
        earliest_to_retain: The commit the retained history starts from, None when none applies.
        last_completed_commit: Requested time of the newest completed commit ("" if none).
        files: Partition -> storage keys to delete; every partition looked at is listed, even
            with nothing to delete.
        savepointed_times: The savepoints the decision honoured.
    """

    policy: str
    earliest_to_retain: ServiceInstant | None
    last_completed_commit: str
    files: Mapping[str, Sequence[str]] = field(default_factory=dict)
    savepointed_times: Sequence[str] = ()

    @property
    def file_count(self) -> int:
        """Files to delete."""
        return sum(len(keys) for keys in self.files.values())


class CleanerPlanView(Protocol):
    """A cleaner plan (``HoodieCleanerPlan``) as the kernel wrote or would write it."""

    @property
    def file_count(self) -> int:
        """Files the plan deletes."""


class CleanOutcome(Protocol):
    """What one executed clean did."""

    @property
    def deleted(self) -> int:
        """Files deleted."""


class CleanHost(ABC):
    """The kernel's side of cleaning one table, bound to the session's settings."""

    # ---------------------------------------------------------------- the planner's inputs
    @abstractmethod
    def commits(self, *, include_pending: bool = False) -> Sequence[ServiceInstant]:
        """The commits timeline: completed commit, deltacommit and replacecommit instants, oldest first.

        Args:
            include_pending: Also pending writes, compactions and clusterings.
        """

    @abstractmethod
    def latest_completed_commit(self) -> ServiceInstant | None:
        """The newest completed instant of the commits timeline."""

    @abstractmethod
    def instant_time_before(self, now: dt.datetime, hours: int) -> str:
        """The instant time ``hours`` before ``now`` (aware), in the timeline's time zone."""

    @abstractmethod
    def last_clean(self) -> LastClean | None:
        """What the newest completed clean recorded, None without one (or with empty metadata)."""

    @abstractmethod
    def partitions_written(self, commit: ServiceInstant) -> set[str]:
        """Partitions a completed commit wrote or replaced files in (from its metadata)."""

    @abstractmethod
    def savepoints(self) -> Sequence[ServiceSavepoint]:
        """Every completed savepoint, oldest first."""

    @abstractmethod
    def pending_compaction_bases(self) -> Mapping[Hashable, str]:
        """File group -> base instant of the slice a pending compaction or log compaction reads."""

    @abstractmethod
    def file_groups(self, partitions: Sequence[str] | None = None) -> Mapping[str, Sequence[ServiceFileGroup]]:
        """Partition -> its file groups, replaced ones included (every partition when None).

        Only committed files are listed: files of pending instants (an inflight write, a pending
        compaction's new base file) are never handed out.
        """

    @abstractmethod
    def commits_since_last_clean(self) -> int:
        """Completed commits after the newest commit the last completed clean saw (all without a clean)."""

    # ---------------------------------------------------------------- the machinery
    @abstractmethod
    def cleaner_plan(self, decision: CleanDecision) -> CleanerPlanView:
        """The ``HoodieCleanerPlan`` that writes ``decision`` (nothing is written)."""

    @abstractmethod
    def request_clean(self, decision: CleanDecision, *, instant_time: str | None = None) -> str:
        """Write ``decision`` as ``T.clean.requested``; return the clean instant.

        Raises:
            IllegalTransitionError: ``instant_time`` is not newer than every instant on the timeline.
        """

    @abstractmethod
    def pending_cleans(self) -> list[str]:
        """Instants of pending cleans (a crashed run), oldest first."""

    @abstractmethod
    def execute_clean(self, instant: str) -> CleanOutcome:
        """Delete the files of the pending clean ``instant`` and complete it (under the lock with OCC).

        Raises:
            CleanError: No such pending clean.
            LockAcquireTimeoutError, LockLostError: The table lock could not be taken or was lost.
        """

    @property
    @abstractmethod
    def lazy_failed_writes(self) -> bool:
        """Whether failed writes are rolled back by the cleaner (the ``LAZY`` policy)."""

    @abstractmethod
    def rollback_failed_writes(self) -> Sequence[object]:
        """Roll back writes whose heartbeat expired (``LAZY`` only; nothing otherwise); one result per write."""

    @abstractmethod
    def sweep_leftovers(self) -> None:
        """Remove what is safe under every policy: leftovers of completed writes, half-written metadata files."""
