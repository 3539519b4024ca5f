"""Merged reads of merge-on-read tables built by hand: snapshot, time travel, incremental, validity rules."""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.log import CommandBlock
from hudi_framework.log.blocks import BlockType
from hudi_framework.log.delete_records import OrderingType, OrderingValue
from hudi_framework.read import ReadOptions, plan_read, read_table
from hudi_framework.read.log_records import CorruptLogBlockWarning
from hudi_framework.read.merged_task import MergedReadTask
from hudi_framework.read.plan import ReadTask
from hudi_framework.read.reader import run_task
from tests.unit.mor_read.builder import MorBuilder, data_block, delete_block
from tests.unit.read.builder import FileWrite, rows, t


def _ids(table: pa.Table) -> list[tuple[str, int, float]]:
    return sorted(zip(table.column("id").to_pylist(), table.column("ts").to_pylist(),
                      table.column("fare").to_pylist(), strict=True))  # fmt: skip


def _base(path: Path, **kwargs: object) -> MorBuilder:
    b = MorBuilder(str(path), **kwargs)  # type: ignore[arg-type]
    b.commit(t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf"), ("b", 1, 2.0, "sf"), ("c", 1, 3.0, "sf")))])
    return b


def _updates(b: MorBuilder) -> MorBuilder:
    updates = data_block(t(2), rows(("a", 2, 10.0, "sf"), ("d", 2, 4.0, "sf")), "sf", "f1-0")
    b.delta_commit(t(2), "sf", "f1-0", [updates], base_instant=t(1))
    b.delta_commit(t(3), "sf", "f1-0", [delete_block(t(3), ["b"], "sf")], base_instant=t(1))
    return b


@pytest.mark.parametrize("version", [6, 9])
def test_snapshot_merges_updates_inserts_and_deletes(tmp_path: Path, version: int) -> None:
    b = _updates(_base(tmp_path, version=version))
    out = read_table(b.table)
    assert _ids(out) == [("a", 2, 10.0), ("c", 1, 3.0), ("d", 2, 4.0)]
    assert out.column_names[:5] == ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key",
                                    "_hoodie_partition_path", "_hoodie_file_name"]  # fmt: skip
    by_id = dict(zip(out.column("id").to_pylist(), out.column("_hoodie_commit_time").to_pylist(), strict=True))
    assert by_id == {"a": t(2), "c": t(1), "d": t(2)}
    assert _ids(read_table(b.table, query_type="read_optimized")) == [("a", 1, 1.0), ("b", 1, 2.0), ("c", 1, 3.0)]
    # Time travel: blocks after as_of are not seen.
    assert _ids(read_table(b.table, as_of=t(2))) == [("a", 2, 10.0), ("b", 1, 2.0), ("c", 1, 3.0), ("d", 2, 4.0)]
    assert _ids(read_table(b.table, as_of=t(1))) == [("a", 1, 1.0), ("b", 1, 2.0), ("c", 1, 3.0)]


def test_projection_and_filters_apply_after_merging(tmp_path: Path) -> None:
    b = _updates(_base(tmp_path))
    out = read_table(b.table, columns=["id", "fare"], filters=[("ts", ">=", 2)])
    assert out.column_names == ["id", "fare"]
    assert sorted(out.column("id").to_pylist()) == ["a", "d"]
    # A filter on a column the old base row matched must not resurrect it: b is deleted in the logs.
    assert read_table(b.table, filters=[("id", "=", "b")]).num_rows == 0


def test_blocks_of_uncommitted_instants_are_ignored(tmp_path: Path) -> None:
    b = _updates(_base(tmp_path))
    b.delta_commit(t(4), "sf", "f1-0", [data_block(t(4), rows(("c", 9, 99.0, "sf")), "sf", "f1-0")],
                   base_instant=t(1), complete=False)  # fmt: skip
    assert _ids(read_table(b.table, as_of=t(3))) == [("a", 2, 10.0), ("c", 1, 3.0), ("d", 2, 4.0)]
    # The inflight delta commit blocks time travel past it, and its block never shows in a snapshot.
    assert ("c", 9, 99.0) not in _ids(read_table(b.table, query_type="read_optimized"))


def test_v6_rollback_command_block_cancels_earlier_blocks_of_its_target(tmp_path: Path) -> None:
    b = _base(tmp_path, version=6)
    b.delta_commit(t(2), "sf", "f1-0", [data_block(t(2), rows(("a", 2, 10.0, "sf")), "sf", "f1-0")], base_instant=t(1))
    b.delta_commit(t(3), "sf", "f1-0", [data_block(t(3), rows(("c", 3, 30.0, "sf")), "sf", "f1-0")], base_instant=t(1))
    assert ("c", 3, 30.0) in _ids(read_table(b.table))
    # A rollback of t(3) appended to the slice (v6 style) hides t(3)'s blocks; t(2)'s stay.
    b.append("sf", "f1-0", [CommandBlock.rollback(instant_time=t(4), target_instant_time=t(3))],
             instant=t(4), base_instant=t(1))  # fmt: skip
    b.table.reload()
    assert _ids(read_table(b.table)) == [("a", 2, 10.0), ("b", 1, 2.0), ("c", 1, 3.0)]


def test_event_time_ordering_keeps_the_larger_ordering_value(tmp_path: Path) -> None:
    b = _base(tmp_path)
    b.commit(t(2), [FileWrite("sf", "f1-0", rows(("a", 5, 1.0, "sf"), ("b", 5, 2.0, "sf"), ("c", 5, 3.0, "sf")))])
    late = rows(("a", 3, 100.0, "sf"), ("b", 7, 200.0, "sf"))
    b.delta_commit(t(3), "sf", "f1-0", [data_block(t(3), late, "sf", "f1-0")], base_instant=t(2))
    # A delete with an ordering value lower than the stored record's loses; a higher one deletes.
    long = OrderingType.LONG
    deletes = delete_block(t(4), ["c", "b"], "sf", [OrderingValue(long, 4), OrderingValue(long, 8)])
    b.delta_commit(t(4), "sf", "f1-0", [deletes], base_instant=t(2))
    assert _ids(read_table(b.table)) == [("a", 5, 1.0), ("c", 5, 3.0)]


def test_log_only_file_groups_and_parquet_blocks(tmp_path: Path) -> None:
    b = _base(tmp_path)
    block = data_block(t(2), rows(("x", 1, 7.0, "ny"), ("y", 1, 8.0, "ny")), "ny", "f2-0",
                       block_type=BlockType.PARQUET_DATA)  # fmt: skip
    b.delta_commit(t(2), "ny", "f2-0", [block], base_instant=t(2))
    b.delta_commit(t(3), "ny", "f2-0", [delete_block(t(3), ["y"], "ny")], base_instant=t(2))
    out = read_table(b.table)
    assert _ids(out) == [("a", 1, 1.0), ("b", 1, 2.0), ("c", 1, 3.0), ("x", 1, 7.0)]
    assert read_table(b.table, query_type="read_optimized").num_rows == 3


def test_incremental_returns_changed_records_in_their_latest_state(tmp_path: Path) -> None:
    b = _updates(_base(tmp_path))
    b.delta_commit(t(4), "sf", "f1-0", [data_block(t(4), rows(("d", 4, 40.0, "sf")), "sf", "f1-0")], base_instant=t(1))
    ends = {i.requested_time: i.completion_time for i in b.table.timeline.commits_timeline()}

    def window(begin: int | None, end: int) -> list[tuple[str, int, float]]:
        lower = ends[t(begin)] if begin is not None else None
        return _ids(read_table(b.table, query_type="incremental", begin=lower, end=ends[t(end)]))

    assert window(None, 1) == [("a", 1, 1.0), ("b", 1, 2.0), ("c", 1, 3.0)]
    assert window(1, 2) == [("a", 2, 10.0), ("d", 2, 4.0)]
    assert window(2, 3) == []  # only a delete
    assert window(3, 4) == [("d", 4, 40.0)]
    assert window(1, 4) == [("a", 2, 10.0), ("d", 4, 40.0)]
    assert window(None, 4) == [("a", 2, 10.0), ("c", 1, 3.0), ("d", 4, 40.0)]


def test_tasks_are_plain_data_run_anywhere(tmp_path: Path) -> None:
    b = _updates(_base(tmp_path))
    b.commit(t(5), [FileWrite("ny", "f3-0", rows(("z", 1, 1.0, "ny")))])
    plan = plan_read(b.table, ReadOptions())
    assert {type(task) for task in plan.tasks} == {ReadTask, MergedReadTask}
    shipped = pickle.loads(pickle.dumps(plan.tasks))
    batches = [batch for task in shipped for batch in run_task(task, b.table.storage)]
    assert all(batch.schema == plan.schema for batch in batches)
    assert _ids(pa.Table.from_batches(batches)) == _ids(read_table(b.table))


def test_merge_memory_option_by_hoodie_key(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    b = _updates(_base(tmp_path))
    caplog.set_level("INFO", logger="hudi_framework.read.log_records")
    out = read_table(b.table, options={"hoodie.memory.merge.max.size": "1"})
    assert _ids(out) == _ids(read_table(b.table))
    assert "spilling" in caplog.text


def test_no_warning_without_corruption(tmp_path: Path) -> None:
    b = _updates(_base(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CorruptLogBlockWarning)
        read_table(b.table)
