"""A rollback killed half-way is finished later under its own instant, as Apache Hudi does: the next
writer (EAGER or LAZY), ``hudi-fw rollback`` and a restore re-execute the pending rollback's plan
instead of starting another rollback, so no ``rollback.requested``/``rollback.inflight`` stays on
the timeline forever. Meanwhile readers see the table either before or after the rollback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import PendingRestoreError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import create_savepoint, restore_to_savepoint, rollback_latest_commit
from tests.faults.campaign.inventory import stray_objects
from tests.faults.processes import kill_writer
from tests.faults.tables import START_ROWS, start_table_copies
from tests.faults.test_killed_writer import _hudi_rs, _ours

Rows = list[tuple[str, str, int]]

LAYOUTS = [("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6), ("MERGE_ON_READ", 9)]
START: Rows = START_ROWS
DEAD = [{"id": "a", "city": "sf", "ts": 2}, {"id": "c", "city": "sf", "ts": 2}, {"id": "x", "city": "ny", "ts": 2}]

#: Where the rollback dies: plan written; inflight; files deleted and the failed instant gone, the
#: completed rollback file not yet published; the rollback block of a v6 log file being written.
ROLLBACK_POINTS = {
    "planned": r"tmp:\.rollback\.inflight$",
    "executed": r"tmp:[0-9]\.rollback$",
    "rollback block": r"tmp:/\.[^/]*\.log\.\d+_0-0-1$",
}


def _rows(items: list[dict[str, object]]) -> pa.Table:
    return pa.Table.from_pylist(items)


@pytest.fixture(scope="module")
def make_table(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path, str, int], HudiTable]:
    return start_table_copies(tmp_path_factory)


def _pending_rollback(table: HudiTable) -> str:
    (rollback,) = table.reload().timeline.pending({Action.ROLLBACK})
    return rollback.requested_time


def _finished(table: HudiTable, rollback_time: str) -> None:
    """The pending rollback completed under its own instant time, and it is the only rollback."""
    timeline = table.reload().timeline
    assert not timeline.pending(), timeline.pending()
    rollbacks = timeline.by_action(Action.ROLLBACK)
    assert [(i.requested_time, i.state) for i in rollbacks] == [(rollback_time, State.COMPLETED)]
    assert stray_objects(table) == []


def _trials() -> list[tuple[str, str, int]]:
    return [*((p, t, v) for p in ("planned", "executed") for t, v in LAYOUTS), ("rollback block", "MERGE_ON_READ", 6)]


@pytest.mark.matrix  # each value of each parameter by default, every combination with HUDI_TEST_SLOW=1
@pytest.mark.parametrize(("point", "table_type", "version"), _trials())
def test_the_next_writer_finishes_a_killed_rollback(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable], point: str, table_type: str, version: int
) -> None:
    path = tmp_path / "t"
    table = make_table(path, table_type, version)
    kill_writer(str(path), "before", tmp_path, DEAD)  # a failed write to roll back
    # The next writer starts rolling it back (EAGER) and dies inside the rollback.
    kill_writer(str(path), "park", tmp_path, [{"id": "y", "city": "ny", "ts": 3}], park=ROLLBACK_POINTS[point])
    rollback_time = _pending_rollback(table)
    assert _ours(path) == _hudi_rs(path) == START, "readers see the table as before the failed write"
    WriteClient(HudiTable.open(str(path))).upsert(_rows([{"id": "b", "city": "sf", "ts": 4}]))
    _finished(table, rollback_time)
    assert _ours(path) == _hudi_rs(path) == [("a", "sf", 1), ("b", "sf", 4), ("x", "ny", 1), ("y", "ny", 1)]


def test_a_lazy_writer_finishes_a_killed_rollback(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable]
) -> None:
    path = tmp_path / "t"
    table = make_table(path, "COPY_ON_WRITE", 8)
    lazy = {"hoodie.cleaner.policy.failed.writes": "LAZY", "hoodie.client.heartbeat.interval_in_ms": "100"}
    kill_writer(str(path), "before", tmp_path, DEAD, lazy)
    time.sleep(0.5)  # its heartbeat expires
    kill_writer(
        str(path), "park", tmp_path, [{"id": "y", "city": "ny", "ts": 3}], lazy, park=ROLLBACK_POINTS["executed"]
    )
    rollback_time = _pending_rollback(table)
    WriteClient(HudiTable.open(str(path)), HudiSettings.from_hoodie_options(lazy)).upsert(
        _rows([{"id": "b", "city": "sf", "ts": 4}])
    )
    _finished(table, rollback_time)
    assert _ours(path) == [("a", "sf", 1), ("b", "sf", 4), ("x", "ny", 1), ("y", "ny", 1)]


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 6)])
@pytest.mark.parametrize("recovery", ["hudi-fw rollback", "next writer"])
def test_a_killed_rollback_of_the_latest_commit_is_finished(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable], table_type: str, version: int, recovery: str
) -> None:
    path = tmp_path / "t"
    table = make_table(path, table_type, version)
    WriteClient(table).upsert(_rows(DEAD))
    latest = table.reload().timeline.latest_completed_commit()
    assert latest is not None
    kill_writer(str(path), "park", tmp_path, [], operation="rollback", park=ROLLBACK_POINTS["executed"])
    rollback_time = _pending_rollback(table)
    assert _ours(path) == _hudi_rs(path) == START, "the commit is gone or whole, never half"
    if recovery == "hudi-fw rollback":
        result = rollback_latest_commit(HudiTable.open(str(path)))
        assert result.rollback_instant is not None
        assert result.rollback_instant.requested_time == rollback_time, "finishes the killed one, rolls back no other"
    else:
        WriteClient(HudiTable.open(str(path))).upsert(_rows([{"id": "b", "city": "sf", "ts": 4}]))
    _finished(table, rollback_time)
    timeline = table.timeline
    assert latest.requested_time not in {i.requested_time for i in timeline.instants}
    assert len(timeline.commits_timeline()) == (1 if recovery == "hudi-fw rollback" else 2)
    expected = (
        START if recovery == "hudi-fw rollback" else [("a", "sf", 1), ("b", "sf", 4), ("x", "ny", 1), ("y", "ny", 1)]
    )
    assert _ours(path) == _hudi_rs(path) == expected


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 6), ("MERGE_ON_READ", 9)])
def test_a_killed_restore_is_resumed(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable], table_type: str, version: int
) -> None:
    path = tmp_path / "t"
    table = make_table(path, table_type, version)
    savepoint = table.reload().timeline.latest_completed_commit()
    assert savepoint is not None
    create_savepoint(table, savepoint.requested_time)
    client = WriteClient(table)
    client.upsert(_rows(DEAD))
    client.upsert(_rows([{"id": "b", "city": "sf", "ts": 3}, {"id": "n", "city": "la", "ts": 3}]))
    # The restore dies after rolling back the newest commit, while completing the second rollback.
    operation = f"restore:{savepoint.requested_time}"
    kill_writer(str(path), "park", tmp_path, [], operation=operation, park=ROLLBACK_POINTS["executed"] + "@2")
    (restore,) = table.reload().timeline.pending({Action.RESTORE})
    with pytest.raises(PendingRestoreError, match=restore.requested_time):
        client.upsert(_rows([{"id": "z", "city": "ny", "ts": 9}]))
    result = restore_to_savepoint(HudiTable.open(str(path)), savepoint.requested_time)
    assert result.restore_instant.requested_time == restore.requested_time, "the same restore, resumed"
    timeline = table.reload().timeline
    assert not timeline.pending()
    assert [i.requested_time for i in timeline.completed({Action.RESTORE})] == [restore.requested_time]
    assert timeline.by_action(Action.ROLLBACK) == []
    assert stray_objects(table) == []
    assert _ours(path) == _hudi_rs(path) == START
    client.upsert(_rows([{"id": "z", "city": "ny", "ts": 9}]))
    assert _ours(path) == [*START, ("z", "ny", 9)]
