"""What a compaction service plugin sees of the kernel: candidates, the strategy it answers with, the host.

A compaction plugin owns the *strategy*: which file slices one plan compacts, in what order, and
which partitions are worth listing at all (:class:`CompactionSelector`). The kernel owns the
*machinery* (:class:`CompactionHost`): listing the latest slices with log files that no pending
compaction or clustering holds, their metrics, the ``T.compaction.requested`` plan file, merging
each slice, writing the new base files and completing the instant as a ``commit``.

A candidate is one ``HoodieCompactionOperation`` (a file slice with its metrics); strategies read
the metrics named here and return a subset of the candidates they were given, in plan order.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Final, Protocol, TypeVar

__all__ = [
    "TOTAL_IO_MB",
    "TOTAL_IO_READ_MB",
    "TOTAL_IO_WRITE_MB",
    "TOTAL_LOG_FILES",
    "TOTAL_LOG_FILES_SIZE",
    "CandidateT",
    "CompactionCandidate",
    "CompactionHost",
    "CompactionOutcome",
    "CompactionPlanView",
    "CompactionSelector",
]

# Metric names of a plan operation (Java ``CompactionStrategy``'s constants).
#: Log files of the slice.
TOTAL_LOG_FILES: Final = "TOTAL_LOG_FILES"
#: Read plus write IO of compacting the slice, in MB.
TOTAL_IO_MB: Final = "TOTAL_IO_MB"
#: Bytes read (base and log files), in MB.
TOTAL_IO_READ_MB: Final = "TOTAL_IO_READ_MB"
#: Bytes of the slice's log files.
TOTAL_LOG_FILES_SIZE: Final = "TOTAL_LOG_FILES_SIZE"
#: Bytes of the new base file (the old one's size, or ``hoodie.parquet.max.file.size``), in MB.
TOTAL_IO_WRITE_MB: Final = "TOTAL_IO_WRITE_MB"


class CompactionCandidate(Protocol):
    """One file slice a plan may compact (``HoodieCompactionOperation``)."""

    @property
    def partition_path(self) -> str:
        """The file group's partition path."""

    @property
    def file_id(self) -> str:
        """The file group's id."""

    def metric(self, name: str) -> float:
        """A metric (``TOTAL_LOG_FILES``...), 0 when absent."""


#: The candidate type a host hands to a strategy and gets back.
CandidateT = TypeVar("CandidateT", bound=CompactionCandidate)


class CompactionSelector(Protocol):
    """A compaction strategy: the plugin's answer to "which slices does this plan compact"."""

    def filter_partitions(self, partitions: Sequence[str]) -> list[str]:
        """The partitions worth listing, from every partition of the table."""

    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        """The candidates to plan, in plan order (a subset of ``operations``)."""


class CompactionPlanView(Protocol):
    """A compaction plan as a strategy sees it."""

    @property
    def operations(self) -> Sequence[CompactionCandidate]:
        """The planned slices, in plan order."""


class CompactionOutcome(Protocol):
    """What one executed compaction wrote."""

    @property
    def num_writes(self) -> int:
        """Rows in the new base files."""


class CompactionHost(ABC):
    """The kernel's compaction machinery for one table, bound to the session's settings."""

    @abstractmethod
    def compaction_plan(self, selector: CompactionSelector, instant: str) -> CompactionPlanView | None:
        """The plan a compaction at ``instant`` would run with ``selector``, or None when nothing qualifies.

        Raises:
            CompactionPlanError: The table is copy-on-write, or (table version 6) a write is in flight.
            MissingDataFileError: A file of a latest slice is named by the timeline but not in storage.
        """

    @abstractmethod
    def schedule_compaction(self, selector: CompactionSelector, *, instant_time: str | None = None) -> str | None:
        """Plan with ``selector`` and write ``T.compaction.requested``; None when no slice qualifies.

        Raises:
            CompactionPlanError: The table cannot compact now, its record merger is not installed,
                or a write completed while planning.
            IllegalTransitionError: ``instant_time`` is not newer than every instant on the timeline.
        """

    @abstractmethod
    def execute_compaction(self, instant: str, *, skip_corrupt_log_blocks: bool = False) -> CompactionOutcome:
        """Execute the pending compaction ``instant`` and complete it as a ``commit`` (``compacted=true``).

        Args:
            instant: The compaction instant (requested, or inflight after a crash: rolled back first).
            skip_corrupt_log_blocks: Compact slices whose corrupt log blocks may hold committed rows.

        Raises:
            CompactionPlanError: No such pending compaction, or its plan cannot be decoded.
            CompactionExecutionError: An operation failed; its files were deleted, the plan is requested again.
            CompactionCorruptLogError: A corrupt log block may hold committed rows; same cleanup.
        """

    @abstractmethod
    def rollback_compaction(self, instant: str) -> list[str]:
        """Undo a failed or crashed attempt of ``instant`` (the plan stays requested); the data files deleted."""
