"""Turns results into the comparison table, the targets verdicts, a plot and docs/benchmarks.md."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.runner import Result


@dataclass(frozen=True)
class Ratio:
    """``numerator / denominator`` of two steps' median wall times, and the target it is held to."""

    label: str
    numerator: str
    denominator: str
    target: float | None = None  #: the ratio must be at most this (None: reported only)

    def value(self, by_key: dict[str, Result]) -> float | None:
        num, den = by_key.get(self.numerator), by_key.get(self.denominator)
        if num is None or den is None or den.wall_s <= 0:
            return None
        return num.wall_s / den.wall_s


#: The issue's targets, as ratios of medians measured in the same run.
RATIOS = (
    Ratio("COW upsert+delete: ours / pyarrow floor", "ours:cow_upsert", "pyarrow:cow_upsert", 1.5),
    Ratio("COW upsert+delete: ours / deltalake MERGE", "ours:cow_upsert", "deltalake:cow_upsert", 1.0),
    Ratio("COW upsert+delete: ours / pyiceberg", "ours:cow_upsert", "pyiceberg:cow_upsert"),
    Ratio("MOR upsert / COW upsert, 1% batch (ours)", "ours:mor_upsert_1pct", "ours:cow_upsert_1pct", 0.2),
    Ratio("MOR upsert / COW upsert, 13% batch (ours)", "ours:mor_upsert", "ours:cow_upsert"),
    Ratio("COW read: ours / pyarrow", "ours:cow_read", "pyarrow:cow_read", 1.2),
    Ratio("COW read: ours / hudi-rs", "ours:cow_read", "hudi-rs:cow_read", 1.0),
    Ratio("MOR read (batch in logs) / COW read (ours)", "ours:mor_read", "ours:cow_read", 2.0),
    Ratio("bulk insert: ours / pyarrow", "ours:bulk_insert", "pyarrow:bulk_insert"),
    Ratio("bulk insert: ours / deltalake", "ours:bulk_insert", "deltalake:bulk_insert"),
    Ratio("COW read: ours / deltalake", "ours:cow_read", "deltalake:cow_read"),
)


def results_table(results: Sequence[Result]) -> str:
    lines = [
        "| rows | step | median wall s | CPU s | peak RSS MB | runs |",
        "|---:|---|---:|---:|---:|---:|",
    ]
    for r in results:
        lines.append(f"| {r.rows:,} | `{r.key}` | {r.wall_s:.2f} | {r.cpu_s:.2f} | {r.peak_rss_mb:.0f} | {r.runs} |")
    return "\n".join(lines)


def ratios_table(results: Sequence[Result]) -> str:
    sizes = sorted({r.rows for r in results})
    header = "| ratio | target | " + " | ".join(f"{n:,} rows" for n in sizes) + " |"
    lines = [header, "|---|---|" + "---:|" * len(sizes)]
    for ratio in RATIOS:
        cells = []
        for n in sizes:
            value = ratio.value({r.key: r for r in results if r.rows == n})
            if value is None:
                cells.append("n/a")
            elif ratio.target is None:
                cells.append(f"{value:.2f}")
            else:
                cells.append(f"{value:.2f} {'met' if value <= ratio.target else '**not met**'}")
        target = f"<= {ratio.target}" if ratio.target is not None else "-"
        lines.append(f"| {ratio.label} | {target} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(results: Sequence[Result], path: Path) -> bool:
    """Wall time against rows, one line per step; False when there is only one size (nothing to plot)."""
    sizes = sorted({r.rows for r in results})
    if len(sizes) < 2:
        return False
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6))
    for key in sorted({r.key for r in results}):
        points = sorted((r.rows, r.wall_s) for r in results if r.key == key)
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=key)
    ax.set_xlabel("rows")
    ax.set_ylabel("median wall time (s)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def markdown(
    results: Sequence[Result], *, machine: str, command: str, skipped: Sequence[str], plot_file: str | None
) -> str:
    parts = [
        "# Benchmarks",
        "",
        f"Measured with `{command}` on {machine}. Each step ran in its own process on a fresh copy of its",
        "prepared state; figures are medians. Ratios compare medians of the same run.",
        "",
        "To reproduce: `python -m pip install -e \".[bench]\"`, then `python -m bench run --rows 2000000`",
        "(`--sizes a,b,c` for several sizes and the plot, `--quick` for a smoke run, `--out docs/benchmarks.md`).",
        "",
        "## Targets",
        "",
        ratios_table(results),
        "",
        "## All steps",
        "",
        results_table(results),
    ]
    if plot_file:
        parts += ["", "## Time against rows", "", f"![time against rows]({plot_file})"]
    if skipped:
        parts += ["", "Skipped (not installed): " + ", ".join(skipped)]
    return "\n".join(parts) + "\n"
