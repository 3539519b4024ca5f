"""Log blocks a log compaction wrote (COMPACTED_BLOCK_TIMES header) replace the blocks of the instants
they list, in the merged read and in compaction's log statistics; an uncommitted compacted block
replaces nothing. The compacted blocks here differ on purpose from what merging the replaced ones
gives, so a reader that applied both would return other rows."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.log.blocks import CommandBlock, DataBlock, DeleteBlock, HeaderKey
from hudi_framework.log.writer import append_log_file
from hudi_framework.model.schema import arrow_to_avro, avro_json, with_meta_fields
from hudi_framework.read.merged import merge_file_slice
from hudi_framework.read.merged_task import InstantValidity, MergedReadTask
from hudi_framework.table.table_config import new_table_config
from hudi_framework.testing.memory_storage import MemoryStorageBackend
from hudi_framework.write.compaction_log_stats import scan_log_stats
from hudi_framework.write.session import WriteSession

DATA = pa.schema([pa.field("id", pa.string()), pa.field("ts", pa.int64()), pa.field("name", pa.string())])
CONFIG = new_table_config("t", version=9, record_key_fields=["id"], ordering_fields=["ts"])
SCHEMA = WriteSession.file_schema(CONFIG, DATA)
AVRO = avro_json(with_meta_fields(arrow_to_avro(DATA, "t")))
I1, I2, LC, I3, LC2 = (
    "20250101000000001",
    "20250101000000002",
    "20250101000000003",
    "20250101000000004",
    "20250101000000005",
)


def _records(instant: str, rows: list[tuple[str, int, str]]) -> pa.Table:
    n = len(rows)
    return pa.table(
        {
            "_hoodie_commit_time": [instant] * n,
            "_hoodie_commit_seqno": [f"{instant}_0_{i}" for i in range(n)],
            "_hoodie_record_key": [r[0] for r in rows],
            "_hoodie_partition_path": [""] * n,
            "_hoodie_file_name": ["fg1"] * n,
            "id": [r[0] for r in rows],
            "ts": pa.array([r[1] for r in rows], pa.int64()),
            "name": [r[2] for r in rows],
        },
        schema=SCHEMA,
    )


def _data(instant: str, rows: list[tuple[str, int, str]], compacted: str | None = None) -> DataBlock:
    header = {HeaderKey.COMPACTED_BLOCK_TIMES: compacted} if compacted else None
    return DataBlock.create(_records(instant, rows), instant_time=instant, schema=AVRO, extra_header=header)


def _slice(storage: MemoryStorageBackend) -> list[str]:
    files = [
        # x only ever lives in the replaced blocks: a reader that applies them returns it.
        [_data(I1, [("a", 1, "a1"), ("x", 1, "x1"), ("b", 1, "b1")])],
        [_data(I2, [("a", 2, "a2")]), DeleteBlock.create(["b"], [""], instant_time=I2)],
        [_data(LC, [("a", 2, "a-compacted")], compacted=f"{I1},{I2}")],
        [_data(I3, [("c", 1, "c3")])],
        [_data(LC2, [("a", 2, "a-compacted-twice"), ("c", 1, "c-compacted")], compacted=f"{LC},{I3}")],
    ]
    keys = []
    for version, blocks in enumerate(files, start=1):
        key = f".fg1_{I1}.log.{version}_0-0-0"
        append_log_file(storage, key, blocks)
        keys.append(key)
    return keys


def _read(storage: MemoryStorageBackend, keys: list[str], completed: set[str], merger: RecordMerger) -> dict[str, str]:
    task = MergedReadTask(
        base_file_key=None, log_file_keys=tuple(keys), validity=InstantValidity(frozenset(completed)),
        merger=merger, merge_schema=SCHEMA, schema=SCHEMA, partition_path="", ordering_fields=("ts",),
        record_key_field="_hoodie_record_key",
    )  # fmt: skip
    rows = pa.Table.from_batches(list(merge_file_slice(storage, task)), schema=SCHEMA)
    return dict(zip(rows.column("id").to_pylist(), rows.column("name").to_pylist(), strict=True))


@pytest.mark.parametrize(
    ("upto", "completed", "expected"),
    [
        # Log compactions not committed: their blocks are not read, the replaced ones are.
        (2, {I1, I2}, {"a": "a2", "x": "x1"}),
        (3, {I1, I2}, {"a": "a2", "x": "x1"}),
        # Committed: it replaces I1 and I2 (x is gone, b stays deleted).
        (3, {I1, I2, LC}, {"a": "a-compacted"}),
        (4, {I1, I2, LC, I3}, {"a": "a-compacted", "c": "c3"}),
        # A second log compaction replaces the first one's block and I3.
        (5, {I1, I2, LC, I3, LC2}, {"a": "a-compacted-twice", "c": "c-compacted"}),
        (5, {I1, I2, LC, I3}, {"a": "a-compacted", "c": "c3"}),
    ],
)
def test_compacted_blocks_replace_the_blocks_they_list(
    upto: int, completed: set[str], expected: dict[str, str], event_time: RecordMerger
) -> None:
    storage = MemoryStorageBackend()
    keys = _slice(storage)[:upto]
    assert _read(storage, keys, completed, event_time) == expected


def test_a_rolled_back_compacted_block_replaces_nothing(event_time: RecordMerger) -> None:
    """A rollback of the log compaction (v6 writes a ROLLBACK command block) restores the blocks it replaced."""
    storage = MemoryStorageBackend()
    keys = _slice(storage)[:3]
    rollback = f".fg1_{I1}.log.9_0-0-0"
    append_log_file(storage, rollback, [CommandBlock.rollback(instant_time=I3, target_instant_time=LC)])
    assert _read(storage, [*keys, rollback], {I1, I2, LC, I3}, event_time) == {"a": "a2", "x": "x1"}
    stats = scan_log_stats(
        storage, [*keys, rollback], InstantValidity(frozenset({I1, I2, LC, I3})),
        key_field="_hoodie_record_key", instant_in_file_name=False,
    )  # fmt: skip
    assert stats.total_log_records == 5  # I1's three records and I2's record and delete


def test_compaction_counts_only_the_records_a_read_applies() -> None:
    storage = MemoryStorageBackend()
    keys = _slice(storage)
    everything = {I1, I2, LC, I3, LC2}
    stats = scan_log_stats(
        storage,
        keys,
        InstantValidity(frozenset(everything)),
        key_field="_hoodie_record_key",
        instant_in_file_name=False,
    )
    assert stats.total_log_records == 2  # LC2's block only
    assert sorted(stats.record_keys.to_pylist()) == ["a", "c"]
