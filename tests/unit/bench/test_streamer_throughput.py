"""The streamer benchmark's preparation and report, without Spark (its Spark rounds are the benchmark)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from bench.streamer_throughput import Figures, prepare, report
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable


def test_prepare_gives_each_side_the_same_table_and_one_percent_batches(tmp_path: Path) -> None:
    files, size = prepare(tmp_path, rows=2_000, batches=2, fmt="parquet")
    assert size == 20
    assert [pq.ParquetFile(f).metadata.num_rows for f in files] == [20, 20]
    sides = [HudiTable.open(str(tmp_path / side)) for side in ("streamer", "direct")]
    assert [t.config.table_type.value for t in sides] == ["MERGE_ON_READ", "MERGE_ON_READ"]
    assert [read_table(t).num_rows for t in sides] == [2_000, 2_000]
    # Updates only: every batch key is in the table.
    keys = set(read_table(sides[0], columns=["id"]).column("id").to_pylist())
    assert set(pq.read_table(files[0]).column("id").to_pylist()) <= keys


def test_json_batches_are_json_lines(tmp_path: Path) -> None:
    files, _ = prepare(tmp_path, rows=500, batches=1, fmt="json")
    lines = files[0].read_text(encoding="utf-8").splitlines()
    assert len(lines) == 5
    assert lines[0].startswith("{")


def test_the_report_leaves_out_the_warm_up_and_judges_the_ratio() -> None:
    figures = Figures(
        rows=[100, 100, 100], streamer=[9.0, 1.05, 1.05], direct=[1.0, 1.0, 1.0],
        streamer_jobs=[9, 5, 5], direct_jobs=[4, 4, 4],
    )  # fmt: skip
    table = report(figures, rows=10_000, fmt="parquet", skip=1)
    assert "| 1.050 met |" in table
    assert "| 5 / 4 |" in table
    slow = Figures(rows=[100, 100], streamer=[1.2, 1.2], direct=[1.0, 1.0], streamer_jobs=[5, 5], direct_jobs=[4, 4])
    assert "1.200 **not met**" in report(slow, rows=10_000, fmt="parquet", skip=0)
