"""Savepoint, restore and rollback of the latest commit, through the API and ``hudi-fw``."""

from __future__ import annotations

import json
from pathlib import Path

import fastavro
import hudi
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.errors import SavepointError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import (
    create_savepoint,
    delete_savepoint,
    list_savepoints,
    restore_to_savepoint,
    rollback_latest_commit,
)

LAYOUTS = [("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6), ("MERGE_ON_READ", 9)]
runner = CliRunner()


def _client(path: Path, table_type: str, version: int) -> WriteClient:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return WriteClient(HudiTable.create(str(path), config))


def _batch(ids: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": ["sf" if i < "m" else "ny" for i in ids], "ts": [ts] * len(ids)})


def _rows(path: Path) -> list[tuple[str, int]]:
    ours = read_table(HudiTable.open(str(path))).select(["id", "ts"]).to_pylist()
    rs = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    theirs = pa.Table.from_batches(rs.read(hudi.HudiReadOptions())).select(["id", "ts"]).to_pylist()
    result = sorted((r["id"], r["ts"]) for r in ours)
    assert result == sorted((r["id"], r["ts"]) for r in theirs), "our reader and hudi-rs agree"
    return result


def _avro(path: Path) -> dict[str, object]:
    with path.open("rb") as f:
        (record,) = list(fastavro.reader(f))
    assert isinstance(record, dict)
    return record


@pytest.mark.parametrize(("table_type", "version"), LAYOUTS)
def test_restore_to_a_savepoint(tmp_path: Path, table_type: str, version: int) -> None:
    client = _client(tmp_path, table_type, version)
    first = client.insert(_batch(["a", "b", "x"], 1))
    kept = client.upsert(_batch(["a", "y"], 2))
    expected = _rows(tmp_path)
    sp = create_savepoint(client.table, kept.instant.requested_time, user="tester", comments="before the bad load")
    assert sp.files
    assert all(sp.files.values())
    timeline = client.table.reload().timeline
    sp_instant = timeline.get(kept.instant.requested_time, Action.SAVEPOINT)
    assert sp_instant.is_completed
    record = _avro(tmp_path / timeline.file_key(sp_instant))
    assert record["savepointedBy"] == "tester"
    assert record["comments"] == "before the bad load"
    later = [client.upsert(_batch(["a", "b", "z"], 3)), client.delete(pa.table({"id": ["x"], "city": ["ny"]}))]
    assert _rows(tmp_path) != expected

    result = restore_to_savepoint(client.table, kept.instant.requested_time)
    assert set(result.rolled_back) == {r.instant.requested_time for r in later}
    assert _rows(tmp_path) == expected
    timeline = client.table.reload().timeline
    assert [i.requested_time for i in timeline.commits_timeline()] == [
        first.instant.requested_time,
        kept.instant.requested_time,
    ]
    (restore,) = timeline.by_action(Action.RESTORE)
    assert restore.is_completed
    plan = _avro(tmp_path / timeline.file_key(restore, State.REQUESTED))
    assert {i["commitTime"] for i in plan["instantsToRollback"]} == set(result.rolled_back)  # type: ignore[attr-defined]
    meta = _avro(tmp_path / timeline.file_key(restore))
    assert set(meta["instantsToRollback"]) == set(result.rolled_back)  # type: ignore[call-overload]
    client.upsert(_batch(["c"], 4))  # the table stays writable
    assert _rows(tmp_path) == sorted([*expected, ("c", 4)])


def test_savepoint_errors(tmp_path: Path) -> None:
    client = _client(tmp_path, "COPY_ON_WRITE", 8)
    done = client.insert(_batch(["a"], 1)).instant.requested_time
    with pytest.raises(SavepointError, match="not a completed commit"):
        create_savepoint(client.table, "20200101000000000")
    create_savepoint(client.table, done)
    with pytest.raises(SavepointError, match="already"):
        create_savepoint(client.table, done)
    with pytest.raises(SavepointError, match="savepointed"):
        rollback_latest_commit(client.table)
    with pytest.raises(SavepointError, match="no savepoint"):
        restore_to_savepoint(client.table, "20200101000000000")
    delete_savepoint(client.table, done)
    assert list_savepoints(client.table) == []


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6)])
def test_rollback_latest_commit(tmp_path: Path, table_type: str, version: int) -> None:
    client = _client(tmp_path, table_type, version)
    client.insert(_batch(["a", "x"], 1))
    expected = _rows(tmp_path)
    latest = client.upsert(_batch(["a", "b"], 2)).instant.requested_time
    with pytest.raises(SavepointError, match="only the latest"):
        rollback_latest_commit(client.table, "20200101000000000")
    result = rollback_latest_commit(client.table, latest)
    assert result.rollback_instant is not None
    assert result.rollback_instant.is_completed
    assert _rows(tmp_path) == expected
    assert latest not in {i.requested_time for i in client.table.reload().timeline.instants}


def test_cli_savepoint_restore_rollback(tmp_path: Path) -> None:
    client = _client(tmp_path, "COPY_ON_WRITE", 8)
    client.insert(_batch(["a"], 1))
    kept = client.upsert(_batch(["b"], 2)).instant.requested_time
    expected = _rows(tmp_path)
    res = runner.invoke(app, ["savepoint", "create", str(tmp_path), "--comments", "nightly"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["savepoint", "list", str(tmp_path), "--json"])
    assert [p["instant"] for p in json.loads(res.output)] == [kept]
    client.upsert(_batch(["c"], 3))
    client.upsert(_batch(["d"], 4))
    res = runner.invoke(app, ["rollback", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert ("d", 4) not in _rows(tmp_path)
    res = runner.invoke(app, ["restore", str(tmp_path), kept])
    assert res.exit_code == 0, res.output
    assert _rows(tmp_path) == expected
    res = runner.invoke(app, ["savepoint", "delete", str(tmp_path), kept])
    assert res.exit_code == 0, res.output
    assert list_savepoints(HudiTable.open(str(tmp_path))) == []
