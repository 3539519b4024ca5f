"""What a clustering service plugin sees of the kernel: candidates, the groups it plans, the host.

A clustering plugin owns the *plan strategy*: which file slices are worth rewriting, how they are
grouped (each group becomes new file groups of one partition), how many file groups each group is
written into, and the parameters the execution runs with (sort columns and order), which travel
in the plan (:class:`ClusteringSelector`). The kernel owns the *machinery*
(:class:`ClusteringHost`): listing the latest file slices no pending compaction, log compaction or
clustering holds, the requested plan file, reading each group's rows (log files merged), sorting
them, writing the new base files and completing the instant as a ``replacecommit`` that replaces
the input file groups.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

__all__ = [
    "ClusteringCandidate",
    "ClusteringCandidateT",
    "ClusteringHost",
    "ClusteringOutcome",
    "ClusteringPlanView",
    "ClusteringSelector",
    "PlannedGroup",
]


class ClusteringCandidate(Protocol):
    """One latest file slice a clustering plan may rewrite."""

    @property
    def partition_path(self) -> str:
        """The file group's partition path."""

    @property
    def file_id(self) -> str:
        """The file group's id."""

    @property
    def base_file_size(self) -> int | None:
        """Bytes of the slice's base file; None for a slice of log files only."""

    @property
    def estimated_size(self) -> int:
        """The base file's bytes, or ``hoodie.parquet.max.file.size`` for a slice without one (as Java)."""


#: The candidate type a host hands to a strategy and gets back.
ClusteringCandidateT = TypeVar("ClusteringCandidateT", bound=ClusteringCandidate)


@dataclass(frozen=True, slots=True)
class PlannedGroup(Generic[ClusteringCandidateT]):
    """One input group of a plan: candidates of one partition, rewritten into ``num_output_file_groups``.

    Attributes:
        slices: The candidates, in the order their rows are read.
        num_output_file_groups: New file groups the group's rows are written into (at least 1).
    """

    slices: tuple[ClusteringCandidateT, ...]
    num_output_file_groups: int = 1


class ClusteringSelector(Protocol):
    """A clustering plan strategy: the plugin's answer to "what does this plan rewrite, and how"."""

    def filter_partitions(self, partitions: Sequence[str]) -> list[str]:
        """The partitions worth listing, from every partition of the table."""

    def plan_groups(
        self, candidates: Mapping[str, Sequence[ClusteringCandidateT]]
    ) -> list[PlannedGroup[ClusteringCandidateT]]:
        """The input groups of the plan, in plan order, from the candidates of each listed partition."""

    def strategy_params(self) -> dict[str, str]:
        """Parameters the execution runs with, stored in the plan (sort columns and order)."""

    @property
    def preserve_hoodie_metadata(self) -> bool:
        """Whether rewritten rows keep their ``_hoodie_commit_time`` and sequence number."""


class ClusteringPlanView(Protocol):
    """A clustering plan as a strategy sees it."""

    @property
    def sort_columns(self) -> tuple[str, ...]:
        """The columns the execution sorts rows by."""


class ClusteringOutcome(Protocol):
    """What one executed clustering wrote."""

    @property
    def num_writes(self) -> int:
        """Rows in the new base files."""


class ClusteringHost(ABC):
    """The kernel's clustering machinery for one table, bound to the session's settings."""

    @abstractmethod
    def clustering_plan(self, selector: ClusteringSelector, instant: str) -> ClusteringPlanView | None:
        """The plan a clustering at ``instant`` would run with ``selector``, or None when nothing qualifies.

        Raises:
            MissingDataFileError: A file of a latest slice is named by the timeline but not in storage.
        """

    @abstractmethod
    def schedule_clustering(self, selector: ClusteringSelector, *, instant_time: str | None = None) -> str | None:
        """Plan with ``selector`` and write the requested clustering; None when nothing qualifies.

        Raises:
            ClusteringPlanError: The table cannot be clustered now.
            IllegalTransitionError: ``instant_time`` is not newer than every instant on the timeline.
        """

    @abstractmethod
    def execute_clustering(self, instant: str) -> ClusteringOutcome:
        """Execute the pending clustering ``instant`` and complete it as a ``replacecommit``.

        Raises:
            ClusteringPlanError: No such pending clustering, or its plan cannot be decoded.
            ClusteringExecutionError: A group failed; its files were deleted, the plan is requested again.
            WriteConflictError: Under optimistic concurrency control, a write completed since the
                clustering was scheduled touched one of its file groups; same cleanup.
        """

    @abstractmethod
    def rollback_clustering(self, instant: str) -> list[str]:
        """Undo a failed or crashed attempt of ``instant`` (the plan stays requested); the data files deleted."""

    @abstractmethod
    def pending_clustering(self) -> list[str]:
        """Pending clustering instants, oldest first (the table is re-read)."""
