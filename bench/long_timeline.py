"""``python -m bench.long_timeline [--commits N] [--rows R] [--window W] [--out DIR]``: a table
written by ``N`` small upserts (``R`` rows each, local engine, copy-on-write v9 with the metadata
table and cleaning at their defaults), with archival at Apache Hudi's defaults (on, keep 20..30
commits) and with archival off, in the same run.

For each, at commit 50 and at commit ``N``: the CPU and wall time of opening the table (``HudiTable.open``
plus loading its timeline), the CPU and wall time of one upsert (medians of the ``W`` commits ending
there), and the active timeline's length. The baseline is the same table's own figures at commit 50:
a table that lives for years must stay as fast as it was when young (the ratio at commit ``N``
against commit 50; the target with archival is at most 1.2). Prints a Markdown table
(docs/benchmarks.md, "A thousand commits").
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

EARLY = 50
CITIES = ("sf", "ny", "la", "sea")


@dataclass
class Series:
    """Per-commit figures of one table."""

    label: str
    upsert_cpu: list[float] = field(default_factory=list)
    upsert_wall: list[float] = field(default_factory=list)
    open_at: dict[int, tuple[float, float, int]] = field(default_factory=dict)


def _batch(n: int, rows: int, keys: int) -> pa.Table:
    ids = [(n * rows + i) % keys for i in range(rows)]
    return pa.table(
        {
            "id": [f"k{i:06d}" for i in ids],
            "city": [CITIES[i % len(CITIES)] for i in ids],
            "ts": [n] * rows,
            "v": [float(n)] * rows,
        }
    )


def _open(path: str) -> tuple[float, float, int]:
    """CPU and wall seconds of opening the table and loading its timeline; its active commits."""
    c0, w0 = time.process_time(), time.perf_counter()
    table = HudiTable.open(path)
    active = len(table.timeline.commits_timeline())
    return time.process_time() - c0, time.perf_counter() - w0, active


def run(label: str, path: str, options: dict[str, str], commits: int, rows: int, early: int = EARLY) -> Series:
    config = new_table_config(
        "t", table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    client = WriteClient(HudiTable.create(path, config), HudiSettings.from_hoodie_options(options))
    series = Series(label)
    keys = rows * 40
    for n in range(1, commits + 1):
        batch = _batch(n, rows, keys)
        c0, w0 = time.process_time(), time.perf_counter()
        result = client.upsert(batch)
        series.upsert_cpu.append(time.process_time() - c0)
        series.upsert_wall.append(time.perf_counter() - w0)
        if result.post_commit_failures:
            raise RuntimeError(f"{label}: commit {n}: {result.post_commit_failures}")
        if n in (early, commits):
            series.open_at[n] = min((_open(path) for _ in range(5)), key=lambda t: t[0])
    return series


def _window(values: list[float], end: int, window: int) -> float:
    return statistics.median(values[max(0, end - window) : end])


def report(series: list[Series], commits: int, window: int, early: int = EARLY) -> str:
    lines = [
        f"| table | active commits at {early} / {commits} | open CPU ms at {early} / {commits} (ratio) "
        f"| upsert CPU ms at {early} / {commits} (ratio) | upsert wall ms at {early} / {commits} (ratio) |",
        "|---|---:|---:|---:|---:|",
    ]
    for s in series:
        early_open, late_open = s.open_at[early], s.open_at[commits]
        cpu_e, cpu_l = _window(s.upsert_cpu, early, window), _window(s.upsert_cpu, commits, window)
        wall_e, wall_l = _window(s.upsert_wall, early, window), _window(s.upsert_wall, commits, window)
        lines.append(
            f"| {s.label} | {early_open[2]} / {late_open[2]} "
            f"| {early_open[0] * 1000:.1f} / {late_open[0] * 1000:.1f} ({late_open[0] / early_open[0]:.2f}) "
            f"| {cpu_e * 1000:.0f} / {cpu_l * 1000:.0f} ({cpu_l / cpu_e:.2f}) "
            f"| {wall_e * 1000:.0f} / {wall_l * 1000:.0f} ({wall_l / wall_e:.2f}) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.long_timeline", description=__doc__)
    parser.add_argument("--commits", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=20)
    parser.add_argument("--window", type=int, default=10, help="commits per upsert median")
    parser.add_argument("--out", default=None, help="directory for the tables (default: a temporary one)")
    args = parser.parse_args(argv)
    if args.commits < EARLY:
        parser.error(f"--commits must be at least {EARLY}")
    base = Path(args.out or tempfile.mkdtemp(prefix="hudi-bench-long-"))
    series = [
        run("archival on (default)", str(base / "archived"), {}, args.commits, args.rows),
        run("archival off", str(base / "unarchived"), {"hoodie.archive.automatic": "false"}, args.commits, args.rows),
    ]
    print(report(series, args.commits, args.window))


if __name__ == "__main__":
    main()
