"""Packing read tasks into engine splits: few enough that small files do not each pay a task's fixed
cost, many enough to keep every slot busy.

The sizing follows Spark's file sources (``spark.sql.files.maxPartitionBytes``,
``spark.sql.files.openCostInBytes``, ``spark.sql.files.minPartitionNum`` or the default parallelism):
every task weighs its bytes plus an "open cost", and a split holds at most
``max(open_cost, total_weight / min_splits)`` capped at ``max_split_bytes``. Spark fills splits
next-fit in decreasing size, which can put every large file in one split; here tasks go, largest
first, to the lightest of the splits that bound calls for, so splits come out balanced, and a split
exceeds ``max_split_bytes`` only when one task alone does.
"""

from __future__ import annotations

import heapq
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

__all__ = ["DEFAULT_MAX_SPLIT_BYTES", "DEFAULT_OPEN_COST_BYTES", "SplitSizing", "pack_tasks"]

#: Spark's ``spark.sql.files.maxPartitionBytes`` default.
DEFAULT_MAX_SPLIT_BYTES = 128 * 1024 * 1024
#: Spark's ``spark.sql.files.openCostInBytes`` default: what opening a file costs, in bytes read.
DEFAULT_OPEN_COST_BYTES = 4 * 1024 * 1024


class _Sized(Protocol):
    @property
    def file_size(self) -> int | None: ...


T = TypeVar("T", bound=_Sized)


@dataclass(frozen=True, slots=True)
class SplitSizing:
    """How an engine wants read tasks grouped.

    Attributes:
        max_split_bytes: The most bytes (open costs included) one split should read.
        open_cost_bytes: The fixed cost of one task, counted as bytes.
        min_splits: Splits to aim for at least (the engine's parallelism); None: this machine's CPUs.
    """

    max_split_bytes: int = DEFAULT_MAX_SPLIT_BYTES
    open_cost_bytes: int = DEFAULT_OPEN_COST_BYTES
    min_splits: int | None = None

    def __post_init__(self) -> None:
        if self.max_split_bytes <= 0 or self.open_cost_bytes < 0:
            raise ValueError("max_split_bytes must be positive and open_cost_bytes not negative")
        if self.min_splits is not None and self.min_splits <= 0:
            raise ValueError("min_splits must be positive")

    def split_bytes(self, total_weight: int) -> int:
        """The target weight of one split for tasks weighing ``total_weight`` in all."""
        parallelism = self.min_splits or os.cpu_count() or 1
        # Rounded up: ``parallelism`` splits of this weight hold ``total_weight``.
        per_split = -(-total_weight // parallelism)
        return max(1, min(self.max_split_bytes, max(self.open_cost_bytes, per_split)))


def pack_tasks(tasks: Sequence[T], sizing: SplitSizing) -> list[list[T]]:
    """Group ``tasks`` into balanced splits, each task in exactly one.

    A task without a known size weighs its open cost alone. Within a split, tasks keep the plan's
    order; splits are ordered by their first task, so the result is deterministic.
    """
    if not tasks:
        return []
    weights = [(t.file_size or 0) + sizing.open_cost_bytes for t in tasks]
    total = sum(weights)
    bound = sizing.split_bytes(total)
    count = min(len(tasks), max(1, math.ceil(total / bound)))
    # Largest first to the lightest split (LPT, within 4/3 of the best balance); a task the lightest
    # split cannot take within the maximum opens a split of its own.
    heap = [(0, split) for split in range(count)]
    members: list[list[int]] = [[] for _ in range(count)]
    for index in sorted(range(len(tasks)), key=lambda i: (-weights[i], i)):
        load, split = heap[0]
        if load and load + weights[index] > sizing.max_split_bytes:
            split = len(members)
            members.append([])
            heapq.heappush(heap, (weights[index], split))
        else:
            heapq.heapreplace(heap, (load + weights[index], split))
        members[split].append(index)
    groups = sorted((sorted(m) for m in members if m), key=lambda m: m[0])
    return [[tasks[i] for i in group] for group in groups]
