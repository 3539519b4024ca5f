"""``hudi-fw show commits`` (Apache Hudi's show_commits): completed commits newest first, with the
operation and the sums of each commit's write stats; pending instants and cleans left out."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.history import instant_history
from hudi_framework.write.client import WriteClient


def _table(path: Path) -> HudiTable:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=[], ordering_fields=["ts"])
    table = HudiTable.create(str(path), config)
    client = WriteClient(table)
    client.upsert(pa.table({"id": ["a", "b"], "ts": pa.array([1, 1], pa.int64())}))
    client.upsert(pa.table({"id": ["a", "c"], "ts": pa.array([2, 2], pa.int64())}))
    client.delete(pa.table({"id": ["b"], "ts": pa.array([3], pa.int64())}))
    return table.reload()


def test_show_commits_lists_counts_newest_first(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    out = CliRunner().invoke(app, ["show", "commits", table.base_uri, "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)
    got = [(r["operation"], r["num_writes"], r["num_inserts"], r["num_updates"], r["num_deletes"]) for r in rows]
    assert got == [("DELETE", 2, 0, 0, 1), ("UPSERT", 3, 1, 1, 0), ("UPSERT", 2, 2, 0, 0)]
    times = [r["requested_time"] for r in rows]
    assert times == sorted(times, reverse=True)
    assert all(r["state"] == "completed" and r["completion_time"] for r in rows)
    limited = CliRunner().invoke(app, ["show", "commits", table.base_uri, "--json", "--limit", "1"])
    assert [r["requested_time"] for r in json.loads(limited.output)] == times[:1]


def test_history_keeps_pending_instants_without_counts(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    (
        Path(table.base_uri.removeprefix("file://")) / ".hoodie" / "timeline" / "29990101000000000.commit.requested"
    ).touch()
    rows = instant_history(table.reload().timeline).to_pylist()
    assert rows[0]["requested_time"] == "29990101000000000"
    assert (rows[0]["state"], rows[0]["num_writes"], rows[0]["operation"]) == ("requested", None, None)
    assert len(instant_history(table.timeline, commits_only=True)) == 3
