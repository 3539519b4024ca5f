"""The scaling section: how an upsert's time and memory grow with the table, and the verdicts.

The table grows (default 0.5M, 2M, 8M rows) while the file-group size and the change batch stay
fixed (:class:`~bench.dataset.ScalingShape`): the batch touches every file group, so an upsert
rewrites the whole table and its time should grow linearly with rows, while its memory should
follow the largest file group rewritten, which does not grow.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.dataset import ScalingShape, generate_scaling
from bench.runner import Result, run_all
from bench.step import Step


@dataclass(frozen=True)
class ScalingPlan:
    """Sizes and shape of one scaling run."""

    sizes: tuple[int, ...]
    shape: ScalingShape


#: 62,500 rows per file group: 1, 4 and 16 full file groups per partition (8 partitions) at the three sizes.
DEFAULT_PLAN = ScalingPlan((500_000, 2_000_000, 8_000_000), ScalingShape(file_group_rows=62_500, batch_rows=50_000))
#: The smoke test's: the same proportions at tiny sizes.
QUICK_PLAN = ScalingPlan((10_000, 20_000, 40_000), ScalingShape(file_group_rows=1_250, batch_rows=1_000))
#: Scaling steps run unless ``--only`` names another one: the upserts the targets are about.
DEFAULT_STEP_NAMES = ("scale_cow_upsert",)

#: "Time grows linearly": wall time per row at the largest size is at most this times that at the
#: next size down (fixed costs make smaller sizes dearer per row, so the smallest is not compared).
LINEAR_TIME_LIMIT = 1.3
#: "Memory does not grow with the table": peak RSS at the largest size is at most this times that
#: at the smallest (the default table grows 16x between them).
FLAT_MEMORY_LIMIT = 1.3


def select(steps: dict[str, Step], only: Sequence[str] | None) -> list[Step]:
    """The scaling steps to run: the default ones (of the systems ``only`` names, if given), plus any
    ``only`` names by key or step name (``ours:scale_cow_read``, ``scale_bulk_insert``)."""
    wanted = set(only or ())
    chosen = []
    for step in steps.values():
        default = step.name in DEFAULT_STEP_NAMES and (not wanted or step.system in wanted)
        if default or step.key in wanted or step.name in wanted:
            chosen.append(step)
    return chosen


def run_scaling(
    steps: Sequence[Step], plan: ScalingPlan, scratch: Path, repeat: int, log: Callable[[str], None] = print
) -> list[Result]:
    """Every step at every size of ``plan``, on inputs generated per size (removed after it)."""
    results: list[Result] = []
    for rows in plan.sizes:
        log(f"== scaling: {rows:,} rows, {plan.shape.file_group_rows:,}-row file groups, "
            f"{plan.shape.batch_rows:,}-row batch")  # fmt: skip
        root = scratch / f"scaling-{rows}"
        try:
            inputs = generate_scaling(root / "inputs", rows, plan.shape)
            results += run_all(steps, inputs, root / "work", rows, repeat, log)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return results


@dataclass(frozen=True)
class Growth:
    """How one step's cost grows across the sizes measured (None: fewer than two sizes)."""

    key: str
    time_ratio: float | None  #: wall per row, largest size / next size down
    cpu_ratio: float | None  #: the same on CPU time (steadier on a loaded machine)
    memory_ratio: float | None  #: peak RSS, largest size / smallest
    rows_ratio: float | None  #: rows, largest size / smallest

    @property
    def time_linear(self) -> bool | None:
        return None if self.time_ratio is None else self.time_ratio <= LINEAR_TIME_LIMIT

    @property
    def memory_flat(self) -> bool | None:
        return None if self.memory_ratio is None else self.memory_ratio <= FLAT_MEMORY_LIMIT


def growth(results: Sequence[Result]) -> list[Growth]:
    """The growth of every step in ``results``, in first-seen order."""
    out = []
    for key in dict.fromkeys(r.key for r in results):
        by_rows = sorted((r for r in results if r.key == key), key=lambda r: r.rows)
        if len(by_rows) < 2:
            out.append(Growth(key, None, None, None, None))
            continue
        small, prev, last = by_rows[0], by_rows[-2], by_rows[-1]
        out.append(
            Growth(
                key,
                time_ratio=_per_row_ratio(last.wall_s, last.rows, prev.wall_s, prev.rows),
                cpu_ratio=_per_row_ratio(last.cpu_s, last.rows, prev.cpu_s, prev.rows),
                memory_ratio=last.peak_rss_mb / small.peak_rss_mb if small.peak_rss_mb > 0 else None,
                rows_ratio=last.rows / small.rows,
            )
        )
    return out


def _per_row_ratio(value: float, rows: int, ref_value: float, ref_rows: int) -> float | None:
    if ref_value <= 0 or rows <= 0 or ref_rows <= 0:
        return None
    return (value / rows) / (ref_value / ref_rows)
