"""The merge-on-read append task: file names, blocks, meta columns, markers and write stats."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.layout.naming import LogFileName
from hudi_framework.log import BlockType, DataBlock, DeleteBlock, OrderingType, read_log_file
from hudi_framework.log.delete_records import COMMIT_TIME_ORDERING
from hudi_framework.testing.memory_storage import MemoryStorageBackend as MemoryStorage
from hudi_framework.write.file_group_task import FileGroupWrite, WriteTaskContext
from hudi_framework.write.log_task import append_file_group, ordering_values
from hudi_framework.write.markers import IOType, marked_data_files, marker_key
from hudi_framework.write.session import WriteSession

DATA = pa.schema([pa.field("id", pa.string()), pa.field("ts", pa.int64()), pa.field("v", pa.float64())])
INSTANT = "20240101000000123"
BASE_INSTANT = "20240101000000000"


def _ctx(version: int, **kwargs: object) -> WriteTaskContext:
    from hudi_framework.table.table_config import new_table_config

    config = new_table_config("t", version=version, record_key_fields=["id"], ordering_fields=["ts"])
    return WriteTaskContext(
        instant=INSTANT,
        schema=WriteSession.file_schema(config, DATA),
        ordering_fields=("ts",),
        table_name="t",
        table_version=version,
        **kwargs,  # type: ignore[arg-type]
    )


def _incoming(keys: list[str], ts: list[int], deleted: list[bool]) -> pa.Table:
    return pa.table(
        {
            "id": keys,
            "ts": pa.array(ts, pa.int64()),
            "v": [1.0] * len(keys),
            "_hoodie_record_key": keys,
            "_hoodie_partition_path": ["sf"] * len(keys),
            "_hoodie_is_deleted": deleted,
        }
    )


def _target(**kwargs: object) -> FileGroupWrite:
    base = f"abc-0_0-0-0_{BASE_INSTANT}.parquet"
    return FileGroupWrite(
        "sf",
        "abc-0",
        f"sf/{base}",
        BASE_INSTANT,
        append=True,
        slice_instant=BASE_INSTANT,
        slice_base_file=base,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("version", [8, 9])
def test_v8_plus_appends_a_log_file_of_its_own(version: int) -> None:
    storage = MemoryStorage()
    incoming = _incoming(["a", "b", "c"], [5, 6, 7], [False, True, False])
    ctx = _ctx(version, delete_ordering=True)
    (stat,) = append_file_group(storage, ctx, _target(), incoming, task_partition_id=3, write_token="3-1-0")
    name = f".abc-0_{INSTANT}.log.1_3-1-0"
    assert stat.path == f"sf/{name}"
    assert (stat.prev_commit, stat.base_file, stat.log_files, stat.log_version) == (INSTANT, "", [name], 1)
    assert (stat.num_writes, stat.num_update_writes, stat.num_deletes, stat.num_inserts) == (2, 2, 1, 0)
    assert stat.file_size_in_bytes == stat.total_write_bytes == storage.size(stat.path)
    assert marked_data_files(storage, INSTANT) == [stat.path]
    assert storage.exists(marker_key(INSTANT, "sf", name, IOType.APPEND))
    data, deletes = list(read_log_file(storage, stat.path))
    assert isinstance(data, DataBlock)
    assert isinstance(deletes, DeleteBlock)
    assert data.block_type is BlockType.AVRO_DATA
    rows = data.records.to_pylist()
    assert [r["_hoodie_record_key"] for r in rows] == ["a", "c"]
    assert {r["_hoodie_file_name"] for r in rows} == {"abc-0"}  # Java writes the file id in log records
    assert {r["_hoodie_commit_time"] for r in rows} == {INSTANT}
    assert [r["_hoodie_commit_seqno"] for r in rows] == [f"{INSTANT}_3_0", f"{INSTANT}_3_1"]
    assert data.records.column_names[:5] == [
        "_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
        "_hoodie_file_name",
    ]  # fmt: skip
    assert deletes.record_keys == ("b",)
    assert deletes.partition_paths == ("sf",)
    # A soft delete of an upsert carries its ordering value (ts is a long: LongWrapper).
    (ordering,) = deletes.ordering_values
    assert ordering is not None
    assert (ordering.type, ordering.value) == (OrderingType.LONG, 6)
    assert '"_hoodie_commit_time"' in deletes.header[next(iter(k for k in deletes.header if k.name == "SCHEMA"))]


def test_v6_appends_the_next_version_named_after_the_slice() -> None:
    storage = MemoryStorage()
    existing = LogFileName("abc-0", BASE_INSTANT, 1, "0-0-0")
    storage.write(f"sf/{existing.name}", b"")
    target = _target(slice_log_files=(existing.name,))
    (stat,) = append_file_group(storage, _ctx(6), target, _incoming(["a"], [1], [False]))
    name = LogFileName.parse((stat.path or "").rsplit("/", 1)[-1])
    assert (name.instant_time, name.version) == (BASE_INSTANT, 2)
    assert stat.prev_commit == BASE_INSTANT
    assert stat.base_file == target.slice_base_file
    assert stat.log_files == [existing.name, name.name]
    (block,) = list(read_log_file(storage, stat.path or ""))
    assert block.instant_time == INSTANT  # blocks carry the delta commit, the name the slice


def test_a_pending_compaction_slice_without_base_file() -> None:
    storage = MemoryStorage()
    pending = "20240101000000100"
    target = FileGroupWrite("sf", "abc-0", None, None, append=True, slice_instant=pending)
    (stat,) = append_file_group(storage, _ctx(6), target, _incoming(["a"], [1], [False]))
    assert LogFileName.parse((stat.path or "").rsplit("/", 1)[-1]).instant_time == pending
    assert stat.base_file == ""
    assert stat.prev_commit == pending


def test_delete_operation_writes_commit_time_deletes_and_parquet_blocks() -> None:
    storage = MemoryStorage()
    ctx = _ctx(9, delete_ordering=False, log_block_type=BlockType.PARQUET_DATA)
    (stat,) = append_file_group(storage, ctx, _target(), _incoming(["a", "b"], [5, 6], [True, True]))
    (deletes,) = list(read_log_file(storage, stat.path or ""))
    assert isinstance(deletes, DeleteBlock)
    assert deletes.ordering_values == (COMMIT_TIME_ORDERING, COMMIT_TIME_ORDERING)
    (stat,) = append_file_group(storage, ctx, _target(), _incoming(["c"], [5], [False]), write_token="1-0-0")
    (data,) = list(read_log_file(storage, stat.path or ""))
    assert isinstance(data, DataBlock)
    assert data.block_type is BlockType.PARQUET_DATA
    assert data.records.column("id").to_pylist() == ["c"]


def test_ordering_values_wrap_by_type_and_fall_back_to_commit_time() -> None:
    rows = pa.table({"a": pa.array([1, None], pa.int32()), "s": ["x", None]})
    assert [(o.type, o.value) for o in ordering_values(rows, ["a"])] == [
        (OrderingType.INT, 1), (COMMIT_TIME_ORDERING.type, 0),
    ]  # fmt: skip
    assert [o.type for o in ordering_values(rows, ["s"])] == [OrderingType.STRING, OrderingType.INT]
    assert ordering_values(rows, []) == [COMMIT_TIME_ORDERING] * 2
    (arr, _) = ordering_values(rows, ["a", "s"])
    assert arr.type is OrderingType.ARRAY


@pytest.mark.parametrize("version", [6, 9])
def test_an_append_over_the_log_file_limit_rolls_over(version: int) -> None:
    """Rows and deletes spread over log files of increasing version, none past the limit (each
    holds more than one block or is under it), read back in order: exactly the rows appended."""
    storage = MemoryStorage()
    n = 400
    keys = [f"k{i:04d}" for i in range(n)]
    deleted = [i % 10 == 0 for i in range(n)]
    incoming = _incoming(keys, list(range(n)), deleted)
    limit = 2048
    ctx = _ctx(version, delete_ordering=True, log_file_max_size=limit)
    stats = append_file_group(storage, ctx, _target(), incoming, write_token="2-0-0")
    assert len(stats) >= 3
    names = [LogFileName.parse((s.path or "").rsplit("/", 1)[-1]) for s in stats]
    assert [n.version for n in names] == list(range(names[0].version, names[0].version + len(stats)))
    assert {n.instant_time for n in names} == {INSTANT if version >= 8 else BASE_INSTANT}
    assert sorted(marked_data_files(storage, INSTANT)) == sorted(s.path or "" for s in stats)
    upserts, deletes = [], []
    for stat in stats:
        blocks = list(read_log_file(storage, stat.path or ""))
        assert stat.file_size_in_bytes == storage.size(stat.path or "")
        assert len(blocks) == 1 or (stat.file_size_in_bytes or 0) <= limit
        file_upserts = [k for b in blocks if isinstance(b, DataBlock) for k in b.records["id"].to_pylist()]
        file_deletes = [k for b in blocks if isinstance(b, DeleteBlock) for k in b.record_keys]
        assert (stat.num_writes, stat.num_deletes) == (len(file_upserts), len(file_deletes))
        upserts += file_upserts
        deletes += file_deletes
    assert upserts == [k for k, d in zip(keys, deleted, strict=True) if not d]
    assert deletes == [k for k, d in zip(keys, deleted, strict=True) if d]
    # The write stats list the log files cumulatively, as Apache Hudi's append handle does.
    assert stats[-1].log_files[-len(stats) :] == [n.name for n in names]


def test_pack_blocks_starts_a_file_when_the_next_block_would_pass_the_limit() -> None:
    from hudi_framework.log.writer import pack_blocks

    assert pack_blocks([], 10) == []
    assert pack_blocks([4, 4, 4], 10) == [range(0, 2), range(2, 3)]
    assert pack_blocks([4, 6, 1], 10) == [range(0, 2), range(2, 3)]
    assert pack_blocks([25, 3, 30], 10) == [range(0, 1), range(1, 2), range(2, 3)]  # oversized blocks alone
