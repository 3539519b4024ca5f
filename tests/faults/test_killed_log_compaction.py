"""A log compaction killed with SIGKILL before its ``deltacommit`` completes: readers (ours and
hudi-rs) see the table as before (the compacted log file's blocks are of an instant that never
completed), and after recovery (executing the plan again, which rolls the dead attempt back first,
or rolling it back) the table reads the same and no file of the dead attempt is left."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.client import WriteClient
from hudi_framework.write.log_compactor import execute_log_compaction, rollback_log_compaction
from tests.faults.processes import kill_writer
from tests.faults.tables import start_table_copies
from tests.faults.test_killed_writer import _hudi_rs, _ours


def _log_files(path: Path) -> set[str]:
    return {str(p.relative_to(path)) for p in path.rglob(".*.log.*") if ".hoodie" not in p.parts}


@pytest.mark.matrix  # each value of each parameter by default, every combination with HUDI_TEST_SLOW=1
@pytest.mark.parametrize("version", [9, 6])
@pytest.mark.parametrize("recovery", ["execute", "rollback"])
def test_killed_log_compaction_reads_the_same_before_and_after_recovery(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, version: int, recovery: str
) -> None:
    path = tmp_path / "t"
    table = start_table_copies(tmp_path_factory)(path, "MERGE_ON_READ", version)
    client = WriteClient(table)
    for ts, ids in [(2, ["a", "x"]), (3, ["a", "b", "y"]), (4, ["x"])]:
        client.upsert(pa.Table.from_pylist([{"id": i, "city": "sf" if i < "m" else "ny", "ts": ts} for i in ids]))
    client.delete(pa.Table.from_pylist([{"id": "b", "city": "sf", "ts": 5}]))
    expected = _ours(path)
    assert expected == _hudi_rs(path) == [("a", "sf", 3), ("x", "ny", 4), ("y", "ny", 3)]
    logs_before = _log_files(path)

    kill_writer(str(path), "before", path.parent, [], None, "logcompact")
    table = HudiTable.open(str(path))
    (dead,) = table.timeline.pending()
    assert (dead.action, dead.state) == (Action.LOG_COMPACTION, State.INFLIGHT)
    assert _log_files(path) - logs_before, "the killed log compaction had written its log files"
    assert _ours(path) == _hudi_rs(path) == expected

    if recovery == "execute":
        done = execute_log_compaction(table, dead.requested_time)
        assert done.instant.action is Action.DELTA_COMMIT
        assert done.stats
        assert len(_log_files(path) - logs_before) == len(done.stats)
    else:
        rollback_log_compaction(table, dead.requested_time)
        assert _log_files(path) == logs_before, "the dead attempt's log files are gone"
        assert table.reload().timeline.get(dead.requested_time, Action.LOG_COMPACTION).state is State.REQUESTED
    assert not any((path / ".hoodie" / ".temp").rglob("*.marker.*")), "no orphan markers"
    assert _ours(path) == _hudi_rs(path) == expected
