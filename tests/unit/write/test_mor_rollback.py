"""Rolling back a failed merge-on-read write: v6 rollback blocks, v8+ deletion (local engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import fastavro
import hudi
import pyarrow as pa
import pytest

from hudi_framework.layout.naming import LogFileName
from hudi_framework.log import CommandBlock, DataBlock, read_log_file
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write import target_task
from hudi_framework.write.client import WriteClient
from hudi_framework.write.log_task import append_file_group


def _client(path: Path, version: int) -> WriteClient:
    config = new_table_config(
        "t", version=version, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return WriteClient(HudiTable.create(str(path), config))


def _batch(ids: list[str], cities: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": cities, "ts": [ts] * len(ids), "v": [float(ts)] * len(ids)})


def _hudi_rs(path: Path) -> list[tuple[str, int]]:
    table = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    rows = pa.Table.from_batches(table.read(hudi.HudiReadOptions())).to_pylist()
    return sorted((r["id"], r["ts"]) for r in rows)


def _fail_second_append(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    written: list[str] = []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        stats = append_file_group(*args, **kwargs)
        assert all(stat.path is not None for stat in stats)
        written.extend(stat.path or "" for stat in stats)
        if len(written) == 2:
            raise RuntimeError("injected append failure")
        return stats

    monkeypatch.setattr(target_task, "append_file_group", flaky)  # the local engine writes through write_target
    return written


def test_v6_failed_appends_get_rollback_blocks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(tmp_path, 6)
    client.insert(_batch(["a", "b", "c"], ["sf", "ny", "la"], 1))
    written = _fail_second_append(monkeypatch)
    with pytest.raises(RuntimeError, match="injected"):
        client.upsert(_batch(["a", "b", "c"], ["sf", "ny", "la"], 2))
    monkeypatch.undo()
    # Tasks run two at a time, so a third may have written its log file before the failure: every
    # file written gets its rollback block.
    assert len(written) >= 2
    timeline = client.table.reload().timeline
    (rollback,) = [i for i in timeline.instants if i.action is Action.ROLLBACK]
    assert rollback.is_completed
    assert [i.action for i in timeline.commits_timeline()] == [Action.DELTA_COMMIT]
    failed = {b.instant_time for p in written for b in read_log_file(client.table.storage, p)}
    (failed_instant,) = failed
    for path in written:  # the failed log files stay, each followed by a rollback block in its slice
        log = LogFileName.parse(path.rsplit("/", 1)[-1])
        partition = path.rsplit("/", 1)[0]
        nxt = LogFileName(log.file_id, log.instant_time, log.version + 1, "0-0-1")
        (block,) = list(read_log_file(client.table.storage, f"{partition}/{nxt.name}"))
        assert isinstance(block, CommandBlock)
        assert block.target_instant_time == failed_instant
        assert block.instant_time == rollback.requested_time
    plan_key = f".hoodie/{rollback.requested_time}.rollback.requested"
    with (tmp_path / plan_key).open("rb") as f:
        (plan,) = list(fastavro.reader(f))
    assert isinstance(plan, dict)
    assert plan["instantToRollback"] == {"commitTime": failed_instant, "action": "deltacommit"}
    assert not list((tmp_path / ".hoodie" / ".temp").rglob("*.marker.*"))
    assert _hudi_rs(tmp_path) == [("a", 1), ("b", 1), ("c", 1)]
    client.upsert(_batch(["a", "b"], ["sf", "ny"], 3))
    assert _hudi_rs(tmp_path) == [("a", 3), ("b", 3), ("c", 1)]
    later = [
        b for p in (tmp_path / "sf").iterdir() if p.name.startswith(".")
        for b in read_log_file(client.table.storage, f"sf/{p.name}") if isinstance(b, DataBlock)
    ]  # fmt: skip
    assert len(later) >= 1


@pytest.mark.parametrize("version", [8, 9])
def test_v8_plus_failed_appends_are_deleted(version: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = _client(tmp_path, version)
    client.insert(_batch(["a", "b", "c"], ["sf", "ny", "la"], 1))
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    written = _fail_second_append(monkeypatch)
    with pytest.raises(RuntimeError, match="injected"):
        client.upsert(_batch(["a", "b", "c"], ["sf", "ny", "la"], 2))
    assert len(written) >= 2  # a third task may have written too: its file goes as well
    after = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert after == before
    assert _hudi_rs(tmp_path) == [("a", 1), ("b", 1), ("c", 1)]
