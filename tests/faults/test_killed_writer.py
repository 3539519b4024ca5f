"""A writer process killed with SIGKILL before or after its completed instant.

Before: readers (ours and hudi-rs) still see the previous snapshot, the next writer (EAGER) rolls
the dead write back, and no data file or marker of it remains. After: the write is committed and
nothing is rolled back.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path

import hudi
import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action
from hudi_framework.vocabulary import FailedWritesPolicy
from hudi_framework.write.client import WriteClient
from hudi_framework.write.failed_writes import failed_writes
from hudi_framework.write.heartbeat import HeartbeatPolicy
from tests.faults.processes import kill_writer
from tests.faults.tables import start_table_copies

LAYOUTS = [("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6), ("MERGE_ON_READ", 9)]

Rows = list[tuple[str, str, int]]


def _rows(ids: list[str], ts: int) -> list[dict[str, object]]:
    return [{"id": i, "city": "sf" if i < "m" else "ny", "ts": ts} for i in ids]


def _ours(path: Path) -> Rows:
    t = read_table(HudiTable.open(str(path))).select(["id", "city", "ts"])
    return sorted((r["id"], r["city"], r["ts"]) for r in t.to_pylist())


def _hudi_rs(path: Path) -> Rows:
    table = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    rows = pa.Table.from_batches(table.read(hudi.HudiReadOptions())).to_pylist()
    return sorted((r["id"], r["city"], r["ts"]) for r in rows)


def _digest(rows: Rows) -> str:
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()


def _snapshot(path: Path) -> tuple[int, str]:
    ours, theirs = _ours(path), _hudi_rs(path)
    assert ours == theirs, "our reader and hudi-rs agree"
    return len(ours), _digest(ours)


def _files(path: Path, *, meta: bool = False) -> set[str]:
    return {
        str(p.relative_to(path)) for p in path.rglob("*")
        if p.is_file() and (meta or ".hoodie" not in p.parts) and not p.name.startswith(".hoodie_partition_metadata")
    }  # fmt: skip


def _kill_writer(
    path: Path,
    when: str,
    rows: list[dict[str, object]],
    options: dict[str, str] | None = None,
    operation: str = "upsert",
    *,
    while_parked: Callable[[], None] | None = None,
) -> None:
    kill_writer(str(path), when, path.parent, rows, options, operation, while_parked=while_parked)


@pytest.fixture(scope="module")
def make_table(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path, str, int], WriteClient]:
    """A client of a copy, at ``path``, of the layout's starting table (rows a, b, x, y at ts 1)."""
    copies = start_table_copies(tmp_path_factory)
    return lambda path, table_type, version: WriteClient(copies(path, table_type, version))


@pytest.mark.parametrize(("table_type", "version"), LAYOUTS)
def test_killed_before_completion_is_rolled_back(
    tmp_path: Path, make_table: Callable[[Path, str, int], WriteClient], table_type: str, version: int
) -> None:
    path = tmp_path / "t"
    client = make_table(path, table_type, version)
    before = _snapshot(path)
    files_before = _files(path)
    _kill_writer(path, "before", _rows(["a", "x", "c", "z"], 2))
    (dead,) = client.table.reload().timeline.pending()
    assert _files(path) - files_before, "the killed writer had written data files"
    assert any((path / ".hoodie" / ".temp" / dead.requested_time).rglob("*.marker.*"))
    assert _snapshot(path) == before, "readers see the previous snapshot"

    client.upsert(pa.Table.from_pylist(_rows(["b"], 3)))  # EAGER: rolls the dead write back first
    timeline = client.table.reload().timeline
    assert not timeline.pending()
    assert dead.requested_time not in {i.requested_time for i in timeline.instants}
    assert [i.is_completed for i in timeline.by_action(Action.ROLLBACK)] == [True]
    assert not any((path / ".hoodie" / ".temp").rglob("*.marker.*")), "no orphan markers"
    assert not any((path / ".hoodie" / ".heartbeat").rglob("*"))
    orphans = [f for f in _files(path) if dead.requested_time in f.rsplit("/", 1)[-1]]
    if not (table_type == "MERGE_ON_READ" and version == 6):  # v6 log files stay, cancelled by rollback blocks
        assert orphans == [], "no orphan data files"
    assert _ours(path) == _hudi_rs(path) == [("a", "sf", 1), ("b", "sf", 3), ("x", "ny", 1), ("y", "ny", 1)]


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6)])
def test_killed_after_completion_is_kept(
    tmp_path: Path, make_table: Callable[[Path, str, int], WriteClient], table_type: str, version: int
) -> None:
    path = tmp_path / "t"
    client = make_table(path, table_type, version)
    _kill_writer(path, "after", _rows(["a", "c"], 2))
    expected = [("a", "sf", 2), ("b", "sf", 1), ("c", "sf", 2), ("x", "ny", 1), ("y", "ny", 1)]
    assert _ours(path) == _hudi_rs(path) == expected
    files_after_kill = _files(path)
    client.upsert(pa.Table.from_pylist(_rows(["y"], 3)))
    timeline = client.table.reload().timeline
    assert timeline.by_action(Action.ROLLBACK) == [], "nothing is rolled back"
    assert not any((path / ".hoodie" / ".temp").rglob("*.marker.*")), "the dead writer's markers are dropped"
    assert not any((path / ".hoodie" / ".heartbeat").rglob("*")), "and its heartbeat"
    assert len(timeline.commits_timeline()) == 3
    assert files_after_kill - _files(path) <= {f for f in files_after_kill if f.startswith("ny/")}
    assert _ours(path) == _hudi_rs(path) == [*expected[:4], ("y", "ny", 3)]


def test_lazy_rolls_back_only_after_the_heartbeat_expired(
    tmp_path: Path, make_table: Callable[[Path, str, int], WriteClient]
) -> None:
    path = tmp_path / "t"
    client = make_table(path, "COPY_ON_WRITE", 8)
    before = _snapshot(path)
    options = {"hoodie.cleaner.policy.failed.writes": "LAZY", "hoodie.client.heartbeat.interval_in_ms": "100"}
    policy = HeartbeatPolicy(interval_ms=100, tolerable_misses=2)
    alive: list[list[object]] = []

    def check_alive() -> None:  # the parked writer still beats: LAZY must not touch it
        time.sleep(0.5)
        alive.append(list(failed_writes(client.table.reload().timeline, FailedWritesPolicy.LAZY, policy)))

    _kill_writer(path, "before", _rows(["a", "c"], 2), options, while_parked=check_alive)
    assert alive == [[]]
    (dead,) = client.table.reload().timeline.pending()
    assert _snapshot(path) == before
    time.sleep(0.5)  # > 2 missed beats
    assert failed_writes(client.table.reload().timeline, FailedWritesPolicy.LAZY, policy) == [dead]
    lazy = WriteClient(HudiTable.open(str(path)), HudiSettings.from_hoodie_options(options))
    lazy.upsert(pa.Table.from_pylist(_rows(["y"], 3)))
    timeline = lazy.table.reload().timeline
    assert not timeline.pending()
    assert [i.is_completed for i in timeline.by_action(Action.ROLLBACK)] == [True]
    assert not any((path / ".hoodie" / ".temp").rglob("*.marker.*"))
    assert not any((path / ".hoodie" / ".heartbeat").rglob("*"))
    assert [f for f in _files(path) if dead.requested_time in f] == []
    assert _ours(path) == _hudi_rs(path) == [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1), ("y", "ny", 3)]


@pytest.mark.parametrize("operation", ["insert", "bulk_insert", "upsert"])
def test_rerunning_a_crashed_batch_does_not_duplicate_rows(
    tmp_path: Path, make_table: Callable[[Path, str, int], WriteClient], operation: str
) -> None:
    path = tmp_path / "t"
    client = make_table(path, "MERGE_ON_READ", 9)
    batch = _rows(["c", "d", "z"], 2)
    _kill_writer(path, "before", batch, operation=operation)
    client.write(pa.Table.from_pylist(batch), operation)  # the re-run: EAGER rolls the crashed attempt back first
    rows = _ours(path)
    assert rows == _hudi_rs(path)
    assert len({r[0] for r in rows}) == len(rows) == 7, "every key once"
    assert not client.table.reload().timeline.pending()
