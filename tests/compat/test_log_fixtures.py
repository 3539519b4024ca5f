"""Every log block of every MOR fixture written by Apache Hudi decodes, and re-encodes to Java's bytes.

Covers the data tables' log files and the metadata tables' (HFILE_DATA and DELETE blocks). Parquet
blocks cannot be re-encoded to parquet-mr's bytes; their records must survive a round trip.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.naming import LogFileName
from hudi_framework.log import (
    COMMIT_TIME_ORDERING,
    Block,
    BlockType,
    CommandBlock,
    CommandType,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    HFileBlock,
    LogBlock,
    decode_block,
    encode_block,
    read_log_file,
)
from hudi_framework.model.schema import META_FIELDS, avro_to_arrow
from hudi_framework.runtime.table import HudiTable
from hudi_framework.testing.memory_storage import MemoryStorageBackend
from tests.fixture_tables import FixtureTable, all_fixture_tables

MOR = [t for t in all_fixture_tables() if t.id.startswith("mor/")]
Extract = Callable[[FixtureTable], tuple[Path, Path | None]]


def _log_files(storage: StorageBackend) -> list[str]:
    return sorted(i.key for i in storage.list("", recursive=True) if LogFileName.try_parse(i.name) is not None)


def _blocks(storage: StorageBackend, key: str) -> Iterator[tuple[LogBlock, bytes]]:
    raw = storage.read(key)
    for block in read_log_file(storage, key):
        assert not isinstance(block, CorruptBlock), f"{key}: {block}"
        assert block.position is not None
        yield block, raw[block.position.offset : block.position.offset + block.position.size]


@pytest.mark.parametrize("fixture", MOR, ids=[t.id for t in MOR])
def test_every_block_decodes_and_re_encodes(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    storage = HudiTable.open(str(base)).storage
    for key in _log_files(storage):
        in_mdt = key.startswith(".hoodie/")
        blocks = list(_blocks(storage, key))
        assert blocks or storage.size(key) == 0, key
        for block, original in blocks:
            if isinstance(block, DataBlock) and block.block_type is BlockType.PARQUET_DATA:
                assert decode_block(encode_block(block)) == block
            else:
                # Avro, delete, command and HFile encodings are deterministic: Java's exact bytes.
                assert encode_block(block) == original, f"{key} block at {block.position}"
            if isinstance(block, DataBlock) and not in_mdt:
                _check_data_block(block, LogFileName.parse(key.rsplit("/", 1)[-1]), key.rpartition("/")[0])
            elif isinstance(block, DeleteBlock):
                _check_delete_block(block, in_mdt)
            elif isinstance(block, CommandBlock):
                assert block.command_type is CommandType.ROLLBACK
                assert block.target_instant_time.isdigit()
            else:
                assert in_mdt
                assert isinstance(block, HFileBlock | DataBlock)


def _check_data_block(block: DataBlock, name: LogFileName, partition: str) -> None:
    records = block.records
    assert block.instant_time is not None
    assert block.instant_time.isdigit()
    assert records.num_rows > 0
    assert records.column_names[:5] == list(META_FIELDS)
    assert records.schema == avro_to_arrow(block.schema_json)  # the SCHEMA header's Arrow form
    keys = records.column("_hoodie_record_key").to_pylist()
    if all(k is None for k in keys):
        return  # meta fields not populated
    assert None not in keys
    assert len(set(keys)) == len(keys)
    for row in records.select(list(META_FIELDS)).to_pylist():
        assert row["_hoodie_commit_time"] == block.instant_time
        assert row["_hoodie_commit_seqno"].startswith(f"{block.instant_time}_")
        assert row["_hoodie_file_name"] == name.file_id
        assert row["_hoodie_partition_path"] == partition


def _check_delete_block(block: DeleteBlock, in_mdt: bool) -> None:
    assert block.instant_time is not None
    assert block.instant_time.isdigit()
    for record in block.records:
        assert record.record_key
        # Apache Hudi's SQL DELETE writes IntWrapper(0), a commit-time delete.
        assert record.ordering_value == COMMIT_TIME_ORDERING
    if not in_mdt:
        assert block.records


def _normalise(column: pa.ChunkedArray) -> list[object]:
    if pa.types.is_timestamp(column.type):
        # Gold data is Spark's naive nanoseconds in UTC; log records are UTC microseconds.
        column = column.cast(pa.timestamp("us", tz=column.type.tz)).cast(pa.int64())
    values: list[object] = column.to_pylist()
    return values


@pytest.mark.parametrize("fixture", MOR, ids=[t.id for t in MOR])
def test_latest_log_records_match_gold_data(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, gold_dir = extract_fixture(fixture)
    if gold_dir is None:
        pytest.skip("no gold data")
    gold = pa.concat_tables(pq.read_table(p) for p in sorted(gold_dir.glob("*.parquet")))
    if "_hoodie_commit_time" not in gold.column_names or not gold.num_rows:
        pytest.skip("gold data without meta fields")
    expected = {
        (r["_hoodie_record_key"], r["_hoodie_commit_time"]): i
        for i, r in enumerate(gold.select(["_hoodie_record_key", "_hoodie_commit_time"]).to_pylist())
    }
    storage = HudiTable.open(str(base)).storage
    matched = 0
    for key in _log_files(storage):
        if key.startswith(".hoodie/"):
            continue
        for block, _ in _blocks(storage, key):
            if not isinstance(block, DataBlock):
                continue
            records = block.records
            ids = zip(
                records.column("_hoodie_record_key").to_pylist(),
                records.column("_hoodie_commit_time").to_pylist(),
                strict=True,
            )
            for row, ident in enumerate(ids):
                if ident not in expected:
                    continue  # superseded by a later write, or deleted
                matched += 1
                # _hoodie_file_name is rewritten when clustering or compaction moves the row.
                for name in (set(records.column_names) & set(gold.column_names)) - {"_hoodie_file_name"}:
                    ours = _normalise(records.column(name).slice(row, 1))
                    theirs = _normalise(gold.column(name).slice(expected[ident], 1))
                    assert ours == theirs, f"{fixture.id} {ident} column {name}"
    if fixture.id == "mor/avro/v9_txns_simple_meta":
        assert matched >= 2  # TXN-001 and TXN-007 were last written by log blocks


def _java_log(extract_fixture: Extract) -> tuple[bytes, list[LogBlock]]:
    """Every data-table log block of one fixture, concatenated into one file."""
    fixture = next(t for t in MOR if t.id == "mor/avro/v9_txns_simple_meta")
    base, _ = extract_fixture(fixture)
    storage = HudiTable.open(str(base)).storage
    parts = [
        (block, raw)
        for key in _log_files(storage)
        if not key.startswith(".hoodie/")
        for block, raw in _blocks(storage, key)
    ]
    return b"".join(raw for _, raw in parts), [block for block, _ in parts]


def _rows(blocks: list[Block]) -> list[str]:
    return [k for b in blocks if isinstance(b, DataBlock) for k in b.records.column("_hoodie_record_key").to_pylist()]


def test_java_log_with_a_corrupted_tail(extract_fixture: Extract) -> None:
    data, blocks = _java_log(extract_fixture)
    storage = MemoryStorageBackend()
    storage.write("f.log", data[:-10])
    out = list(read_log_file(storage, "f.log"))
    assert _rows(out[:-1]) == _rows(list(blocks[:-1]))
    tail = out[-1]
    assert isinstance(tail, CorruptBlock)
    assert tail.path == "f.log"
    assert tail.offset == len(data) - len(encode_block(blocks[-1]))
    assert tail.instant_time == blocks[-1].instant_time


def test_java_log_with_a_corrupted_middle_block(extract_fixture: Extract) -> None:
    data, blocks = _java_log(extract_fixture)
    middle = len(encode_block(blocks[0]))
    damaged = data[:middle] + b"#HUDX#" + data[middle + 6 :]  # the second block's magic
    storage = MemoryStorageBackend()
    storage.write("f.log", damaged)
    out = list(read_log_file(storage, "f.log"))
    corrupt = [b for b in out if isinstance(b, CorruptBlock)]
    assert [(c.offset, c.length) for c in corrupt] == [(middle, len(encode_block(blocks[1])))]
    assert [b for b in out if not isinstance(b, CorruptBlock)] == [blocks[0], *blocks[2:]]
    assert _rows(out) == _rows([blocks[0], *blocks[2:]])
