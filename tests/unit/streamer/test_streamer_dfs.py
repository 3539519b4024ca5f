"""The streamer with the shipped ``json-dfs`` source, as a HoodieStreamer script would run it."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2

runner = CliRunner()


def _land(landing: Path, name: str, rows: list[dict[str, object]], mtime: int) -> None:
    path = landing / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    os.utime(path, (mtime, mtime))


def test_json_dfs_source_by_its_apache_hudi_class_name(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    landing.mkdir()
    _land(landing, "a.json", [{"id": 1, "city": "sf", "ts": 1}, {"id": 2, "city": "ny", "ts": 1}], 1_700_000_000)
    base = str(tmp_path / "t")
    args = [
        "streamer", "--target-base-path", base, "--target-table", "trips",
        "--source-class", "org.apache.hudi.utilities.sources.JsonDFSSource", "--source-ordering-field", "ts",
        "--hoodie-conf", f"hoodie.streamer.source.dfs.root={landing}",
        "--hoodie-conf", "hoodie.datasource.write.recordkey.field=id",
        "--hoodie-conf", "hoodie.datasource.write.partitionpath.field=city",
        "--engine", "local",
    ]  # fmt: skip
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    _land(landing, "b.json", [{"id": 1, "city": "sf", "ts": 2}, {"id": 3, "city": "la", "ts": 2}], 1_700_000_100)
    second = runner.invoke(app, args)
    assert second.exit_code == 0, second.output
    table = HudiTable.open(base)
    rows = sorted((r["id"], r["ts"]) for r in read_table(table, columns=["id", "ts"]).to_pylist())
    assert rows == [(1, 2), (2, 1), (3, 2)]
    last = table.timeline.commits_timeline()[-1]
    assert (table.timeline.read_commit_metadata(last).extra_metadata or {})[CHECKPOINT_KEY_V2] == "1700000100000"
    third = runner.invoke(app, args)
    assert "nothing new after 1700000100000" in third.output
