"""The long-timeline benchmark's smoke run: both tables written, archival keeping one within its bounds."""

from __future__ import annotations

from pathlib import Path

from bench.long_timeline import report, run


def test_a_short_run_reports_both_tables(tmp_path: Path) -> None:
    keep = {"hoodie.keep.min.commits": "3", "hoodie.keep.max.commits": "4", "hoodie.clean.commits.retained": "2"}
    archived = run("on", str(tmp_path / "a"), keep, commits=12, rows=3, early=4)
    unarchived = run(
        "off", str(tmp_path / "b"), {**keep, "hoodie.archive.automatic": "false"}, commits=12, rows=3, early=4
    )
    assert len(archived.upsert_cpu) == len(unarchived.upsert_cpu) == 12
    assert archived.open_at[12][2] <= 4 < unarchived.open_at[12][2] == 12
    table = report([archived, unarchived], commits=12, window=3, early=4)
    assert table.count("\n") == 3
    assert "| on | " in table
    assert "| off | " in table
