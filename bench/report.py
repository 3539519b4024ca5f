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
    Ratio(
        "COW upsert+delete on Spark local[2], excl. start-up: ours / naive Spark",
        "ours-spark:cow_upsert",
        "spark-naive:cow_upsert",
        1.0,
    ),
    Ratio("MOR upsert / COW upsert, 1% batch (ours)", "ours:mor_upsert_1pct", "ours:cow_upsert_1pct", 0.2),
    Ratio("MOR upsert / COW upsert, 13% batch (ours)", "ours:mor_upsert", "ours:cow_upsert"),
    Ratio("COW read: ours / pyarrow", "ours:cow_read", "pyarrow:cow_read", 1.2),
    Ratio("COW read: ours / hudi-rs", "ours:cow_read", "hudi-rs:cow_read", 1.0),
    Ratio("MOR read (batch in logs) / COW read (ours)", "ours:mor_read", "ours:cow_read", 2.0),
    Ratio("bulk insert: ours / pyarrow", "ours:bulk_insert", "pyarrow:bulk_insert"),
    Ratio("bulk insert: ours / deltalake", "ours:bulk_insert", "deltalake:bulk_insert"),
    Ratio("COW read: ours / deltalake", "ours:cow_read", "deltalake:cow_read"),
)


def _optional(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def results_table(results: Sequence[Result]) -> str:
    lines = [
        "| rows | step | median wall s | CPU s | peak RSS MB (Python) | peak RSS MB (JVM + workers) "
        "| session start-up s | runs |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        startup = "-" if r.startup_s is None else f"{r.startup_s:.1f} + {r.warmup_s or 0:.1f}"
        lines.append(
            f"| {r.rows:,} | `{r.key}` | {r.wall_s:.2f} | {r.cpu_s:.2f} | {r.peak_rss_mb:.0f} "
            f"| {_optional(r.jvm_peak_rss_mb, 0)} | {startup} | {r.runs} |"
        )
    return "\n".join(lines)


def harness_table(results: Sequence[Result]) -> str:
    """Seconds the harness spent per system and size (preparing, copying, starting processes, every
    run): what decides which sizes fit a time budget."""
    sizes = sorted({r.rows for r in results})
    systems = list(dict.fromkeys(r.system for r in results))
    lines = ["| system | " + " | ".join(f"{n:,} rows" for n in sizes) + " |", "|---|" + "---:|" * len(sizes)]
    for system in [*systems, "total"]:
        cells = []
        for n in sizes:
            spent = [r.harness_s for r in results if r.rows == n and system in (r.system, "total")]
            cells.append(f"{sum(spent):.0f}" if spent else "-")
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
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
        style = "--" if "spark" in key else "-"  # Spark steps: excluding session start-up
        ax.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", label=key)
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


#: How the figures are taken (docs/benchmarks.md, "Method").
METHOD = """\
- **Data** (`bench/dataset.py`): a deterministic table (string keys, an event-time column `ts`, 8 `region`
  partitions, 8 payload columns of mixed types) and a change batch of 10% updates (higher `ts`), 2% new keys
  and 1% deletes (rows flagged `_hoodie_is_deleted`), shuffled; a separate 1% batch of updates for the
  MOR-versus-COW target. Written once per size as parquet inputs.
- **Runs**: every step runs in its own Python process (`bench/worker.py`), on a fresh copy of its prepared
  state, at least 3 times; the tables show medians. States are prepared once per size (unmeasured) and
  shared by the steps that start from the same one (e.g. the bulk-inserted copy-on-write table).
- **Wall** is `perf_counter` around the step. **CPU** is the process's CPU time plus that of its
  descendants (for Spark: the driver JVM and the Python workers it forks, read from `/proc`).
  **Peak RSS (Python)** is the worker's high-water mark (`ru_maxrss`, inputs included).
  **Peak RSS (JVM + workers)** is the peak of the summed RSS of the worker's descendants, sampled every
  200 ms during the step (the JVM alone is in each run's JSON as `java_peak_rss_mb`).
- **Spark steps** run in a session each run starts in its worker: `local[2]`,
  `spark.sql.shuffle.partitions=2`, `spark.default.parallelism=2`, UI off, the project's base settings
  (`hudi_framework.spark.session`), default JVM options. *Session start-up* (JVM launch and
  `getOrCreate`) and *warm-up* (one two-row `mapInArrow` job, so the Python worker daemon is up) are
  reported as "start-up + warm-up" and are not part of the step's wall time; the session is stopped and
  its JVM awaited after the measurement.
  - `ours-spark:cow_upsert`: `SparkWriteClient.upsert(spark.read.parquet(changes))` into the table the
    local engine bulk-inserted (the state of `ours:cow_upsert`): bloom index, snappy, one commit.
  - `spark-naive:cow_upsert`, the floor for a Spark job: `spark.read.parquet` of the same data as
    hive-partitioned files (the pyarrow baseline's layout), a full outer join with the batch on `id`, the
    batch's columns wherever the key is in the batch, rows whose batch version is a delete dropped,
    `write.partitionBy("region").parquet` into a new directory (Spark cannot overwrite a path it reads).
    No ordering check, index, file groups or commit.
- **Peak RSS (Python)** was `ru_maxrss` before 2026-11-22, which Linux carries across `exec`: small steps
  then showed the harness's own peak (e.g. 260/322 MB at 100k/300k rows) instead of theirs.
- **Harness time** is what the harness spent per system and size: preparing and copying states, process
  and session start-ups and every run. It decides which sizes fit the ~15-minute budget: by default
  `python -m bench run` measures 500,000 rows only; 2M and 8M rows (`--sizes 500000,2000000,8000000`, or
  `--only` a few systems) take a multiple of it, most of the harness time growing with rows.
"""


def markdown(
    results: Sequence[Result], *, machine: str, command: str, skipped: Sequence[str], plot_file: str | None
) -> str:
    parts = [
        "# Benchmarks",
        "",
        f"Measured with `{command}` on {machine}. Each step ran in its own process on a fresh copy of its",
        "prepared state; figures are medians. Ratios compare medians of the same run.",
        "",
        'To reproduce: `python -m pip install -e ".[bench]"`, then `python -m bench run`',
        "(`--sizes a,b,c` for other sizes, `--quick` for a smoke run, `--out docs/benchmarks.md`).",
        "",
        "## Targets",
        "",
        ratios_table(results),
        "",
        "## All steps",
        "",
        results_table(results),
        "",
        "## Harness time (seconds)",
        "",
        harness_table(results),
    ]
    if plot_file:
        parts += ["", "## Time against rows", "", f"![time against rows]({plot_file})"]
    if skipped:
        parts += ["", "Skipped (not installed): " + ", ".join(skipped)]
    parts += ["", "## Method", "", METHOD.rstrip()]
    return "\n".join(parts) + "\n"
