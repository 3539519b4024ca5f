"""HFile (version 3) writer producing the bytes Apache Hudi 1.x's own writer produces.

Hudi 1.x writes metadata-table base files (``HoodieAvroHFileWriter``) and the content of
``HFILE_DATA`` log blocks (``HFileUtils.serializeRecordsToLogBlock``) with its pure-Java
``org.apache.hudi.io.hfile.HFileWriterImpl`` (module hudi-io), no longer HBase's writer. This
module reproduces that writer byte for byte (the layout is described in :mod:`hudi_framework.log.hfile`):

* cells ``keyLength(4) valueLength(4) rowLength(2) row familyLength(1)=0 timestamp(8)=Long.MAX
  keyType(1)=4 (Put) value mvcc(1)=0``; a data block is flushed before a cell when the block's
  ``sum(len(row) + len(value) + 21)`` would pass the block size, except between equal row keys;
* every block (data, meta, root index, meta index, file info) is compressed with the file's codec
  and followed by zeroed checksum bytes (checksum type NULL, 4 bytes per started 16 KiB of
  header + payload); a data block's ``prevBlockOffset`` is -1 for the first block and, as Java
  writes it, the block's own offset for the others; other blocks write -1;
* the root index has one entry per data block ``offset(8) size(4) vint(len+2) short(len) row``;
  the meta index ``offset(8) size(4) vint(len) name``;
* file info entries (``PBUF`` + a length-delimited ``InfoProto``) appear in the iteration order of
  the Java ``HashMap`` holding them, which :func:`java_hashmap_order` reproduces;
* the 4 KiB trailer names ``org.apache.hudi.io.storage.HoodieHBaseKVComparator``, sets the
  trailer field ``uncompressed_data_index_size`` to the data blocks' ``sum(len(row)+len(value)+21)``
  (Java's choice) and ends with version bytes ``00 00 00 03``.

GZ blocks are gzip members with Java's ``GZIPOutputStream`` header (no mtime, no extra flags)
around a level-6 deflate stream, which zlib produces identically to the JDK's. The header's OS byte
depends on the JDK that ran Apache Hudi: 0 up to JDK 15, 255 ("unknown") from JDK 16 on
(JDK-8244706); :class:`HFileWriteOptions` writes 0 by default, as the fixtures' writer did.

The only field that differs between two runs of Java's writer is ``hfile.CREATE_TIME_TS`` (the
creation time in milliseconds); :class:`HFileWriteOptions` lets callers pin it.
"""

from __future__ import annotations

import itertools
import operator
import struct
import time
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import HFileWriteError
from hudi_framework.log.hfile import (
    DATA_MAGIC,
    FILE_INFO_MAGIC,
    ROOT_INDEX_MAGIC,
    TRAILER_MAGIC,
    TRAILER_SIZE,
    HFileCompression,
)

#: Apache Hudi's default HFile block size (``hoodie.hfile.block.size``), also used for log blocks.
DEFAULT_BLOCK_SIZE: Final = 1024 * 1024
#: The comparator class name Hudi's writer records in the trailer.
COMPARATOR_CLASS_NAME: Final = b"org.apache.hudi.io.storage.HoodieHBaseKVComparator"
META_MAGIC: Final = b"METABLKc"
#: Codecs Apache Hudi's writer has a compressor for (``hoodie.hfile.compression.algorithm``).
WRITABLE_CODECS: Final = (HFileCompression.NONE, HFileCompression.GZ)
#: HBase limits a row key to a Java short.
MAX_KEY_LENGTH: Final = 0x7FFF

_BYTES_PER_CHECKSUM: Final = 16 * 1024
_CHECKSUM_SIZE: Final = 4
_HEADER: Final = struct.Struct(">8siiqBii")
_HEADER_SIZE: Final = _HEADER.size
#: Bytes a cell adds beyond its row and value in Java's block-size accounting and in the cell.
_CELL_OVERHEAD: Final = 21
#: familyLength(0) timestamp(Long.MAX_VALUE) keyType(Put): the tail of every cell key.
_KEY_TAIL: Final = b"\x00" + (0x7FFFFFFFFFFFFFFF).to_bytes(8, "big") + b"\x04"
_CELL_HEAD: Final = struct.Struct(">iiH")
_INDEX_ENTRY: Final = struct.Struct(">qi")
#: Java's ``GZIPOutputStream`` header: magic, deflate, no flags, mtime 0, no extra flags, OS (set per file).
_GZIP_HEADER: Final = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x00"
_PB_MAGIC: Final = b"PBUF"
_VERSION_TAIL: Final = b"\x00\x00\x00\x03"

_Compress = Callable[[bytes], bytes]

# File info keys the writer sets itself (HBase's names, as Hudi's HFileInfo spells them).
LAST_KEY: Final = "hfile.LASTKEY"
AVG_KEY_LEN: Final = "hfile.AVG_KEY_LEN"
AVG_VALUE_LEN: Final = "hfile.AVG_VALUE_LEN"
CREATE_TIME_TS: Final = "hfile.CREATE_TIME_TS"
MAX_MEMSTORE_TS_KEY: Final = "MAX_MEMSTORE_TS_KEY"
KEY_VALUE_VERSION: Final = "KEY_VALUE_VERSION"


@dataclass(frozen=True, slots=True)
class HFileWriteOptions:
    """How to write an HFile.

    Attributes:
        block_size: Uncompressed data block size budget (``hoodie.hfile.block.size``).
        compression: Codec of every block (``hoodie.hfile.compression.algorithm``): NONE or GZ.
        creation_time_ms: ``hfile.CREATE_TIME_TS``; None for the current time.
        gzip_os: The OS byte of each GZ block's gzip header: 0 as JDK 8-15 write it, 255 as JDK 16+.
    """

    block_size: int = DEFAULT_BLOCK_SIZE
    compression: HFileCompression = HFileCompression.GZ
    creation_time_ms: int | None = None
    gzip_os: int = 0

    def __post_init__(self) -> None:
        if self.block_size <= 0:
            raise HFileWriteError(f"block size must be positive, got {self.block_size}")
        if self.compression not in WRITABLE_CODECS:
            raise HFileWriteError(
                f"compression codec {self.compression.name} cannot be written (only NONE and GZ, as Apache Hudi)"
            )
        if self.gzip_os not in (0, 255):
            raise HFileWriteError(f"gzip OS byte must be 0 (JDK 8-15) or 255 (JDK 16+), got {self.gzip_os}")


def compression_from_name(name: str) -> HFileCompression:
    """The codec named by ``hoodie.hfile.compression.algorithm`` (case-insensitive ``NONE``/``GZ``).

    Raises:
        HFileWriteError: An unknown name, or a codec Apache Hudi cannot write either.
    """
    key = name.strip().upper()
    # Apache Hudi looks the value up by codec name, case-insensitively: "gz" or "none".
    codec = {"GZ": HFileCompression.GZ, "NONE": HFileCompression.NONE}.get(key)
    if codec is None:
        raise HFileWriteError(f"hoodie.hfile.compression.algorithm={name!r} is not supported (use GZ or NONE)")
    return codec


def write_hfile(
    keys: Sequence[bytes],
    values: Sequence[bytes],
    *,
    file_info: Mapping[str, bytes] | None = None,
    meta_blocks: Mapping[str, bytes] | None = None,
    options: HFileWriteOptions | None = None,
) -> bytes:
    """The HFile holding the cells ``zip(keys, values)``, as Apache Hudi's writer writes it.

    Args:
        keys: Row keys (UTF-8 record keys), in unsigned byte order; equal neighbours are allowed
            (Java's writer accepts them; Hudi's callers reject duplicates before).
        values: The value of each cell.
        file_info: Caller file info entries in the order the caller appends them (Hudi: ``schema``
            first; base files then ``minRecordKey``, ``maxRecordKey``, ``bloomFilterTypeCode``).
        meta_blocks: Named meta blocks (Hudi base files: ``bloomFilter``).
        options: Block size, codec and creation time.

    Raises:
        HFileWriteError: Keys and values differ in number, keys are out of order, or a key is
            longer than 32767 bytes.
    """
    opts = options or HFileWriteOptions()
    if len(keys) != len(values):
        raise HFileWriteError(f"{len(keys)} keys but {len(values)} values")
    key_lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    value_lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    _check_keys(keys, key_lengths)
    cell_sizes = key_lengths + value_lengths + _CELL_OVERHEAD
    compress = _compressor(opts)
    parts: list[bytes] = []
    offset = 0
    index: list[tuple[bytes, int, int]] = []
    # Cells are assembled column-wise per block: Arrow joins heads, keys, tails and values.
    key_array = pa.array(keys, pa.large_binary())
    value_array = pa.array(values, pa.large_binary())
    heads = _cell_heads(key_lengths, value_lengths)
    for first, stop in _block_bounds(keys, cell_sizes, opts.block_size):
        prev = -1 if not index else offset
        cells = _cells(key_array[first:stop], value_array[first:stop], heads[first:stop])
        block = _block(DATA_MAGIC, cells, prev, compress)
        index.append((keys[first], offset, len(block)))
        parts.append(block)
        offset += len(block)
    first_data_offset = index[0][1] if index else -1
    last_data_offset = index[-1][1] if index else 0
    meta_index: list[tuple[bytes, int, int]] = []
    for name in java_hashmap_order(list((meta_blocks or {}).keys())):
        block = _block(META_MAGIC, (meta_blocks or {})[name], -1, compress)
        meta_index.append((name.encode("utf-8"), offset, len(block)))
        parts.append(block)
        offset += len(block)
    load_on_open = offset
    root = _block(ROOT_INDEX_MAGIC, _root_index(index), -1, compress)
    meta = _block(ROOT_INDEX_MAGIC, _meta_index(meta_index), -1, compress)
    file_info_offset = load_on_open + len(root) + len(meta)
    info = _block(FILE_INFO_MAGIC, _file_info(keys, key_lengths, value_lengths, file_info or {}, opts), -1, compress)
    parts += [root, meta, info]
    trailer = _trailer(
        [
            (1, file_info_offset),
            (2, load_on_open),
            (3, int(cell_sizes.sum())),
            (5, len(index)),
            (6, len(meta_index)),
            (7, len(keys)),
            (8, 1),
            (9, first_data_offset),
            (10, last_data_offset),
            (11, COMPARATOR_CLASS_NAME),
            (12, int(opts.compression)),
        ]
    )
    parts.append(trailer)
    return b"".join(parts)


def java_hashmap_order(names: Sequence[str]) -> list[str]:
    """``names`` (distinct, in insertion order) in the iteration order of a ``java.util.HashMap``.

    Hudi keeps file info and meta blocks in HashMaps, so their order on disk is the map's: by
    bucket (the spread String hash masked by the table size, 16 doubled while more than 3/4 full),
    then by insertion within a bucket (resizes keep that order). Buckets of 8+ keys, which Java
    would turn into trees, cannot occur with the handful of names Hudi writes.
    """
    capacity = 16
    while len(names) > capacity * 3 // 4:
        capacity *= 2
    mask = capacity - 1
    ranked = sorted(range(len(names)), key=lambda i: (_spread(_java_string_hash(names[i])) & mask, i))
    return [names[i] for i in ranked]


def _java_string_hash(text: str) -> int:
    # String.hashCode over UTF-16 code units, as a 32-bit unsigned int.
    units = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(units), 2):
        h = (31 * h + ((units[i] << 8) | units[i + 1])) & 0xFFFFFFFF
    return h


def _spread(h: int) -> int:
    return h ^ (h >> 16)


def _check_keys(keys: Sequence[bytes], key_lengths: npt.NDArray[np.int64]) -> None:
    if len(keys) and int(key_lengths.max()) > MAX_KEY_LENGTH:
        key = keys[int(key_lengths.argmax())]
        raise HFileWriteError(f"key {key[:40]!r}... is {len(key)} bytes, more than {MAX_KEY_LENGTH}")
    # Pairwise comparison at C speed; stops at the first key out of order.
    descending = itertools.compress(itertools.count(1), map(operator.gt, keys, itertools.islice(keys, 1, None)))
    i = next(descending, None)
    if i is not None:
        raise HFileWriteError(f"key {keys[i]!r} follows {keys[i - 1]!r}: HFile cells must be in key order")


def _block_bounds(
    keys: Sequence[bytes], cell_sizes: npt.NDArray[np.int64], block_size: int
) -> Iterable[tuple[int, int]]:
    """(first, stop) cell ranges of the data blocks, split where Java's writer splits.

    Java closes a block before cell ``j`` when the block's cells plus ``j`` pass the block size and
    ``j``'s key differs from the previous one: with running totals ``ends``, at the first ``j`` whose
    ``ends[j]`` passes the block start's total plus the block size (at least one cell per block).
    """
    ends = np.cumsum(cell_sizes)
    count = len(keys)
    start = 0
    while start < count:
        base = int(ends[start - 1]) if start else 0
        stop = max(int(np.searchsorted(ends, base + block_size, side="right")), start + 1)
        while stop < count and keys[stop] == keys[stop - 1]:
            stop += 1
        yield start, stop
        start = stop


def _cells(keys: pa.Array, values: pa.Array, head: npt.NDArray[np.void]) -> bytes:
    """The cells of ``keys`` and ``values`` (binary arrays of one block), joined column-wise:
    ``head`` holds each cell's ``keyLength valueLength rowLength`` (big-endian, 10 bytes)."""
    if not len(keys):
        return b""
    heads = pa.FixedSizeBinaryArray.from_buffers(pa.binary(_CELL_HEAD.size), len(head), [None, pa.py_buffer(head)])
    tail, end, separator = (pa.scalar(b, pa.large_binary()) for b in (_KEY_TAIL, b"\x00", b""))
    joined = pc.binary_join_element_wise(heads.cast(pa.large_binary()), keys, tail, values, end, separator)
    _, offsets_buffer, data = joined.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64, count=len(joined) + 1, offset=joined.offset * 8)
    content: bytes = data.slice(int(offsets[0]), int(offsets[-1] - offsets[0])).to_pybytes()
    return content


def _cell_heads(key_lengths: npt.NDArray[np.int64], value_lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.void]:
    """Every cell's ``keyLength(4) valueLength(4) rowLength(2)``, big-endian, as packed records."""
    head = np.empty(len(key_lengths), dtype=np.dtype([("k", ">i4"), ("v", ">i4"), ("r", ">u2")]))
    head["k"] = key_lengths + 12
    head["v"] = value_lengths
    head["r"] = key_lengths
    return head


def _compressor(opts: HFileWriteOptions) -> _Compress:
    if opts.compression is not HFileCompression.GZ:
        return _identity
    header = _GZIP_HEADER[:-1] + bytes([opts.gzip_os])

    def gzip(payload: bytes) -> bytes:
        deflate = zlib.compressobj(6, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY)
        body = deflate.compress(payload) + deflate.flush()
        return b"".join((header, body, struct.pack("<II", zlib.crc32(payload), len(payload) & 0xFFFFFFFF)))

    return gzip


def _identity(payload: bytes) -> bytes:
    return payload


def _block(magic: bytes, payload: bytes, prev_offset: int, compress: _Compress) -> bytes:
    stored = compress(payload)
    with_header = _HEADER_SIZE + len(stored)
    checksum = -(-with_header // _BYTES_PER_CHECKSUM) * _CHECKSUM_SIZE
    header = _HEADER.pack(magic, len(stored) + checksum, len(payload), prev_offset, 0, _BYTES_PER_CHECKSUM, with_header)
    return b"".join((header, stored, bytes(checksum)))


def _root_index(entries: Sequence[tuple[bytes, int, int]]) -> bytes:
    parts: list[bytes] = []
    for key, offset, size in entries:
        parts += (_INDEX_ENTRY.pack(offset, size), _vint(len(key) + 2), len(key).to_bytes(2, "big"), key)
    return b"".join(parts)


def _meta_index(entries: Sequence[tuple[bytes, int, int]]) -> bytes:
    parts: list[bytes] = []
    for name, offset, size in entries:
        parts += (_INDEX_ENTRY.pack(offset, size), _vint(len(name)), name)
    return b"".join(parts)


def _file_info(
    keys: Sequence[bytes],
    key_lengths: npt.NDArray[np.int64],
    value_lengths: npt.NDArray[np.int64],
    caller: Mapping[str, bytes],
    opts: HFileWriteOptions,
) -> bytes:
    count = len(keys)
    last = keys[-1] if keys else b""
    created = opts.creation_time_ms if opts.creation_time_ms is not None else int(time.time() * 1000)
    # Insertion order of Java's writer: its init entry, the caller's, then those of close().
    entries: dict[str, bytes] = {MAX_MEMSTORE_TS_KEY: bytes(8)}
    entries.update(caller)
    entries[LAST_KEY] = len(last).to_bytes(2, "big") + last if last else b""
    entries[AVG_KEY_LEN] = _int32(int(key_lengths.sum()) // count if count else 0)
    entries[CREATE_TIME_TS] = created.to_bytes(8, "big", signed=True)
    entries[AVG_VALUE_LEN] = _int32(int(value_lengths.sum()) // count if count else 0)
    entries[KEY_VALUE_VERSION] = _int32(1)
    pairs = [
        _pb_bytes(1, _pb_bytes(1, name.encode("utf-8")) + _pb_bytes(2, entries[name]))
        for name in java_hashmap_order(list(entries))
    ]
    message = b"".join(pairs)
    return _PB_MAGIC + _varint(len(message)) + message


def _trailer(fields: Sequence[tuple[int, int | bytes]]) -> bytes:
    message = b"".join(
        _pb_bytes(number, value) if isinstance(value, bytes) else _varint(number << 3) + _varint(value)
        for number, value in fields
    )
    body = TRAILER_MAGIC + _varint(len(message)) + message
    return body + bytes(TRAILER_SIZE - len(body) - len(_VERSION_TAIL)) + _VERSION_TAIL


def _int32(value: int) -> bytes:
    return (value & 0xFFFFFFFF).to_bytes(4, "big")


def _varint(value: int) -> bytes:
    """Protobuf base-128 varint; negative values as Java writes a signed long (10 bytes)."""
    value &= 0xFFFFFFFFFFFFFFFF
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _pb_bytes(number: int, value: bytes) -> bytes:
    return _varint((number << 3) | 2) + _varint(len(value)) + value


def _vint(value: int) -> bytes:
    """Hadoop ``WritableUtils.writeVInt`` of a non-negative int (index key lengths)."""
    if value <= 127:
        return bytes([value])
    width = (value.bit_length() + 7) // 8
    return bytes([(-112 - width) & 0xFF]) + value.to_bytes(width, "big")
