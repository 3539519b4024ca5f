"""Damaged log files: truncation, bit flips, garbage; the reader never crashes and never invents rows.

Invariants checked on every damaged file:

* every byte of the file belongs to exactly one yielded block or corrupt range, in order;
* every original block untouched by the damage is returned unchanged, at its offset;
* a damaged block is either reported corrupt or, when the damage left every length consistent and
  every value decodable (undetectable without a checksum, which the format lacks), decoded;
* damage to the magic, length, version, content length or trailer is always reported.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.errors import CorruptLogBlockError
from hudi_framework.log import (
    Block,
    CommandBlock,
    CorruptBlock,
    DataBlock,
    DeleteBlock,
    HeaderKey,
    LogBlock,
    encode_block,
    read_log_bytes,
)
from hudi_framework.log import reader as reader_module
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, with_meta_fields
from tests.hypothesis_budget import examples
from tests.unit.log.strategies import small_blocks

SCHEMA = with_meta_fields(arrow_to_avro(pa.schema([("id", pa.int64()), ("note", pa.string())]), "t"))


def _data(instant: str, ids: list[int]) -> DataBlock:
    meta = {name: [f"{name}{i}" for i in ids] for name in META_FIELDS}
    records = pa.table({**meta, "id": ids, "note": [f"n{i}" for i in ids]})
    return DataBlock.create(records, instant_time=instant, schema=SCHEMA)


BLOCKS: list[LogBlock] = [
    _data("20250101000000001", [1, 2, 3]),
    DeleteBlock.create(["k1", "k2"], ["p", "p"], instant_time="20250101000000002"),
    CommandBlock.rollback(instant_time="20250101000000003", target_instant_time="20250101000000001"),
    _data("20250101000000004", [4, 5]),
]


@dataclass(frozen=True)
class Layout:
    """Byte ranges of the blocks of an encoded file."""

    data: bytes
    starts: list[int]
    ends: list[int]
    header_ends: list[int]
    content_length_at: list[int]
    instant_ends: list[int]  # end of the INSTANT_TIME header entry: from there the instant is readable

    def block_at(self, pos: int) -> int:
        return next(i for i, (s, e) in enumerate(zip(self.starts, self.ends, strict=True)) if s <= pos < e)

    def structural(self, pos: int) -> bool:
        """Whether ``pos`` is in a field whose damage is always detectable."""
        i = self.block_at(pos)
        rel = pos - self.starts[i]
        cl = self.content_length_at[i]
        # magic, blockLength, version | contentLength | footer count (always 0), trailer
        return rel < 18 or cl <= pos < cl + 8 or pos >= self.ends[i] - 12


def layout(blocks: list[LogBlock]) -> Layout:
    parts = [encode_block(b) for b in blocks]
    starts, ends, header_ends, cls, instant_ends = [], [], [], [], []
    pos = 0
    for part in parts:
        count = struct.unpack_from(">i", part, 22)[0]
        at = 26
        instant_end = len(part)
        for _ in range(count):
            key, length = struct.unpack_from(">ii", part, at)
            at += 8 + length
            if key == HeaderKey.INSTANT_TIME:
                instant_end = min(instant_end, at)
        starts.append(pos)
        header_ends.append(pos + at)
        cls.append(pos + at)
        instant_ends.append(pos + instant_end)
        pos += len(part)
        ends.append(pos)
    return Layout(b"".join(parts), starts, ends, header_ends, cls, instant_ends)


def _offset(block: Block) -> int:
    if isinstance(block, CorruptBlock):
        return block.offset
    assert block.position is not None
    return block.position.offset


def _size(block: Block) -> int:
    if isinstance(block, CorruptBlock):
        return block.length
    assert block.position is not None
    return block.position.size


def check_damaged(blocks: list[LogBlock], lay: Layout, damaged: bytes, damaged_at: int) -> list[Block]:
    """Read ``damaged`` and check the invariants; ``damaged_at`` is the first damaged offset."""
    out = list(read_log_bytes(damaged, path="f.log"))
    pos = 0
    for block in out:  # contiguous cover of the whole file
        assert _offset(block) == pos
        pos += _size(block)
    assert pos == len(damaged)
    by_offset = {_offset(b): b for b in out}
    for original, start, end in zip(blocks, lay.starts, lay.ends, strict=True):
        if end <= damaged_at:
            assert by_offset.get(start) == original, f"intact block at {start} lost"
    for block in out:
        if isinstance(block, CorruptBlock):
            assert block.offset <= damaged_at
            assert block.path == "f.log"
    return out


# ---------------------------------------------------------------------------------- truncation
def _check_truncation(blocks: list[LogBlock], lay: Layout, cut: int) -> None:
    out = check_damaged(blocks, lay, lay.data[:cut], cut)
    whole = [b for b, end in zip(blocks, lay.ends, strict=True) if end <= cut]
    if cut in lay.starts or cut == len(lay.data):
        assert out == whole
        return
    i = lay.block_at(cut)
    assert out[:-1] == whole
    tail = out[-1]
    assert isinstance(tail, CorruptBlock), "a truncated block must never yield rows"
    assert (tail.offset, tail.length) == (lay.starts[i], cut - lay.starts[i])
    assert not tail.intact_frame
    expected = blocks[i].instant_time if cut >= lay.instant_ends[i] else None
    assert tail.instant_time == expected


def test_truncation_at_every_byte_offset() -> None:
    lay = layout(BLOCKS)
    for cut in range(len(lay.data) + 1):
        _check_truncation(BLOCKS, lay, cut)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(small_blocks, min_size=1, max_size=3), st.data())
def test_random_truncation_of_random_blocks(blocks: list[LogBlock], data: st.DataObject) -> None:
    lay = layout(blocks)
    _check_truncation(blocks, lay, data.draw(st.integers(0, len(lay.data))))


# ------------------------------------------------------------------------------------ bit flips
def _flip(data: bytes, pos: int, bit: int) -> bytes:
    out = bytearray(data)
    out[pos] ^= 1 << bit
    return bytes(out)


def _check_flip(blocks: list[LogBlock], lay: Layout, pos: int, bit: int) -> None:
    out = check_damaged(blocks, lay, _flip(lay.data, pos, bit), pos)
    i = lay.block_at(pos)
    for original, start, end in zip(blocks, lay.starts, lay.ends, strict=True):
        if not start <= pos < end:
            assert {_offset(b): b for b in out}.get(start) == original, f"intact block at {start} lost"
    at_damage = next(b for b in out if _offset(b) <= pos < _offset(b) + _size(b))
    assert _offset(at_damage) == lay.starts[i]
    if lay.structural(pos):
        assert isinstance(at_damage, CorruptBlock), f"flip at {pos} (structural) went undetected"
    elif pos - lay.starts[i] in (18, 19, 20, 21):  # block type: another type never fits the content
        assert isinstance(at_damage, CorruptBlock)


def test_a_bit_flip_in_every_byte() -> None:
    lay = layout(BLOCKS)
    for pos in range(len(lay.data)):
        _check_flip(BLOCKS, lay, pos, pos % 8)


@settings(max_examples=examples(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(small_blocks, min_size=1, max_size=3), st.data())
def test_random_bit_flips_in_random_blocks(blocks: list[LogBlock], data: st.DataObject) -> None:
    lay = layout(blocks)
    pos = data.draw(st.integers(0, len(lay.data) - 1))
    _check_flip(blocks, lay, pos, data.draw(st.integers(0, 7)))


# ------------------------------------------------------------------------------ resynchronising
def test_corrupted_block_in_the_middle_is_reported_and_later_blocks_are_read() -> None:
    lay = layout(BLOCKS)
    damaged = bytearray(lay.data)
    middle = lay.starts[1]
    damaged[middle + 8 : middle + 12] = b"\xff\xff\xff\xff"  # blockLength
    out = list(read_log_bytes(bytes(damaged), path="f.log"))
    assert out[0] == BLOCKS[0]
    assert out[2:] == BLOCKS[2:]
    corrupt = out[1]
    assert isinstance(corrupt, CorruptBlock)
    assert (corrupt.offset, corrupt.length) == (middle, lay.ends[1] - middle)
    assert corrupt.instant_time == BLOCKS[1].instant_time
    rows = [r for b in out if isinstance(b, DataBlock) for r in b.records.column("id").to_pylist()]
    assert rows == [1, 2, 3, 4, 5]


def test_intact_frame_with_damaged_content_is_skipped_whole() -> None:
    lay = layout(BLOCKS)
    damaged = bytearray(lay.data)
    # The delete content version (int32 3 right after the header and content length) becomes 9.
    damaged[lay.content_length_at[1] + 8 + 3] = 9
    out = list(read_log_bytes(bytes(damaged), path="f.log"))
    corrupt = out[1]
    assert isinstance(corrupt, CorruptBlock)
    assert corrupt.intact_frame
    assert "version 9" in corrupt.reason
    assert out[:1] + out[2:] == [BLOCKS[0], *BLOCKS[2:]]


def test_garbage_before_between_and_after_blocks() -> None:
    lay = layout(BLOCKS)
    garbage = b"junk#HUDI#\x00\x00\x00\x00\x00\x00\x00\x30#HUD"
    data = garbage + lay.data[: lay.ends[1]] + garbage + lay.data[lay.ends[1] :] + garbage
    out = list(read_log_bytes(data, path="f.log"))
    corrupt = [b for b in out if isinstance(b, CorruptBlock)]
    # A false magic inside the garbage does not split it: one corrupt range per garbage run.
    assert [(c.offset, c.length) for c in corrupt] == [
        (0, len(garbage)),
        (len(garbage) + lay.ends[1], len(garbage)),
        (len(data) - len(garbage), len(garbage)),
    ]
    assert [b for b in out if not isinstance(b, CorruptBlock)] == BLOCKS


def test_magic_split_across_scan_chunks_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader_module, "SCAN_CHUNK", 7)
    lay = layout(BLOCKS)
    for junk in range(1, 9):
        out = list(read_log_bytes(b"x" * junk + lay.data, path="f.log"))
        assert out[0] == CorruptBlock("f.log", 0, junk, "no block magic")
        assert out[1:] == BLOCKS


def test_strict_mode_raises_at_the_first_damage() -> None:
    lay = layout(BLOCKS)
    reader = read_log_bytes(lay.data[:-3], path="f.log", strict=True)
    assert [next(reader) for _ in range(3)] == BLOCKS[:3]
    with pytest.raises(CorruptLogBlockError, match="truncated") as info:
        next(reader)
    assert (info.value.path, info.value.offset) == ("f.log", lay.starts[3])


def test_empty_file_has_no_blocks() -> None:
    assert list(read_log_bytes(b"")) == []
