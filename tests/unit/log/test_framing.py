"""The block frame byte for byte, as hudi-format.md section 4 lays it out."""

from __future__ import annotations

import struct

import pytest

from hudi_framework.errors import LogBlockDecodeError
from hudi_framework.log import BlockType, CommandBlock, HeaderKey, HFileBlock, decode_block, encode_block
from hudi_framework.log.framing import BlockFrame, decode_metadata, encode_frame, encode_metadata

INSTANT = "20250126040936578"
TARGET = "20250126040826878"


def _entry(key: int, value: bytes) -> bytes:
    return struct.pack(">ii", key, len(value)) + value


def test_rollback_block_bytes_follow_the_layout() -> None:
    header = struct.pack(">i", 3) + _entry(0, INSTANT.encode()) + _entry(1, TARGET.encode()) + _entry(3, b"0")
    body = struct.pack(">ii", 1, 0) + header + struct.pack(">q", 0) + struct.pack(">i", 0)
    block_length = len(body) + 8
    expected = b"#HUDI#" + struct.pack(">q", block_length) + body + struct.pack(">q", block_length + 6)

    block = CommandBlock.rollback(instant_time=INSTANT, target_instant_time=TARGET)

    assert encode_block(block) == expected
    assert len(expected) == 14 + block_length
    assert decode_block(expected) == block


def test_hfile_block_keeps_raw_content_and_footer() -> None:
    block = HFileBlock(
        b"DATABLK*...\x00\x00\x00\x03", {HeaderKey.INSTANT_TIME: INSTANT}, {HeaderKey.BLOCK_IDENTIFIER: "7"}
    )
    data = encode_block(block)
    assert data[18:22] == struct.pack(">i", BlockType.HFILE_DATA)
    assert decode_block(data) == block


def test_metadata_keeps_entry_order() -> None:
    entries = {HeaderKey.SCHEMA: "{}", HeaderKey.INSTANT_TIME: "1"}
    raw = encode_metadata(entries)
    decoded, end = decode_metadata(raw, 0, len(raw))
    assert list(decoded.items()) == list(entries.items())
    assert end == len(raw)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (struct.pack(">i", -1), "implausible metadata entry count"),
        (struct.pack(">i", 1) + _entry(9, b"x"), "unknown metadata key ordinal 9"),
        (struct.pack(">i", 2) + _entry(0, b"1") + _entry(0, b"2"), "appears twice"),
        (struct.pack(">i", 1) + _entry(0, b"\xff"), "not UTF-8"),
        (struct.pack(">i", 1) + struct.pack(">ii", 0, 50) + b"x", "runs past the block"),
    ],
)
def test_damaged_metadata_is_rejected(raw: bytes, reason: str) -> None:
    with pytest.raises(LogBlockDecodeError, match=reason):
        decode_metadata(raw, 0, len(raw))


def _frame(block_type: int = BlockType.COMMAND, version: int = 1) -> bytes:
    header = {HeaderKey.INSTANT_TIME: INSTANT, HeaderKey.TARGET_INSTANT_TIME: TARGET, HeaderKey.COMMAND_BLOCK_TYPE: "0"}
    return encode_frame(BlockFrame(block_type, header, b"", {}, version))


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"#HUDJ#" + _frame()[6:], "no block magic"),
        (_frame()[:-1] + b"\x00", "trailer"),
        (_frame(version=2), "unsupported log format version 2"),
        (_frame(block_type=BlockType.CORRUPT), "CORRUPT"),
        (_frame(block_type=7), "unknown block type 7"),
        (_frame(block_type=BlockType.DELETE), "delete content"),
        (_frame(block_type=BlockType.HFILE_DATA), "HFile version"),
    ],
)
def test_decode_block_rejects_damage(data: bytes, reason: str) -> None:
    with pytest.raises(LogBlockDecodeError, match=reason):
        decode_block(data)


def test_command_block_needs_its_headers_and_no_content() -> None:
    no_target = encode_frame(BlockFrame(BlockType.COMMAND, {HeaderKey.COMMAND_BLOCK_TYPE: "0"}, b"", {}))
    with pytest.raises(LogBlockDecodeError, match="TARGET_INSTANT_TIME"):
        decode_block(no_target)
    unknown = encode_frame(BlockFrame(BlockType.COMMAND, {HeaderKey.COMMAND_BLOCK_TYPE: "1"}, b"", {}))
    with pytest.raises(LogBlockDecodeError, match="COMMAND_BLOCK_TYPE"):
        decode_block(unknown)
    header = {HeaderKey.COMMAND_BLOCK_TYPE: "0", HeaderKey.TARGET_INSTANT_TIME: TARGET}
    with pytest.raises(LogBlockDecodeError, match="content bytes"):
        decode_block(encode_frame(BlockFrame(BlockType.COMMAND, header, b"x", {})))


def test_fields_must_fill_the_block_exactly() -> None:
    data = bytearray(_frame())
    # Grow blockLength and the trailer by 4 and insert 4 stray bytes before the trailer.
    length = struct.unpack(">q", data[6:14])[0] + 4
    data = data[:6] + struct.pack(">q", length) + data[14:-8] + b"\x00" * 4 + struct.pack(">q", length + 6)
    with pytest.raises(LogBlockDecodeError, match="before the trailer"):
        decode_block(bytes(data))
