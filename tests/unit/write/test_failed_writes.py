"""Failed-write policies: EAGER rolls back every unfinished write at the next start, LAZY only
those whose heartbeat expired; each rollback is a rollback instant, and no orphan file remains."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import fastavro
import hudi
import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, State
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import FailedWritesPolicy
from hudi_framework.write.client import WriteClient
from hudi_framework.write.failed_writes import failed_writes
from hudi_framework.write.heartbeat import Heartbeat, HeartbeatPolicy
from hudi_framework.write.markers import marker_dir
from hudi_framework.write.transaction import WriteTransaction, timeline_writer

LAYOUTS = [("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6), ("MERGE_ON_READ", 9)]


class _CrashError(Exception):
    """Stands in for the process dying right before the completed instant is written."""


def _client(path: Path, table_type: str, version: int, settings: HudiSettings | None = None) -> WriteClient:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return WriteClient(HudiTable.create(str(path), config), settings)


def _batch(ids: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": ["sf" if i < "m" else "ny" for i in ids], "ts": [ts] * len(ids)})


def rows_ours(path: Path) -> list[tuple[str, int]]:
    table = read_table(HudiTable.open(str(path)))
    return sorted(zip(table.column("id").to_pylist(), table.column("ts").to_pylist(), strict=True))


def rows_hudi_rs(path: Path) -> list[tuple[str, int]]:
    table = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    rows = pa.Table.from_batches(table.read(hudi.HudiReadOptions())).to_pylist()
    return sorted((r["id"], r["ts"]) for r in rows)


def data_files(path: Path) -> set[str]:
    return {
        str(p.relative_to(path)) for p in path.rglob("*")
        if p.is_file() and ".hoodie" not in p.parts and not p.name.startswith(".hoodie_partition_metadata")
    }  # fmt: skip


@pytest.fixture
def crash(monkeypatch: pytest.MonkeyPatch) -> Any:
    """``crash(client, batch)``: run an upsert that dies before completing (no abort, no heartbeat)."""

    def run(client: WriteClient, batch: pa.Table) -> None:
        with monkeypatch.context() as m:
            m.setattr(TimelineWriter, "complete", lambda *a, **k: (_ for _ in ()).throw(_CrashError()))
            m.setattr(WriteTransaction, "abort", lambda self: [])
            m.setattr(Heartbeat, "start", lambda self: self)
            with pytest.raises(_CrashError):
                client.upsert(batch)

    return run


@pytest.mark.parametrize(("table_type", "version"), LAYOUTS)
def test_eager_rolls_back_a_crashed_write(tmp_path: Path, crash: Any, table_type: str, version: int) -> None:
    client = _client(tmp_path, table_type, version)
    client.insert(_batch(["a", "b", "x"], 1))
    before_files = data_files(tmp_path)
    crash(client, _batch(["a", "x", "c"], 2))
    (failed,) = client.table.reload().timeline.pending()
    assert failed.state is State.INFLIGHT
    assert data_files(tmp_path) != before_files, "the crashed write left data files"
    assert rows_ours(tmp_path) == rows_hudi_rs(tmp_path) == [("a", 1), ("b", 1), ("x", 1)]

    client.insert(_batch(["d"], 3))
    timeline = client.table.reload().timeline
    assert not timeline.pending()
    (rollback,) = timeline.by_action(Action.ROLLBACK)
    assert rollback.is_completed
    plan_file = tmp_path / timeline.file_key(rollback, State.REQUESTED)
    with plan_file.open("rb") as f:
        (plan,) = list(fastavro.reader(f))
    assert isinstance(plan, dict)
    assert plan["instantToRollback"]["commitTime"] == failed.requested_time
    with (tmp_path / timeline.file_key(rollback)).open("rb") as f:
        (meta,) = list(fastavro.reader(f))
    assert isinstance(meta, dict)
    assert meta["commitsRollback"] == [failed.requested_time]
    assert failed.requested_time not in {i.requested_time for i in timeline.instants}
    assert not list((tmp_path / marker_dir(failed.requested_time)).rglob("*.marker.*"))
    leftovers = [f for f in data_files(tmp_path) if failed.requested_time in f.rsplit("/", 1)[-1]]
    if version >= 8 or table_type == "COPY_ON_WRITE":
        assert leftovers == [], "every data file of the failed write is deleted"
    assert rows_ours(tmp_path) == rows_hudi_rs(tmp_path) == [("a", 1), ("b", 1), ("d", 3), ("x", 1)]


def test_missing_markers_fall_back_to_listing(tmp_path: Path, crash: Any) -> None:
    client = _client(tmp_path, "COPY_ON_WRITE", 8)
    client.insert(_batch(["a", "x"], 1))
    before = data_files(tmp_path)
    crash(client, _batch(["a", "c", "y"], 2))
    (failed,) = client.table.reload().timeline.pending()
    for marker in sorted((tmp_path / marker_dir(failed.requested_time)).rglob("*"), reverse=True):
        marker.unlink() if marker.is_file() else marker.rmdir()
    client.insert(_batch(["d"], 3))
    new = data_files(tmp_path) - before
    assert all(failed.requested_time not in f for f in new)
    assert rows_ours(tmp_path) == rows_hudi_rs(tmp_path) == [("a", 1), ("d", 3), ("x", 1)]


def test_lazy_rolls_back_only_expired_heartbeats(tmp_path: Path, crash: Any) -> None:
    settings = HudiSettings(write={"failed_writes_policy": "LAZY", "heartbeat_interval_ms": 100})
    client = _client(tmp_path, "COPY_ON_WRITE", 8, settings)
    client.insert(_batch(["a"], 1))
    crash(client, _batch(["a", "b"], 2))
    (dead,) = client.table.reload().timeline.pending()
    # A live writer: an inflight instant whose heartbeat keeps beating.
    writer = timeline_writer(client.table.storage, client.table.config)
    live = writer.transition_to_inflight(writer.create_requested(Action.COMMIT))
    beat = Heartbeat(client.table.storage, live.requested_time, HeartbeatPolicy(interval_ms=50)).start()
    try:
        client.insert(_batch(["c"], 3))  # the dead write is younger than 2 x 100 ms: nothing rolled back yet
        pending = {i.requested_time for i in client.table.reload().timeline.pending()}
        assert pending == {dead.requested_time, live.requested_time}
        time.sleep(0.4)
        client.insert(_batch(["d"], 4))
        timeline = client.table.reload().timeline
        assert {i.requested_time for i in timeline.pending()} == {live.requested_time}
        (rollback,) = timeline.by_action(Action.ROLLBACK)
        assert rollback.is_completed
    finally:
        beat.stop()
    assert rows_ours(tmp_path) == rows_hudi_rs(tmp_path) == [("a", 1), ("c", 3), ("d", 4)]


def test_pending_compaction_is_not_a_failed_write(tmp_path: Path) -> None:
    client = _client(tmp_path, "MERGE_ON_READ", 8)
    client.insert(_batch(["a"], 1))
    writer = timeline_writer(client.table.storage, client.table.config)
    pending = writer.create_requested(Action.COMPACTION, content=b"")
    assert failed_writes(writer.timeline(), FailedWritesPolicy.EAGER, HeartbeatPolicy()) == []
    assert pending in writer.timeline().pending()


@pytest.mark.parametrize("policy", ["EAGER", "LAZY"])
def test_eager_sweeps_what_stragglers_left_after_an_abort(tmp_path: Path, policy: str) -> None:
    # Spark calls a writer's abort without waiting for the tasks it asked to stop: one may stage
    # rows, or mark and write a data file, after the write was undone and left the timeline.
    settings = HudiSettings(write={"failed_writes_policy": policy})
    client = _client(tmp_path, "COPY_ON_WRITE", 8, settings)
    client.insert(_batch(["a", "x"], 1))
    (first,) = client.table.reload().timeline.instants
    undone = str(int(first.requested_time) + 1)
    orphan = f"sf/f1-0_0-1-0_{undone}.parquet"
    foreign = "sf/.f2-0_20200101000000000.log.1_0-1-0"  # a file another write owns: never deleted
    archived = "20000101000000000"  # older than the active timeline: may be an archived commit's
    scratch = {
        f"{marker_dir(undone)}/{orphan}.marker.CREATE": b"",
        f"{marker_dir(undone)}/{foreign}.marker.APPEND": b"",
        f"{marker_dir(archived)}/sf/g-0_0-1-0_{archived}.parquet.marker.CREATE": b"",
        orphan: b"PAR1",
        foreign: b"log",
        f"{marker_dir('')}/staging-0a1b/00001-0.parquet": b"rows",
        f"{marker_dir('')}/staging-0a1b/.00002-0.parquet.tmp": b"",
    }
    for key, data in scratch.items():
        (tmp_path / key).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / key).write_bytes(data)

    client.insert(_batch(["d"], 3))

    left = {k for k in scratch if (tmp_path / k).exists()}
    if policy == "EAGER":
        assert left == {foreign, f"{marker_dir(archived)}/sf/g-0_0-1-0_{archived}.parquet.marker.CREATE"}
    else:  # several writers: any of them may be another writer's live scratch
        assert left == set(scratch)
    assert rows_ours(tmp_path) == rows_hudi_rs(tmp_path) == [("a", 1), ("d", 3), ("x", 1)]
