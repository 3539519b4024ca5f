"""Typed block models: how writers make blocks, and what they refuse."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pytest

from hudi_framework.errors import CorruptLogBlockError, HFileFormatError, LogBlockEncodeError
from hudi_framework.log import (
    COMMIT_TIME_ORDERING,
    BlockType,
    CommandBlock,
    CommandType,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    HeaderKey,
    HFileBlock,
    LogBlock,
    OrderingType,
    OrderingValue,
    decode_block,
    encode_block,
)
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_json, with_meta_fields

INSTANT = "20250101000000000"
SCHEMA = with_meta_fields(arrow_to_avro(pa.schema([("id", pa.int64()), ("name", pa.string())]), "t"))


def _records() -> pa.Table:
    meta = {name: [f"{name}-1", f"{name}-2"] for name in META_FIELDS}
    return pa.table({**meta, "name": ["a", "b"], "id": [1, 2]})


def test_data_block_create_orders_columns_and_writes_instant_then_schema() -> None:
    block = DataBlock.create(_records(), instant_time=INSTANT, schema=SCHEMA)
    assert block.records.column_names == [*META_FIELDS, "id", "name"]
    assert list(block.header) == [HeaderKey.INSTANT_TIME, HeaderKey.SCHEMA]
    assert block.instant_time == INSTANT
    assert block.avro_schema == SCHEMA
    assert block.record_count == 2
    assert block.record_keys is not None
    assert block.record_keys.to_pylist() == ["_hoodie_record_key-1", "_hoodie_record_key-2"]
    assert block.block_type is BlockType.AVRO_DATA


def test_data_block_keeps_schema_text_as_given() -> None:
    text = avro_json(SCHEMA)
    block = DataBlock.create(_records(), instant_time=INSTANT, schema=text)
    assert block.schema_json == text


def test_parquet_data_block_round_trips() -> None:
    block = DataBlock.create(_records(), instant_time=INSTANT, schema=SCHEMA, block_type=BlockType.PARQUET_DATA)
    data = encode_block(block)
    assert data.count(b"PAR1") >= 2
    assert decode_block(data) == block


def test_data_block_rejects_non_data_types() -> None:
    with pytest.raises(LogBlockEncodeError, match="not a data block type"):
        DataBlock(_records(), {}, {}, BlockType.DELETE)


def test_data_block_without_schema_cannot_be_encoded() -> None:
    block = DataBlock(_records(), {HeaderKey.INSTANT_TIME: INSTANT})
    with pytest.raises(LogBlockEncodeError, match="SCHEMA"):
        encode_block(block)


def test_delete_block_create_defaults_to_commit_time_deletes() -> None:
    block = DeleteBlock.create(["k1", "k2"], ["p", ""], instant_time=INSTANT, schema=SCHEMA)
    assert block.ordering_values == (COMMIT_TIME_ORDERING, COMMIT_TIME_ORDERING)
    assert block.record_keys == ("k1", "k2")
    assert block.partition_paths == ("p", "")
    assert block.header[HeaderKey.SCHEMA] == avro_json(SCHEMA)
    assert block.to_arrow().to_pylist() == [
        {"_hoodie_record_key": "k1", "_hoodie_partition_path": "p"},
        {"_hoodie_record_key": "k2", "_hoodie_partition_path": ""},
    ]
    assert block.block_type is BlockType.DELETE


def test_delete_block_create_takes_ordering_values() -> None:
    value = OrderingValue(OrderingType.LONG, 7)
    block = DeleteBlock.create(["k"], ["p"], instant_time=INSTANT, ordering_values=[value])
    assert decode_block(encode_block(block)) == block
    with pytest.raises(LogBlockEncodeError, match="1 keys, 2 partition paths"):
        DeleteBlock.create(["k"], ["p", "q"], instant_time=INSTANT)


def test_rollback_block() -> None:
    block = CommandBlock.rollback(instant_time="2", target_instant_time="1")
    assert block.command_type is CommandType.ROLLBACK
    assert block.target_instant_time == "1"
    assert block.header[HeaderKey.COMMAND_BLOCK_TYPE] == "0"
    assert block.block_type is BlockType.COMMAND


def test_hfile_block_content_that_is_no_hfile_is_a_typed_error() -> None:
    block = HFileBlock(b"raw", {HeaderKey.INSTANT_TIME: INSTANT})
    assert block.block_type is BlockType.HFILE_DATA
    with pytest.raises(HFileFormatError, match="trailer"):
        _ = block.records


def test_corrupt_blocks_are_never_written() -> None:
    corrupt = CorruptBlock("f", 10, 5, "trailer mismatch", INSTANT)
    assert corrupt.block_type is BlockType.CORRUPT
    error = corrupt.error()
    assert isinstance(error, CorruptLogBlockError)
    assert (error.path, error.offset) == ("f", 10)
    with pytest.raises(LogBlockEncodeError, match="never written"):
        encode_block(corrupt)


def test_blocks_pickle_for_workers() -> None:
    block = DataBlock.create(_records(), instant_time=INSTANT, schema=SCHEMA)
    assert pickle.loads(pickle.dumps(block)) == block
    deletes = DeleteBlock.create(["k"], ["p"], instant_time=INSTANT)
    assert pickle.loads(pickle.dumps(deletes)) == deletes


@pytest.mark.parametrize(
    ("block", "reason"),
    [
        (DeleteBlock.create(["k"], ["p"], instant_time="2025-01-01"), "not an instant time"),
        (CommandBlock({HeaderKey.INSTANT_TIME: INSTANT, HeaderKey.COMMAND_BLOCK_TYPE: "0"}), "TARGET_INSTANT_TIME"),
        (HFileBlock(b"not an hfile", {HeaderKey.INSTANT_TIME: INSTANT}), "HFile version"),
    ],
)
def test_blocks_the_reader_would_reject_are_not_written(block: LogBlock, reason: str) -> None:
    with pytest.raises(LogBlockEncodeError, match=reason):
        encode_block(block)
