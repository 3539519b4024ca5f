"""``python -m bench.streamer_throughput [--rows N] [--batches B] [--format parquet|json] [--out DIR]``:
the streamer's throughput for 1% upsert batches into a merge-on-read table on Spark ``local[2]``,
against the same batches written by ``SparkWriteClient`` directly on the same session.

Prepared, unmeasured: ``N`` rows (default 2,000,000; the benchmark's data set, 8 partitions)
bulk-inserted as a merge-on-read table, copied so that each side has its own; ``B`` batches of 1% of
``N`` updates (keys drawn from the whole table, a later event time) written as landing files, one
file per batch; the session started and warmed up.

Measured, round after round, the two sides alternating (streamer first on even rounds):

- streamer: the batch's file is placed under the streamer's landing root (unmeasured), then one
  ``run_streamer`` round (one-round mode, as ``hudi-fw streamer --once``): opening the table,
  reading the checkpoint from the timeline, listing the root and planning, reading the file in an
  executor with the source plugin (schema conformed to the batch schema), the upsert with the
  checkpoint in the commit, and the round's report;
- direct: ``spark.read.parquet`` (or ``spark.read.json``) of the same file, then
  ``SparkWriteClient(table, settings, spark).upsert`` of that DataFrame.

Both sides parse the landing file and write the same rows with the same settings; the difference is
the job machinery (checkpoint lookup, planning, the source frame, the round's bookkeeping). Prints
per-round seconds, rows/s of both sides (total rows over total seconds) and the overhead ratio
(target: streamer / direct <= 1.10). docs/benchmarks.md, "Streamer throughput".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from bench.dataset import EVENT_TIME, KEY, PARTITION, _rows, generate
from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

TARGET = 1.10
SOURCES = {"parquet": "ParquetDFSSource", "json": "JsonDFSSource"}


@dataclass
class Figures:
    """Per-round wall seconds of both sides."""

    rows: list[int] = field(default_factory=list)
    streamer: list[float] = field(default_factory=list)
    direct: list[float] = field(default_factory=list)
    #: Spark jobs each round ran (load-independent: the machinery's extra jobs show here).
    streamer_jobs: list[int] = field(default_factory=list)
    direct_jobs: list[int] = field(default_factory=list)


def _table_options(base_path: str) -> dict[str, Any]:
    return {
        "table.base_path": base_path,
        "table.name": "bench",
        "table.type": "MERGE_ON_READ",
        "table.record_key_fields": [KEY],
        "table.partition_fields": [PARTITION],
        "table.ordering_fields": [EVENT_TIME],
        "write.engine": "spark",
    }


def _streamer_settings(base_path: str, landing: Path, fmt: str) -> HudiSettings:
    return HudiSettings.load(
        overrides={
            **_table_options(base_path),
            "streamer.source": SOURCES[fmt],
            "streamer.source_options": {"hoodie.streamer.source.dfs.root": str(landing)},
            "streamer.operation": "upsert",
            # The direct side does not compact: neither does the streamer (HoodieStreamer's
            # --disable-compaction), or its fifth round would compact the whole table.
            "streamer.disable_compaction": True,
        }
    )


def prepare(work: Path, rows: int, batches: int, fmt: str, seed: int = 23) -> tuple[list[Path], int]:
    """Two copies of the prepared table (``work/streamer``, ``work/direct``) and the batch files."""
    inputs = generate(work / "inputs", rows)
    base = inputs.read_base()
    config = new_table_config(
        "bench", table_type="MERGE_ON_READ", record_key_fields=[KEY], partition_fields=[PARTITION],
        ordering_fields=[EVENT_TIME],
    )  # fmt: skip
    first = work / "streamer"
    table = HudiTable.create(str(first), config, schema=base.schema)
    WriteClient(table, HudiSettings.load(overrides=_table_options(str(first)))).bulk_insert(base)
    shutil.copytree(first, work / "direct")
    rng = np.random.default_rng(seed)
    size = max(1, rows // 100)
    files: list[Path] = []
    (work / "batches").mkdir(exist_ok=True)
    for n in range(batches):
        ids = rng.choice(rows, size, replace=False)
        ts = np.full(size, 1_700_300_000_000 + n, dtype=np.int64)
        batch = _rows(rng, ids, ts)
        path = work / "batches" / f"batch-{n:04d}.{fmt}"
        if fmt == "parquet":
            pq.write_table(batch, path)
        else:
            _write_json_lines(batch, path)
        files.append(path)
    return files, size


def _write_json_lines(batch: pa.Table, path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for row in batch.to_pylist():
            out.write(json.dumps(row) + "\n")


def _land(file: Path, landing: Path, n: int) -> None:
    """Place batch ``n`` under the landing root with a modification time after every earlier one."""
    target = landing / file.name
    shutil.copyfile(file, target)
    stamp = time.time() - 3600 + n  # whole seconds apart: the checkpoint is a millisecond mtime
    os.utime(target, (stamp, stamp))


def _streamer_round(settings: HudiSettings, spark: Any) -> int:
    from hudi_framework.streamer import run_streamer

    report = run_streamer(settings, spark=spark)
    if report.commits != 1:
        raise RuntimeError(f"a streamer round committed {report.commits} times")
    return report.rows


def _direct_round(file: Path, fmt: str, table_path: str, settings: HudiSettings, spark: Any) -> int:
    from hudi_framework.spark.write_engine import SparkWriteClient

    frame = spark.read.parquet(str(file)) if fmt == "parquet" else spark.read.json(str(file))
    result = SparkWriteClient(HudiTable.open(table_path), settings, spark).upsert(frame)
    return result.num_updates + result.num_inserts


def run(work: Path, rows: int, batches: int, fmt: str, spark: Any) -> Figures:
    """Prepare, then measure ``batches`` rounds of each side, alternating."""
    files, _ = prepare(work, rows, batches, fmt)
    landing = work / "landing"
    landing.mkdir(exist_ok=True)
    streamer_settings = _streamer_settings(str(work / "streamer"), landing, fmt)
    direct_settings = HudiSettings.load(overrides=_table_options(str(work / "direct")))
    figures = Figures()
    for n, file in enumerate(files):
        _land(file, landing, n)
        sides = ["streamer", "direct"] if n % 2 == 0 else ["direct", "streamer"]
        for side in sides:
            group = f"{side}-{n}"
            spark.sparkContext.setJobGroup(group, group)
            began = time.perf_counter()
            if side == "streamer":
                _streamer_round(streamer_settings, spark)
                figures.streamer.append(time.perf_counter() - began)
                figures.streamer_jobs.append(len(spark.sparkContext.statusTracker().getJobIdsForGroup(group)))
            else:
                written = _direct_round(file, fmt, str(work / "direct"), direct_settings, spark)
                figures.direct.append(time.perf_counter() - began)
                figures.direct_jobs.append(len(spark.sparkContext.statusTracker().getJobIdsForGroup(group)))
                figures.rows.append(written)
        print(
            f"round {n + 1}: streamer {figures.streamer[-1]:.2f} s ({figures.streamer_jobs[-1]} jobs), "
            f"direct {figures.direct[-1]:.2f} s ({figures.direct_jobs[-1]} jobs)",
            flush=True,
        )
    return figures


def report(figures: Figures, rows: int, fmt: str, skip: int) -> str:
    """A Markdown table of both sides (the first ``skip`` rounds left out as warm-up)."""
    streamer, direct, written = figures.streamer[skip:], figures.direct[skip:], figures.rows[skip:]
    total = sum(written)
    s_total, d_total = sum(streamer), sum(direct)
    ratio = s_total / d_total
    verdict = "met" if ratio <= TARGET else "**not met**"
    return "\n".join(
        [
            f"| {rows:,}-row MOR table, {len(streamer)} batches of {written[0]:,} rows ({fmt}) "
            "| median s / round | rows/s |",
            "|---|---:|---:|",
            f"| streamer (one round per batch) | {statistics.median(streamer):.2f} | {total / s_total:,.0f} |",
            f"| SparkWriteClient (spark.read + upsert) | {statistics.median(direct):.2f} | {total / d_total:,.0f} |",
            f"| overhead: streamer / direct (target <= {TARGET:.2f}) | {ratio:.3f} {verdict} | |",
            f"| Spark jobs per round: streamer / direct | {statistics.median(figures.streamer_jobs[skip:]):.0f} / "
            f"{statistics.median(figures.direct_jobs[skip:]):.0f} | |",
        ]
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.streamer_throughput", description=__doc__)
    parser.add_argument("--rows", type=int, default=2_000_000, help="rows of the table (batches are 1%%)")
    parser.add_argument("--batches", type=int, default=6, help="measured batches per side, plus --warmup")
    parser.add_argument("--warmup", type=int, default=1, help="first rounds left out of the figures")
    parser.add_argument("--format", choices=sorted(SOURCES), default="parquet", help="landing file format")
    parser.add_argument("--out", default=None, help="directory for the tables (default: a temporary one)")
    args = parser.parse_args(argv)
    if args.rows < 100:
        parser.error("--rows must be at least 100")
    from bench import spark_session

    work = Path(args.out or tempfile.mkdtemp(prefix="hudi-bench-streamer-"))
    started = spark_session.start()
    try:
        with open("/proc/loadavg", encoding="utf-8") as f:
            print(f"load average before: {f.read().strip()}")
        figures = run(work, args.rows, args.batches + args.warmup, args.format, started.spark)
        with open("/proc/loadavg", encoding="utf-8") as f:
            print(f"load average after: {f.read().strip()}")
    finally:
        spark_session.stop(started.spark)
    print(report(figures, args.rows, args.format, args.warmup))


if __name__ == "__main__":
    main()
