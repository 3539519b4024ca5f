"""Snapshot, time-travel and read-optimized reads of hand-built tables."""

from __future__ import annotations

import pickle
from pathlib import Path

import hudi
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.errors import TimeTravelError, UnknownColumnError
from hudi_framework.model.schema import META_FIELDS
from hudi_framework.read import ReadOptions, plan_read, read_batches, read_schema, read_table, read_task
from hudi_framework.runtime.table import HudiTable
from hudi_framework.testing.memory_storage import MemoryStorageBackend
from hudi_framework.timeline import Action
from tests.unit.read.builder import SCHEMA, FileWrite, TableBuilder, rows, t


def _ids(table: pa.Table) -> list[tuple[str, float]]:
    return sorted(zip(table.column("id").to_pylist(), table.column("fare").to_pylist(), strict=True))


def _two_commits(path: str, version: int = 9, **kw: object) -> TableBuilder:
    b = TableBuilder(path, version=version, **kw)  # type: ignore[arg-type]
    b.commit(t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf"), ("b", 1, 2.0, "sf"))),
                    FileWrite("nyc", "f2-0", rows(("c", 1, 3.0, "nyc")))])  # fmt: skip
    b.commit(t(2), [FileWrite("sf", "f1-0", rows(("a", 2, 5.0, "sf"), ("b", 1, 2.0, "sf")), [t(2), t(1)])])
    return b


@pytest.mark.parametrize("version", [6, 8, 9])
def test_snapshot_and_time_travel(tmp_path: Path, version: int) -> None:
    b = _two_commits(str(tmp_path), version)
    latest = read_table(b.table)
    assert latest.column_names == [*META_FIELDS, *SCHEMA.names]
    assert latest.schema.field("_hoodie_commit_time").type == pa.string()
    assert _ids(latest) == [("a", 5.0), ("b", 2.0), ("c", 3.0)]
    assert _ids(read_table(b.table, as_of=t(1))) == [("a", 1.0), ("b", 2.0), ("c", 3.0)]
    assert read_table(b.table, as_of=t(0)).num_rows == 0
    # A date-time as-of: between the two commits.
    assert _ids(read_table(b.table, as_of="2024-01-01 00:00:01.500")) == [("a", 1.0), ("b", 2.0), ("c", 3.0)]
    # Cross-check with hudi-rs, which reads our hand-built table too.
    theirs = pa.Table.from_batches(
        hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build().read(hudi.HudiReadOptions())
    )
    assert _ids(theirs) == _ids(latest)


def test_replaced_file_groups_vanish_from_later_snapshots(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path))
    b.commit(t(3), [FileWrite("sf", "f3-0", rows(("z", 3, 9.0, "sf")))], replaced=[("sf", "f1-0")])
    assert _ids(read_table(b.table)) == [("c", 3.0), ("z", 9.0)]
    assert _ids(read_table(b.table, as_of=t(2))) == [("a", 5.0), ("b", 2.0), ("c", 3.0)]


def test_files_of_pending_instants_are_not_read(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path))
    pending = b.start(t(3))
    pq.write_table(pa.table({"id": ["ghost"]}), str(tmp_path / "sf" / f"f9-0_0-0-0_{pending.requested_time}.parquet"))
    b.table.reload()
    assert _ids(read_table(b.table)) == [("a", 5.0), ("b", 2.0), ("c", 3.0)]


def test_time_travel_must_precede_the_first_incomplete_commit(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path))
    b.start(t(3))
    b.commit(t(4), [FileWrite("la", "f4-0", rows(("d", 4, 4.0, "la")))])
    with pytest.raises(TimeTravelError, match=t(3)) as err:
        read_table(b.table, as_of=t(4))
    assert err.value.incomplete == t(3)
    assert read_table(b.table, as_of=t(2)).num_rows == 3


def test_pending_clustering_does_not_block_time_travel(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path))
    b.writer.create_requested(Action.CLUSTERING, t(3), content=b"")
    b.table.reload()
    assert read_table(b.table, as_of=t(3)).num_rows == 3


def test_projection_and_filters(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path))
    plan = plan_read(b.table, ReadOptions(columns=("fare", "id"), filters=(("city", "=", "sf"), ("fare", ">", 3))))
    assert [task.partition_path for task in plan.tasks] == ["sf"]
    out = read_table(b.table, columns=["fare", "id"], filters=[("city", "=", "sf"), ("fare", ">", 3)])
    assert out.column_names == ["fare", "id"]
    assert out.to_pylist() == [{"fare": 5.0, "id": "a"}]
    with pytest.raises(UnknownColumnError, match="nope"):
        read_table(b.table, columns=["nope"])


def test_dropped_partition_columns_come_back_typed(tmp_path: Path) -> None:
    schema = pa.schema([("id", pa.string()), ("ts", pa.int64()), ("fare", pa.float64()), ("year", pa.int32())])
    b = TableBuilder(str(tmp_path), partition_fields=("year",), hive_style=True, drop_partition_columns=True,
                     schema=schema)  # fmt: skip
    data = pa.table({"id": ["a"], "ts": [1], "fare": [1.0], "year": pa.array([2024], pa.int32())})
    b.commit(t(1), [FileWrite(b.path(year=2024), "f1-0", data)])
    assert "year" not in pq.read_schema(str(tmp_path / "year=2024" / f"f1-0_0-0-0_{t(1)}.parquet")).names
    out = read_table(b.table, filters=[("year", ">=", 2024)])
    assert out.schema.field("year").type == pa.int32()
    assert out.column("year").to_pylist() == [2024]
    assert read_table(b.table, filters=[("year", "<", 2024)]).num_rows == 0


def test_table_without_meta_fields(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path), populate_meta_fields=False)
    out = read_table(b.table)
    assert out.column_names == SCHEMA.names
    assert _ids(out) == [("a", 5.0), ("b", 2.0), ("c", 3.0)]


def test_merge_on_read_snapshot_merges_log_files(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path), table_type="MERGE_ON_READ")
    assert _ids(read_table(b.table)) == _ids(read_table(b.table, query_type="read_optimized"))
    # An empty log file (no blocks) makes the slice a merged one that changes nothing
    # (tests/unit/mor_read covers log files with blocks).
    (tmp_path / "sf" / f".f1-0_{t(2)}.log.1_0-0-0").write_bytes(b"")
    b.table.reload()
    assert _ids(read_table(b.table)) == [("a", 5.0), ("b", 2.0), ("c", 3.0)]
    assert _ids(read_table(b.table, query_type="read_optimized")) == [("a", 5.0), ("b", 2.0), ("c", 3.0)]


def test_tasks_are_plain_data_run_anywhere() -> None:
    storage = MemoryStorageBackend("memory://bucket/trips")
    b = _two_commits_on(storage)
    plan = plan_read(HudiTable.open(storage.root_uri, storage=storage), ReadOptions())
    shipped = pickle.loads(pickle.dumps(plan.tasks))
    batches = [batch for task in shipped for batch in read_task(task, storage)]
    assert all(batch.schema == plan.schema for batch in batches)
    assert _ids(pa.Table.from_batches(batches)) == _ids(read_table(b.table))


def test_batches_are_bounded(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path))
    sizes = [batch.num_rows for batch in read_batches(b.table, batch_size=1)]
    assert sizes == [1, 1, 1]


def _two_commits_on(storage: MemoryStorageBackend) -> TableBuilder:
    b = TableBuilder(storage)
    b.commit(
        t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf"))), FileWrite("nyc", "f2-0", rows(("c", 1, 3.0, "nyc")))]
    )
    return b


def test_schema_as_of_the_instant(tmp_path: Path) -> None:
    b = _two_commits(str(tmp_path))
    evolved = SCHEMA.append(pa.field("tip", pa.float64()))
    b.schema = evolved
    data = rows(("e", 3, 1.0, "la")).append_column("tip", pa.array([0.5]))
    b.commit(t(3), [FileWrite("la", "f3-0", data)])
    latest = read_table(b.table)
    assert latest.column_names[-1] == "tip"
    assert sorted(latest.column("tip").to_pylist(), key=lambda v: v is None) == [0.5, None, None, None]
    # Filters on a column projected away and missing from the older files (null there).
    assert sorted(read_table(b.table, columns=["id"], filters=[("tip", "is null")]).column("id").to_pylist()) == [
        "a",
        "b",
        "c",
    ]
    # Time travel reads in the schema of that time, as Apache Hudi does.
    assert "tip" not in read_table(b.table, as_of=t(2)).column_names
    assert "tip" not in read_schema(b.table, as_of="2024-01-01 00:00:02.900").names
