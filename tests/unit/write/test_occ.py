"""Optimistic concurrency control: conflict check and commit under the table lock.

Writers are threads synchronised by a barrier inside their write step, so each has planned against
the same timeline before any of them commits.
"""

from __future__ import annotations

from pathlib import Path

import hudi
import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.contracts.lock import LockProvider
from hudi_framework.errors import LockLostError, UnsafeLockConfigError, WriteConflictError
from hudi_framework.lock import WriterTopology
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.avro_container import AvroSchemaName, write_container
from hudi_framework.timeline.instant import Action
from hudi_framework.vocabulary import ConcurrencyMode, FailedWritesPolicy, WriteOperation
from hudi_framework.write.client import WriteClient
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.conflicts import WriteBaseline, find_write_conflict
from hudi_framework.write.pipeline import WriteResult
from hudi_framework.write.session import WriteSession
from hudi_framework.write.transaction import WriteTransaction, timeline_writer
from tests.concurrent_writers import race_upserts

OCC = HudiSettings(write={"concurrency_mode": "optimistic_concurrency_control"})


def _create(path: Path, version: int = 8) -> HudiTable:
    config = new_table_config(
        "t", version=version, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    return HudiTable.create(str(path), config)


def _batch(ids: list[str], city: str, ts: int) -> pa.Table:
    return pa.table({"id": ids, "city": [city] * len(ids), "ts": [ts] * len(ids)})


def _rows(path: Path) -> list[tuple[str, str, int]]:
    ours = read_table(HudiTable.open(str(path))).select(["id", "city", "ts"]).to_pylist()
    rs = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    theirs = pa.Table.from_batches(rs.read(hudi.HudiReadOptions())).select(["id", "city", "ts"]).to_pylist()
    result = sorted((r["id"], r["city"], r["ts"]) for r in ours)
    assert result == sorted((r["id"], r["city"], r["ts"]) for r in theirs)
    return result


def test_overlapping_writers_one_commits_and_the_loser_retries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _create(tmp_path)
    WriteClient(table, OCC).insert(_batch(["a", "b"], "sf", 1))
    (group,) = {s.file_id for s in table.reload().latest_file_slices()}
    files_before = {p for p in tmp_path.rglob("*.parquet")}
    one, two = WriteClient(HudiTable.open(str(tmp_path)), OCC), WriteClient(HudiTable.open(str(tmp_path)), OCC)
    results = race_upserts(monkeypatch, [(one, _batch(["a"], "sf", 2)), (two, _batch(["b"], "sf", 3))])
    wins = [r for r in results if isinstance(r, WriteResult)]
    losses = [r for r in results if isinstance(r, WriteConflictError)]
    assert (len(wins), len(losses)) == (1, 1), results
    (won,), (lost,) = wins, losses
    assert lost.other_instant == won.instant.requested_time
    assert lost.instant != won.instant.requested_time
    assert lost.file_group_ids == (f"sf/{group}",)
    timeline = table.reload().timeline
    assert not timeline.pending(), "the loser's instant is rolled back"
    assert lost.instant not in {i.requested_time for i in timeline.instants}
    new_files = {p for p in tmp_path.rglob("*.parquet")} - files_before
    assert all(lost.instant not in p.name for p in new_files), "the loser's files are deleted"
    assert not any((tmp_path / ".hoodie" / ".temp").rglob("*.marker.*"))
    loser, data = (two, _batch(["b"], "sf", 3)) if results[1] is lost else (one, _batch(["a"], "sf", 2))
    loser.upsert(data)  # the retry plans against the winner's commit and succeeds
    assert _rows(tmp_path) == [("a", "sf", 2), ("b", "sf", 3)]


def test_writers_on_disjoint_partitions_all_commit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _create(tmp_path)
    WriteClient(table, OCC).insert(_batch(["seed"], "p0", 0))
    cities = [f"p{i}" for i in range(1, 6)]
    jobs = [
        (WriteClient(HudiTable.open(str(tmp_path)), OCC), _batch([f"k{i}a", f"k{i}b"], city, i))
        for i, city in enumerate(cities, start=1)
    ]
    results = race_upserts(monkeypatch, jobs)
    assert all(isinstance(r, WriteResult) for r in results), results
    assert len(table.reload().timeline.commits_timeline()) == 6
    expected = [("seed", "p0", 0)] + [(f"k{i}{s}", c, i) for i, c in enumerate(cities, start=1) for s in "ab"]
    assert _rows(tmp_path) == sorted(expected)


def test_pending_compaction_scheduled_after_start_conflicts(tmp_path: Path) -> None:
    table = _create(tmp_path)
    WriteClient(table, OCC).insert(_batch(["a"], "sf", 1))
    table = table.reload()
    (fs,) = table.latest_file_slices()
    baseline = WriteBaseline.of(table.timeline)
    writer = timeline_writer(table.storage, table.config)
    plan = {
        "operations": [
            {"baseInstantTime": fs.base_instant_time, "deltaFilePaths": [], "dataFilePath": None,
             "fileId": fs.file_id, "partitionPath": "sf", "metrics": {}, "bootstrapFilePath": None}
        ],
        "extraMetadata": None, "version": 2,
    }  # fmt: skip
    compaction = writer.create_requested(
        Action.COMPACTION, content=write_container(AvroSchemaName.COMPACTION_PLAN, plan)
    )
    found = find_write_conflict(writer.timeline(), "00000000000009", {("sf", fs.file_id)}, baseline)
    assert found == (compaction, [("sf", fs.file_id)])
    assert find_write_conflict(writer.timeline(), "00000000000009", {("sf", "other")}, baseline) is None
    known = WriteBaseline.of(writer.timeline())
    assert find_write_conflict(writer.timeline(), "00000000000009", {("sf", fs.file_id)}, known) is None


def test_lock_safety_is_checked_when_the_session_starts(tmp_path: Path) -> None:
    table = _create(tmp_path)
    with pytest.raises(UnsafeLockConfigError, match="in-process"):
        WriteSession(table, OCC, topology=WriterTopology.MULTI_PROCESS)
    WriteSession(table, OCC)


class _LapsedLock(LockProvider):
    """A lock whose lease lapses while the commit runs (fencing must stop the commit)."""

    def __init__(self) -> None:
        self.unlocked = False

    def try_lock(self, timeout_s: float) -> bool:
        return True

    def unlock(self) -> None:
        self.unlocked = True

    def is_held(self) -> bool:
        return False


def test_a_writer_that_lost_its_lease_cannot_commit(tmp_path: Path) -> None:
    table = _create(tmp_path)
    lock = _LapsedLock()
    concurrency = WriteConcurrency(
        mode=ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL,
        failed_writes=FailedWritesPolicy.LAZY,
        open_lock=lambda: lock,
        table=str(tmp_path),
    )
    txn = WriteTransaction(table.storage, table.config, WriteOperation.INSERT, concurrency=concurrency)
    started = txn.start()
    with pytest.raises(LockLostError):
        txn.commit([], schema_json=None)
    assert lock.unlocked
    (pending,) = table.reload().timeline.pending()
    assert pending.requested_time == started.requested_time, "the completed instant was never written"
    txn.abort()
    assert not table.reload().timeline.instants
    assert not any((tmp_path / ".hoodie" / ".heartbeat").iterdir())
