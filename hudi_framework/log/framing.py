"""The byte layout of one log block, without interpreting its content (hudi-format.md section 4).

A block on disk is::

    magic "#HUDI#" | int64 blockLength | int32 formatVersion | int32 blockType
    | header map | int64 contentLength | content | footer map | int64 trailer

All integers are big-endian (Java ``DataOutputStream``). ``blockLength`` counts every byte after
itself, the trailer included; the trailer repeats it plus the 6 magic bytes, so a reader can check a
block's extent before decoding it. A map is ``int32 count`` then ``count`` entries of ``int32 key
ordinal, int32 byteLength, UTF-8 bytes``.

Everything here works on ``bytes`` in memory; :mod:`hudi_framework.log.reader` decides which bytes
to read and :mod:`hudi_framework.log.codec` what the content means.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from hudi_framework.errors import LogBlockDecodeError
from hudi_framework.log.blocks import HeaderKey

#: Every block starts with these bytes (``HoodieLogFormat.MAGIC``).
MAGIC: Final = b"#HUDI#"
#: ``HoodieLogFormat.CURRENT_VERSION``; version 0 (no lengths) predates every supported table version.
LOG_FORMAT_VERSION: Final = 1
#: Bytes before ``blockLength`` counts: the magic and the length itself.
PREFIX_SIZE: Final = len(MAGIC) + 8
#: The smallest ``blockLength`` possible: version, type, empty header, content length, empty footer, trailer.
MIN_BLOCK_LENGTH: Final = 4 + 4 + 4 + 8 + 4 + 8

_INT32 = struct.Struct(">i")
_INT64 = struct.Struct(">q")
_TWO_INT32 = struct.Struct(">ii")


@dataclass(frozen=True, slots=True)
class BlockFrame:
    """One block's fields as stored, content still encoded.

    Attributes:
        block_type: The block type ordinal (an ``int``: a damaged block may hold any value).
        header: Header entries in file order.
        content: The content bytes.
        footer: Footer entries in file order (always empty in files written by Java today).
        format_version: The log format version (1).
    """

    block_type: int
    header: Mapping[HeaderKey, str]
    content: bytes
    footer: Mapping[HeaderKey, str]
    format_version: int = LOG_FORMAT_VERSION


def encode_metadata(entries: Mapping[HeaderKey, str]) -> bytes:
    """Encode a header or footer map, keeping the mapping's order."""
    parts = [_INT32.pack(len(entries))]
    for key, value in entries.items():
        raw = value.encode("utf-8")
        parts.append(_TWO_INT32.pack(int(key), len(raw)))
        parts.append(raw)
    return b"".join(parts)


def decode_metadata(buf: bytes | memoryview, pos: int, end: int) -> tuple[dict[HeaderKey, str], int]:
    """Decode a map starting at ``pos`` that must end no later than ``end``.

    Returns:
        The entries in file order and the position after the map.

    Raises:
        LogBlockDecodeError: The map runs past ``end``, repeats a key, names an unknown key ordinal or
            holds a value that is not UTF-8.
    """
    count = _read_int32(buf, pos, end, "metadata entry count")
    pos += 4
    # Each entry takes at least 8 bytes, which bounds a damaged count before we loop on it.
    if count < 0 or count * 8 > end - pos:
        raise LogBlockDecodeError(f"implausible metadata entry count {count}")
    entries: dict[HeaderKey, str] = {}
    for _ in range(count):
        ordinal = _read_int32(buf, pos, end, "metadata key")
        length = _read_int32(buf, pos + 4, end, "metadata value length")
        pos += 8
        if length < 0 or length > end - pos:
            raise LogBlockDecodeError(f"metadata value length {length} runs past the block")
        try:
            key = HeaderKey(ordinal)
        except ValueError:
            # Java resolves the ordinal with HeaderMetadataType.values()[i]: an unknown one is not
            # a newer writer (keys are only appended, and readers would fail) but damage.
            raise LogBlockDecodeError(f"unknown metadata key ordinal {ordinal}") from None
        if key in entries:
            raise LogBlockDecodeError(f"metadata key {key.name} appears twice")
        try:
            entries[key] = bytes(buf[pos : pos + length]).decode("utf-8")
        except UnicodeDecodeError:
            raise LogBlockDecodeError(f"metadata value of {key.name} is not UTF-8") from None
        pos += length
    return entries, pos


def encode_frame(frame: BlockFrame) -> bytes:
    """The complete bytes of one block, magic to trailer."""
    header = encode_metadata(frame.header)
    footer = encode_metadata(frame.footer)
    block_length = 4 + 4 + len(header) + 8 + len(frame.content) + len(footer) + 8
    return b"".join(
        (
            MAGIC,
            _INT64.pack(block_length),
            _TWO_INT32.pack(frame.format_version, frame.block_type),
            header,
            _INT64.pack(len(frame.content)),
            frame.content,
            footer,
            # Java's trailer counts the magic too: it lets a reader walk a file backwards.
            _INT64.pack(block_length + len(MAGIC)),
        )
    )


def decode_frame_body(body: bytes) -> BlockFrame:
    """Decode the ``blockLength`` bytes after the length field (version through trailer).

    The caller has already checked that the trailer matches; this checks that the fields inside
    fill the block exactly.

    Raises:
        LogBlockDecodeError: A field runs past the block, or the fields do not end at the trailer.
    """
    end = len(body) - 8  # the trailer
    if end < MIN_BLOCK_LENGTH - 8:
        raise LogBlockDecodeError(f"block length {len(body)} is below the minimum {MIN_BLOCK_LENGTH}")
    version = _read_int32(body, 0, end, "format version")
    if version != LOG_FORMAT_VERSION:
        raise LogBlockDecodeError(f"unsupported log format version {version}")
    block_type = _read_int32(body, 4, end, "block type")
    view = memoryview(body)
    header, pos = decode_metadata(view, 8, end)
    content_length = _read_int64(body, pos, end, "content length")
    pos += 8
    if content_length < 0 or content_length > end - pos:
        raise LogBlockDecodeError(f"content length {content_length} runs past the block")
    content = body[pos : pos + content_length]
    pos += content_length
    footer, pos = decode_metadata(view, pos, end)
    if pos != end:
        raise LogBlockDecodeError(f"block fields end {end - pos} bytes before the trailer")
    return BlockFrame(block_type, header, content, footer, version)


def block_length_of(prefix: bytes) -> int:
    """``blockLength`` from the first 14 bytes of a block (magic already checked)."""
    value: int = _INT64.unpack_from(prefix, len(MAGIC))[0]
    return value


def trailer_matches(block_length: int, trailer: bytes) -> bool:
    """Whether the 8 trailer bytes agree with ``block_length`` (Java ``isBlockCorrupted``)."""
    value: int = _INT64.unpack(trailer)[0]
    return value == block_length + len(MAGIC)


def header_instant_best_effort(raw: bytes) -> str | None:
    """The INSTANT_TIME of a damaged block, when its header is still readable.

    ``raw`` starts at the magic and may be cut anywhere. Entries are walked one by one, so damage
    after INSTANT_TIME (writers put it first; the SCHEMA value after it is most of a small block)
    still leaves it readable. Only digit strings are returned, so a header damaged in its instant
    is not mistaken for a real instant.
    """
    end = len(raw)
    try:
        count = _read_int32(raw, PREFIX_SIZE + 8, end, "metadata entry count")
        pos = PREFIX_SIZE + 12
        for _ in range(max(0, min(count, (end - pos) // 8))):
            ordinal = _read_int32(raw, pos, end, "metadata key")
            length = _read_int32(raw, pos + 4, end, "metadata value length")
            pos += 8
            if length < 0 or length > end - pos:
                return None
            if ordinal == HeaderKey.INSTANT_TIME:
                value = bytes(raw[pos : pos + length])
                return value.decode("ascii") if value.isdigit() else None
            pos += length
    except LogBlockDecodeError:
        return None
    return None


def _read_int32(buf: bytes | memoryview, pos: int, end: int, what: str) -> int:
    if pos + 4 > end:
        raise LogBlockDecodeError(f"{what} runs past the block")
    value: int = _INT32.unpack_from(buf, pos)[0]
    return value


def _read_int64(buf: bytes | memoryview, pos: int, end: int, what: str) -> int:
    if pos + 8 > end:
        raise LogBlockDecodeError(f"{what} runs past the block")
    value: int = _INT64.unpack_from(buf, pos)[0]
    return value
