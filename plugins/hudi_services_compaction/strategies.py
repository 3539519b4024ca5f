"""Compaction strategies: which file slices one plan compacts, and in what order.

Each strategy mirrors the Apache Hudi class of the same role (names in ``NAMES_BY_CLASS`` are
accepted through ``hoodie.compaction.strategy``). A strategy sees the candidate operations (every
latest file slice with log files and no pending compaction or clustering, with its metrics) and
returns the ones to plan; it may also narrow the partitions that are listed at all.
"""

from __future__ import annotations

import datetime as dt
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import ClassVar, Final

from hudi_framework.contracts.compaction import TOTAL_IO_MB, TOTAL_LOG_FILES, TOTAL_LOG_FILES_SIZE, CandidateT
from hudi_framework.errors import CompactionPlanError, UnknownComponentError
from hudi_services_compaction.options import CompactionServiceOptions


class CompactionStrategy(ABC):
    """Orders and filters candidate operations; stateless (a contract ``CompactionSelector``)."""

    #: Registered name (``services.compaction.strategy``).
    name: ClassVar[str] = ""

    def __init__(self, settings: CompactionServiceOptions) -> None:
        """Bind the strategy to the service's options (thresholds, IO budget...)."""
        self.settings = settings

    def filter_partitions(self, partitions: Sequence[str]) -> list[str]:
        """Partitions worth listing (all by default)."""
        return list(partitions)

    @abstractmethod
    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        """The operations to plan, in plan order."""


class UnboundedStrategy(CompactionStrategy):
    """Every candidate (``UnBoundedCompactionStrategy``)."""

    name = "unbounded"

    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        """All operations, in listing order."""
        return list(operations)


class BoundedIOStrategy(CompactionStrategy):
    """Operations in order until their ``TOTAL_IO_MB`` reaches ``target_io_mb`` (``BoundedIOCompactionStrategy``).

    The operation that crosses the budget is still included, as in Java.
    """

    name = "bounded-io"

    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        """A prefix of ``operations`` within the IO budget."""
        remaining = self.settings.target_io_mb
        out: list[CandidateT] = []
        for op in operations:
            remaining -= int(op.metric(TOTAL_IO_MB))
            out.append(op)
            if remaining <= 0:
                break
        return out


class LogFileSizeStrategy(BoundedIOStrategy):
    """Largest total log size first, at least ``logfile_size_threshold_bytes``, within the IO budget.

    Apache Hudi's default (``LogFileSizeBasedCompactionStrategy``).
    """

    name = "log-file-size"

    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        """Filter by threshold, sort by log size descending (stable), then bound the IO."""
        threshold = self.settings.logfile_size_threshold_bytes
        kept = [op for op in operations if op.metric(TOTAL_LOG_FILES_SIZE) >= threshold]
        kept.sort(key=lambda op: -int(op.metric(TOTAL_LOG_FILES_SIZE)))
        return super().order_and_filter(kept)


class LogFileNumStrategy(BoundedIOStrategy):
    """Most log files first, at least ``logfile_num_threshold``, within the IO budget.

    ``LogFileNumBasedCompactionStrategy``.
    """

    name = "log-file-num"

    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        """Filter by threshold, sort by log file count descending (stable), then bound the IO."""
        threshold = self.settings.logfile_num_threshold
        kept = [op for op in operations if op.metric(TOTAL_LOG_FILES) >= threshold]
        kept.sort(key=lambda op: -int(op.metric(TOTAL_LOG_FILES)))
        return super().order_and_filter(kept)


_HIVE_KEY: Final = re.compile(r"(^|/)[^/=]*=")


def partition_date(partition: str) -> dt.date:
    """The date of a ``yyyy/MM/dd`` partition (hive-style ``year=2024/month=01/day=02`` too).

    Like Java's lenient ``SimpleDateFormat`` parse, text after the day is ignored.

    Raises:
        CompactionPlanError: The partition path does not start with a date.
    """
    plain = _HIVE_KEY.sub(lambda m: m.group(1), partition)
    match = re.match(r"(\d{1,4})/(\d{1,2})/(\d{1,2})", plain)
    if match is None:
        raise CompactionPlanError("", f"day-based strategy: partition {partition!r} is not a yyyy/MM/dd date")
    try:
        return dt.date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError as e:
        raise CompactionPlanError("", f"day-based strategy: partition {partition!r}: {e}") from None


class DayBasedStrategy(CompactionStrategy):
    """The latest ``daybased_target_partitions`` date partitions (``DayBasedCompactionStrategy``).

    Partition paths must be ``yyyy/MM/dd`` dates (hive-style keys allowed).
    """

    name = "day-based"

    def filter_partitions(self, partitions: Sequence[str]) -> list[str]:
        """The latest partitions by name, as Java's reverse string order of ``yyyy-MM-dd``."""
        ordered = sorted(partitions, key=lambda p: p.replace("/", "-"), reverse=True)
        return ordered[: self.settings.daybased_target_partitions]

    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        """Operations of the newest partitions by date, newest partition first."""
        groups: dict[str, list[CandidateT]] = {}
        for op in operations:
            groups.setdefault(op.partition_path, []).append(op)
        dates = {p: partition_date(p) for p in groups}
        newest = sorted(groups, key=lambda p: dates[p], reverse=True)[: self.settings.daybased_target_partitions]
        return [op for p in newest for op in groups[p]]


#: Strategies by registered name.
STRATEGIES: Final[Mapping[str, type[CompactionStrategy]]] = MappingProxyType(
    {
        cls.name: cls
        for cls in (LogFileSizeStrategy, LogFileNumStrategy, BoundedIOStrategy, UnboundedStrategy, DayBasedStrategy)
    }
)


def build_strategy(settings: CompactionServiceOptions) -> CompactionStrategy:
    """The strategy ``settings.strategy`` names (Apache Hudi class names were mapped on load).

    Raises:
        UnknownComponentError: No such strategy.
    """
    cls = STRATEGIES.get(settings.strategy.name)
    if cls is None:
        raise UnknownComponentError("compaction strategy", settings.strategy.name, sorted(STRATEGIES))
    return cls(settings)
