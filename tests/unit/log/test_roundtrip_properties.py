"""Property tests: any sequence of blocks round-trips through bytes, in memory and through storage."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.log import (
    CorruptBlock,
    DataBlock,
    LogBlock,
    append_log_file,
    decode_block,
    encode_block,
    encode_blocks,
    read_log_bytes,
    read_log_file,
)
from hudi_framework.testing.memory_storage import MemoryStorageBackend
from tests.unit.log.strategies import data_blocks, delete_blocks, log_blocks

_SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(data_blocks())
def test_data_block_round_trip_is_exact(block: DataBlock) -> None:
    data = encode_block(block)
    decoded = decode_block(data)
    assert isinstance(decoded, DataBlock)
    assert decoded.records.schema == block.records.schema
    assert decoded.records.equals(block.records)
    assert list(decoded.header.items()) == list(block.header.items())
    # Avro binary encoding is canonical: the decoded block re-encodes to the same bytes.
    assert encode_block(decoded) == data


@_SETTINGS
@given(delete_blocks())
def test_delete_block_round_trip_is_exact(block: LogBlock) -> None:
    data = encode_block(block)
    decoded = decode_block(data)
    assert decoded == block
    assert encode_block(decoded) == data


@_SETTINGS
@given(st.lists(log_blocks, min_size=1, max_size=4))
def test_block_sequences_round_trip(blocks: list[LogBlock]) -> None:
    data, offsets = encode_blocks(blocks)
    decoded = list(read_log_bytes(data, path="p"))
    assert not [b for b in decoded if isinstance(b, CorruptBlock)]
    assert decoded == blocks
    positions = [b.position for b in decoded if not isinstance(b, CorruptBlock)]
    assert [p.offset for p in positions if p is not None] == list(offsets)
    assert sum(p.size for p in positions if p is not None) == len(data)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(log_blocks, min_size=1, max_size=3))
def test_block_sequences_round_trip_through_storage(blocks: list[LogBlock]) -> None:
    storage = MemoryStorageBackend()
    key = "p=1/.f1-0_20250101000000000.log.1_0-0-0"
    written = append_log_file(storage, key, blocks)
    assert written.size == storage.size(key)
    assert list(read_log_file(storage, key)) == blocks
