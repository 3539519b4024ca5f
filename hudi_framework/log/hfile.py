"""HFile (version 3) container reader: the cells of an HFile as (row key, value) pairs.

Apache Hudi stores metadata-table records in HFiles, both as base files (``*.hfile``) and inside
``HFILE_DATA`` log blocks. Hudi 1.x writes them with its own writer (hudi-io), older releases with
HBase's; both produce this layout:

* data blocks (``DATABLK*``), possibly interleaved with meta blocks (bloom filters) and, for
  multi-level indexes, leaf index blocks;
* the load-on-open section at ``load_on_open_data_offset``: root data index (``IDXROOT2``), meta
  index, file info (``FILEINF2``: ``PBUF`` + a length-delimited protobuf map);
* a fixed 4 KiB trailer: ``TRABLK"$``, a length-delimited protobuf ``TrailerProto``, zero padding,
  and the version in the last 4 bytes (minor version byte, then the 3-byte major version).

Every block starts with a 33-byte header: magic(8), onDiskSizeWithoutHeader(4),
uncompressedSizeWithoutHeader(4), prevBlockOffset(8), checksumType(1), bytesPerChecksum(4),
onDiskDataSizeWithHeader(4). The on-disk payload (compressed when the trailer names a codec) ends at
onDiskDataSizeWithHeader; checksum chunks, if any, follow it.

A cell is keyLength(4) valueLength(4) key value [mvcc vlong]; the key is rowLength(2) row
familyLength(1) family qualifier timestamp(8) keyType(1). The MVCC version follows each value when
the file info's ``KEY_VALUE_VERSION`` is 1.

Data blocks are read in file order, which is key order, so :func:`read_hfile` needs no index.
"""

from __future__ import annotations

import bisect
import struct
import zlib
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import HFileFormatError, UnsupportedLogBlockError
from hudi_framework.log.hfile_cells import BlockCells, block_cells

TRAILER_SIZE: Final = 4096
TRAILER_MAGIC: Final = b'TRABLK"$'
DATA_MAGIC: Final = b"DATABLK*"
FILE_INFO_MAGIC: Final = b"FILEINF2"
ROOT_INDEX_MAGIC: Final = b"IDXROOT2"
#: Every block magic an HFile v2/v3 may hold (data, encoded data, leaf/intermediate/root index,
#: meta, file info, bloom chunks and metadata, trailer).
BLOCK_MAGICS: Final = frozenset(
    {
        DATA_MAGIC,
        b"DATABLKE",
        b"IDXLEAF2",
        b"IDXINTE2",
        ROOT_INDEX_MAGIC,
        b"METABLKc",
        FILE_INFO_MAGIC,
        b"BLMFBLK2",
        b"BLMFMET2",
        b"DFBLMET2",
        TRAILER_MAGIC,
    }
)
_PB_MAGIC: Final = b"PBUF"
_HEADER: Final = struct.Struct(">8siiqBii")  # 33 bytes, see the module docstring
_CELL_LENGTHS: Final = struct.Struct(">ii")
_INDEX_ENTRY: Final = struct.Struct(">qi")
#: keyLength, valueLength and rowLength: the head of every cell.
_CELL_HEAD: Final = struct.Struct(">iiH")
#: Bytes at or above this start a one-byte vlong too (values -112..-1).
_ONE_BYTE_VLONG: Final = 0x100 - 112
_ROW_LENGTH: Final = struct.Struct(">H")
#: Bytes after the qualifier in a cell key: timestamp(8) + keyType(1).
_KEY_TAIL: Final = 9
#: A gzip member's header (10 bytes) and trailer (CRC32 and ISIZE, 8 bytes).
_GZIP_MIN: Final = 18
#: Up to this many rows of one data block, :func:`find_cells` searches the block's bytes for them
#: instead of stepping through its cells.
_SEARCHED_ROWS: Final = 8


class HFileCompression(IntEnum):
    """HBase ``Compression.Algorithm``, stored by ordinal in the trailer's ``compression_codec``."""

    LZO = 0
    GZ = 1
    NONE = 2
    SNAPPY = 3
    LZ4 = 4
    BZIP2 = 5
    ZSTD = 6


@dataclass(frozen=True, slots=True)
class HFileTrailer:
    """The fields of ``TrailerProto`` a reader needs.

    Attributes:
        major_version: 2 or 3.
        minor_version: The minor version (0 from Hudi 1.x's own writer, 3 from HBase's).
        load_on_open_offset: Where the root data index, meta index and file info start.
        entry_count: Number of cells.
        data_index_count: Entries in the root data index.
        num_data_index_levels: Levels of the data index (1 = the root points at data blocks).
        first_data_block_offset: Offset of the first data block.
        last_data_block_offset: Offset of the last data block.
        compression: Codec of every block.
    """

    major_version: int
    minor_version: int
    load_on_open_offset: int
    entry_count: int
    data_index_count: int
    num_data_index_levels: int
    first_data_block_offset: int
    last_data_block_offset: int
    compression: HFileCompression


@dataclass(frozen=True, slots=True)
class CellArrays:
    """Cells found by :func:`find_cell_arrays`, in key order: ``values[i]`` is the value of ``rows[i]``."""

    rows: pa.BinaryArray
    values: pa.BinaryArray


@dataclass(frozen=True, slots=True)
class _Block:
    magic: bytes
    offset: int
    #: Offset of the next block.
    end: int
    payload: bytes


def read_trailer(data: bytes) -> HFileTrailer:
    """Decode the fixed trailer at the end of ``data``.

    Raises:
        HFileFormatError: Too short for a trailer, not version 2/3, a wrong magic, or a damaged
            protobuf body.
        UnsupportedLogBlockError: The trailer names a compression codec other than NONE or GZ.
    """
    size = len(data)
    if size < 4:
        raise HFileFormatError(f"{size} bytes cannot hold an HFile trailer")
    version = int.from_bytes(data[-4:], "big")
    major, minor = version & 0x00FFFFFF, version >> 24
    if major not in (2, 3):
        raise HFileFormatError(f"trailer version {major}.{minor} is not an HFile v2/v3 trailer")
    if size < TRAILER_SIZE:
        raise HFileFormatError(f"{size} bytes are shorter than the {TRAILER_SIZE}-byte HFile trailer")
    start = size - TRAILER_SIZE
    magic = data[start : start + 8]
    if magic != TRAILER_MAGIC:
        raise HFileFormatError(f"trailer magic is {magic!r}, expected {TRAILER_MAGIC!r}")
    body_length, pos = _varint(data, start + 8, size - 4)
    if pos + body_length > size - 4:
        raise HFileFormatError(f"trailer protobuf of {body_length} bytes runs past the trailer")
    fields = _proto_ints(data[pos : pos + body_length], "trailer")
    codec_ordinal = fields.get(12, int(HFileCompression.NONE))
    try:
        codec = HFileCompression(codec_ordinal)
    except ValueError:
        raise HFileFormatError(f"unknown HFile compression codec ordinal {codec_ordinal}") from None
    if codec not in (HFileCompression.NONE, HFileCompression.GZ):
        raise UnsupportedLogBlockError(
            "HFILE_DATA", f"HFile compression codec {codec.name} is not supported (only NONE and GZ)"
        )
    trailer = HFileTrailer(
        major_version=major,
        minor_version=minor,
        load_on_open_offset=fields.get(2, 0),
        entry_count=fields.get(7, 0),
        data_index_count=fields.get(5, 0),
        num_data_index_levels=fields.get(8, 1),
        first_data_block_offset=_signed64(fields.get(9, 0)),
        last_data_block_offset=_signed64(fields.get(10, 0)),
        compression=codec,
    )
    # A file without cells has first data block offset -1.
    first = trailer.first_data_block_offset if trailer.entry_count else 0
    if not 0 <= first <= trailer.load_on_open_offset <= start:
        raise HFileFormatError(
            f"trailer offsets out of range: first data block {trailer.first_data_block_offset}, "
            f"load-on-open {trailer.load_on_open_offset}, trailer {start}"
        )
    return trailer


def read_file_info(data: bytes, trailer: HFileTrailer | None = None) -> dict[bytes, bytes]:
    """The file info map (``hfile.LASTKEY``, ``KEY_VALUE_VERSION``, Hudi's ``schema``...).

    Raises:
        HFileFormatError: The load-on-open section has no file info block, or it does not decode.
    """
    trailer = trailer or read_trailer(data)
    end = len(data) - TRAILER_SIZE
    offset = trailer.load_on_open_offset
    while offset < end:
        block = _read_block(data, offset, end, trailer.compression)
        if block.magic == FILE_INFO_MAGIC:
            return _parse_file_info(block.payload)
        offset = block.end
    raise HFileFormatError("the load-on-open section has no FILEINF2 block")


def read_hfile(data: bytes, rows: Set[bytes] | None = None) -> Iterator[tuple[bytes, bytes]]:
    """Every cell of the HFile ``data`` as (row key, value), in key order.

    With ``rows``, only the cells of those row keys: the others are stepped over without copying
    their values (a keyed lookup in a large metadata-table file group).

    Raises:
        HFileFormatError: The trailer, a block header or a cell is damaged, or the number of cells
            differs from the trailer's entry count.
        UnsupportedLogBlockError: The blocks use a codec other than NONE or GZ.
    """
    trailer = read_trailer(data)
    info = read_file_info(data, trailer)
    with_mvcc = int.from_bytes(info.get(b"KEY_VALUE_VERSION", b"\0\0\0\0")[:4], "big") == 1
    offset = trailer.first_data_block_offset if trailer.entry_count else trailer.load_on_open_offset
    count = 0
    while offset < trailer.load_on_open_offset:
        block = _read_block(data, offset, trailer.load_on_open_offset, trailer.compression)
        if block.magic == DATA_MAGIC:
            payload = block.payload
            for row, start, stop in _cells(block, with_mvcc):
                count += 1
                if rows is None or row in rows:
                    yield row, payload[start:stop]
        elif block.magic == b"DATABLKE":
            raise HFileFormatError(f"data block at {offset} uses a data block encoding, which Hudi never writes")
        offset = block.end
    if count != trailer.entry_count:
        raise HFileFormatError(f"{count} cells in the data blocks, the trailer says {trailer.entry_count}")


def find_cells(data: bytes, rows: Sequence[bytes]) -> Iterator[tuple[bytes, bytes]]:
    """The cells of ``rows`` (distinct, in ascending byte order) the HFile ``data`` holds, in order.

    Each data block's first row places a row in its block; only blocks holding some row are looked
    at. In a block with few of the rows, each row's cell key (row length, row, empty family) is
    searched for in the bytes from the end of the previous hit, and a hit counts only if the cell
    lengths before it fit: no Python step per cell. In a block with more of the rows, every cell
    is located at once with array operations (:func:`~hudi_framework.log.hfile_cells.block_cells`)
    and each row binary-searched among them. Only when that scan cannot prove the block's cells
    (cells that are not Hudi's, whose family and qualifier are empty; damage) are the block's
    cells stepped through one by one.

    Raises:
        HFileFormatError: The trailer or a block is damaged.
        UnsupportedLogBlockError: The blocks use a codec other than NONE or GZ.
    """
    trailer = read_trailer(data)
    if not trailer.entry_count or not rows:
        return
    info = read_file_info(data, trailer)
    with_mvcc = int.from_bytes(info.get(b"KEY_VALUE_VERSION", b"\0\0\0\0")[:4], "big") == 1
    index = _root_index_rows(data, trailer)
    if index is None:  # a multi-level index: read every data block for its first row
        blocks = [b for b in _data_blocks(data, trailer) if len(b.payload) >= _CELL_LENGTHS.size + _ROW_LENGTH.size]
        index = [(b.offset, _first_row(b.payload)) for b in blocks]
        read = {b.offset: b for b in blocks}
    else:
        read = {}
    firsts = [row for _, row in index]
    per_block: dict[int, list[bytes]] = {}
    for row in rows:
        at = bisect.bisect_right(firsts, row) - 1
        if at >= 0:
            per_block.setdefault(index[at][0], []).append(row)
    for offset, wanted in per_block.items():
        block = read.get(offset) or _read_block(data, offset, trailer.load_on_open_offset, trailer.compression)
        if block.magic != DATA_MAGIC:
            raise HFileFormatError(f"the data index points at a {block.magic!r} block at {offset}")
        # A search for a row the block lacks scans up to the next row's cell (the last one to the
        # block's end): worth it for a few rows only; more rows, and one step per cell costs less.
        if len(wanted) <= _SEARCHED_ROWS and _plain_keys(block.payload):
            yield from _search_cells(block.payload, wanted) or ()
            continue
        cells = block_cells(block.payload, with_mvcc)
        if cells is None:
            yield from _walk_cells(block, with_mvcc, set(wanted))
            continue
        yield from cells.find(block.payload, wanted)


def find_cell_arrays(data: bytes, rows: pa.Array) -> CellArrays:
    """The cells of ``rows`` (distinct, in any order, no nulls) the HFile ``data`` holds, in key
    order, as arrays.

    With few rows (a few per data block on average), :func:`find_cells` places each row in its
    block and reads only those blocks. With more, each row is placed in its block by the root
    index's first rows, blocks holding none of them are not read, and in each other block:

    * when its rows are few next to its cells (a lookup of random keys in a large index: about 100
      of 11,000), each row's cell key is searched for in the block's bytes, one search from the
      last hit to the next (a pass over the block at ``bytes.find`` speed plus a Python step per
      row; a missing row is searched for up to the next row's cell); a block whose missing rows
      have cost more than a pass, and the file's later blocks, are located the other way instead;
    * otherwise all its cells are located at once
      (:func:`~hudi_framework.log.hfile_cells.block_cells`) and the wanted rows picked out of its
      rows by one hash lookup: no Python step per row or per cell.

    A file with a multi-level index has every block read and located.

    Raises:
        HFileFormatError: The trailer or a block is damaged, or (every block located) the number
            of cells differs from the trailer's entry count.
        UnsupportedLogBlockError: The blocks use a codec other than NONE or GZ.
    """
    wanted = rows.cast(pa.binary())
    trailer = read_trailer(data)
    if not trailer.entry_count or not len(wanted):
        return CellArrays(pa.array([], pa.binary()), pa.array([], pa.binary()))
    if len(wanted) <= _SEARCHED_ROWS * max(1, trailer.data_index_count):
        found = list(find_cells(data, sorted(wanted.to_pylist())))
        return CellArrays(pa.array([r for r, _ in found], pa.binary()), pa.array([v for _, v in found], pa.binary()))
    info = read_file_info(data, trailer)
    with_mvcc = int.from_bytes(info.get(b"KEY_VALUE_VERSION", b"\0\0\0\0")[:4], "big") == 1
    index = _root_index_rows(data, trailer)
    if index is None:
        blocks = list(_data_blocks(data, trailer))
        return _located_cells(blocks, wanted, with_mvcc, trailer.entry_count)
    ordered = wanted.take(pc.sort_indices(wanted))
    # Row i of ``ordered`` is in the last block whose first row is not above it.
    cuts = [bisect.bisect_left(range(len(ordered)), first, key=lambda i: ordered[i].as_py()) for _, first in index]
    cuts.append(len(ordered))  # rows before the first block's first row are in no block
    # A search costs a pass over the block's bytes plus a Python step per row, locating every cell
    # about 20 times a pass: search while the rows are under 1/16 of the block's cells (on average).
    search_limit = trailer.entry_count // (16 * max(1, len(index)))
    row_parts: list[pa.Array] = []
    value_parts: list[pa.Array] = []
    dense: list[_Block] = []
    dense_rows: list[pa.Array] = []
    for (offset, _), lo, hi in zip(index, cuts[:-1], cuts[1:], strict=True):
        if hi <= lo:
            continue  # no wanted row can be in this block: not read
        block = _read_block(data, offset, trailer.load_on_open_offset, trailer.compression)
        if block.magic != DATA_MAGIC:
            raise HFileFormatError(f"the data index points at a {block.magic!r} block at {offset}")
        chunk = ordered.slice(lo, hi - lo)
        searched = (
            _search_cells(block.payload, chunk.to_pylist(), max_wasted=len(block.payload))
            if hi - lo <= search_limit and _plain_keys(block.payload)
            else None
        )
        if searched is None:
            # Missing rows wasted more than a pass over the block (new keys of an insert-heavy
            # batch; locating every cell costs about two passes whatever is missing): this block
            # and the rest of the file are located the other way.
            search_limit = 0
            dense.append(block)
            dense_rows.append(chunk)
            continue
        if dense:  # keep key order: blocks located before this one go first
            located = _located_cells(dense, pa.concat_arrays(dense_rows), with_mvcc, None)
            row_parts.append(located.rows)
            value_parts.append(located.values)
            dense, dense_rows = [], []
        row_parts.append(pa.array([r for r, _ in searched], pa.binary()))
        value_parts.append(pa.array([v for _, v in searched], pa.binary()))
    if dense:
        every = len(dense) == len(index) and trailer.num_data_index_levels == 1
        located = _located_cells(dense, pa.concat_arrays(dense_rows), with_mvcc, trailer.entry_count if every else None)
        row_parts.append(located.rows)
        value_parts.append(located.values)
    if not row_parts:
        return CellArrays(pa.array([], pa.binary()), pa.array([], pa.binary()))
    return CellArrays(pa.concat_arrays(row_parts), pa.concat_arrays(value_parts))


def _located_cells(blocks: Sequence[_Block], wanted: pa.Array, with_mvcc: bool, entry_count: int | None) -> CellArrays:
    """The cells of ``wanted`` (binary rows) in ``blocks`` (data blocks in key order), every cell of
    each block located at once and the wanted rows picked out of all blocks' rows by one hash
    lookup; with ``entry_count`` (the blocks are the whole file), their cells must number it.
    """
    parts: list[tuple[bytes, BlockCells | list[tuple[bytes, int, int]]]] = []
    row_parts: list[pa.Array] = []
    scratch = np.empty(0, dtype=np.uint8)
    for block in blocks:
        if len(scratch) < len(block.payload):
            scratch = np.empty(len(block.payload), dtype=np.uint8)
        cells = block_cells(block.payload, with_mvcc, scratch)
        if cells is None:  # cells the scan cannot prove: stepped through one by one
            walked = list(_cells(block, with_mvcc))
            row_parts.append(pa.array([row for row, _, _ in walked], pa.binary()))
            parts.append((block.payload, walked))
        else:
            row_parts.append(cells.rows(block.payload))
            parts.append((block.payload, cells))
    every_row = pa.concat_arrays(row_parts) if row_parts else pa.array([], pa.binary())
    if entry_count is not None and len(every_row) != entry_count:
        raise HFileFormatError(f"{len(every_row)} cells in the data blocks, the trailer says {entry_count}")
    hits = np.flatnonzero(pc.is_in(every_row, value_set=wanted).to_numpy(zero_copy_only=False))
    # The hits of each block are a run of ``hits`` (ascending): its cells' values are gathered at once.
    ends = np.cumsum([len(part) for part in row_parts])
    starts = ends - [len(part) for part in row_parts]
    cuts = np.searchsorted(hits, ends)
    values: list[pa.Array] = []
    for (payload, located), start, first, last in zip(parts, starts, [0, *cuts[:-1]], cuts, strict=True):
        local = hits[first:last] - start
        if isinstance(located, BlockCells):
            values.append(located.values(payload, local))
        else:
            values.append(pa.array([payload[located[i][1] : located[i][2]] for i in local.tolist()], pa.binary()))
    return CellArrays(every_row.take(pa.array(hits)), pa.concat_arrays(values))


def find_prefixed_cells(data: bytes, prefixes: Sequence[bytes]) -> Iterator[tuple[bytes, bytes]]:
    """The cells of the HFile ``data`` whose row starts with one of ``prefixes``, in key order.

    Rows sharing a prefix are contiguous (cells are sorted by row): only the data blocks whose row
    range meets a prefix's are read, and in each the prefix's run of cells is found by binary search
    (every cell located at once by :func:`~hudi_framework.log.hfile_cells.block_cells`, or stepped
    through when that scan cannot prove the block's cells). A metadata table's ``column_stats``
    keys start with the column's id, so one column's statistics are read without the others'.

    Raises:
        HFileFormatError: The trailer or a block is damaged.
        UnsupportedLogBlockError: The blocks use a codec other than NONE or GZ.
    """
    wanted = sorted(set(prefixes))
    trailer = read_trailer(data)
    if not trailer.entry_count or not wanted:
        return
    index = _root_index_rows(data, trailer)
    if index is None:  # a multi-level index: filter a full read
        yield from (cell for cell in read_hfile(data) if cell[0].startswith(tuple(wanted)))
        return
    info = read_file_info(data, trailer)
    with_mvcc = int.from_bytes(info.get(b"KEY_VALUE_VERSION", b"\0\0\0\0")[:4], "big") == 1
    for i, (offset, first) in enumerate(index):
        following = index[i + 1][1] if i + 1 < len(index) else None
        # The block holds rows in [first, following): it meets a prefix p when some row of the
        # block may start with p, i.e. first's head is at most p and following (if any) is above p.
        hits = [p for p in wanted if first[: len(p)] <= p and (following is None or following > p)]
        if not hits:
            continue
        block = _read_block(data, offset, trailer.load_on_open_offset, trailer.compression)
        if block.magic != DATA_MAGIC:
            raise HFileFormatError(f"the data index points at a {block.magic!r} block at {offset}")
        payload = block.payload
        cells = block_cells(payload, with_mvcc)
        if cells is None:
            heads = tuple(hits)
            yield from (
                (row, payload[start:stop]) for row, start, stop in _cells(block, with_mvcc) if row.startswith(heads)
            )
            continue
        yield from cells.with_prefixes(payload, hits)


def _walk_cells(block: _Block, with_mvcc: bool, rows: Set[bytes]) -> Iterator[tuple[bytes, bytes]]:
    """The cells of ``rows`` in a data block, stepping through every cell with as little work per
    cell as the layout allows (a lookup's hot loop; :func:`_cells` checks more, for full reads)."""
    payload = block.payload
    size = len(payload)
    lengths = _CELL_HEAD.unpack_from
    pos = 0
    try:
        while pos < size:
            key_length, value_length, row_length = lengths(payload, pos)
            row = payload[pos + _CELL_HEAD.size : pos + _CELL_HEAD.size + row_length]
            value_start = pos + _CELL_LENGTHS.size + key_length
            end = value_start + value_length
            if key_length <= 0 or value_length < 0 or end > size:
                raise HFileFormatError(f"cell at {pos} of the data block at {block.offset} does not fit the block")
            if row in rows:
                yield row, payload[value_start:end]
            if not with_mvcc:
                pos = end
            elif end < size and (payload[end] < 0x80 or payload[end] >= _ONE_BYTE_VLONG):
                pos = end + 1  # a one-byte MVCC version (Hudi writes 0)
            else:
                pos = _skip_vlong(payload, end, block.offset)
    except struct.error as e:
        raise HFileFormatError(f"a cell of the data block at {block.offset} is cut off: {e}") from e


def _data_blocks(data: bytes, trailer: HFileTrailer) -> Iterator[_Block]:
    offset = trailer.first_data_block_offset
    while offset < trailer.load_on_open_offset:
        block = _read_block(data, offset, trailer.load_on_open_offset, trailer.compression)
        if block.magic == DATA_MAGIC:
            yield block
        elif block.magic == b"DATABLKE":
            raise HFileFormatError(f"data block at {offset} uses a data block encoding, which Hudi never writes")
        offset = block.end


def _root_index_rows(data: bytes, trailer: HFileTrailer) -> list[tuple[int, bytes]] | None:
    """(offset, first row) of every data block, from the root data index; None for a multi-level one.

    An entry is offset(8) on-disk size(4) then the block's first key (vint length), which starts
    with the row length(2) and the row (Hudi's writer stores just those, HBase's the whole key).
    """
    if trailer.num_data_index_levels != 1:
        return None
    root = _read_block(data, trailer.load_on_open_offset, len(data) - TRAILER_SIZE, trailer.compression)
    if root.magic != ROOT_INDEX_MAGIC:
        raise HFileFormatError(f"the load-on-open section starts with {root.magic!r}, not the root data index")
    payload = root.payload
    out: list[tuple[int, bytes]] = []
    pos = 0
    for _ in range(trailer.data_index_count):
        if pos + _INDEX_ENTRY.size > len(payload):
            raise HFileFormatError("the root data index is cut off")
        offset, _size = _INDEX_ENTRY.unpack_from(payload, pos)
        length, pos = _read_vint(payload, pos + _INDEX_ENTRY.size)
        if length < _ROW_LENGTH.size or pos + length > len(payload):
            raise HFileFormatError(f"a root data index key of {length} bytes does not fit")
        (row_length,) = _ROW_LENGTH.unpack_from(payload, pos)
        out.append((offset, payload[pos + _ROW_LENGTH.size : pos + _ROW_LENGTH.size + row_length]))
        pos += length
    return out


def _read_vint(buf: bytes, pos: int) -> tuple[int, int]:
    """A Hadoop ``WritableUtils`` vint at ``pos``: (value, position after it)."""
    if pos >= len(buf):
        raise HFileFormatError("a vint is cut off")
    first = buf[pos] - 256 if buf[pos] > 127 else buf[pos]
    if first >= -112:
        return first, pos + 1
    width = -111 - first if first >= -120 else -119 - first
    value = int.from_bytes(buf[pos + 1 : pos + width], "big")
    return (value if first >= -120 else ~value), pos + width


def _first_row(payload: bytes) -> bytes:
    (row_length,) = _ROW_LENGTH.unpack_from(payload, _CELL_LENGTHS.size)
    start = _CELL_LENGTHS.size + _ROW_LENGTH.size
    return payload[start : start + row_length]


def _plain_keys(payload: bytes) -> bool:
    """Whether the block's first cell key is row + empty family + empty qualifier (Hudi's cells)."""
    key_length, _ = _CELL_LENGTHS.unpack_from(payload, 0)
    (row_length,) = _ROW_LENGTH.unpack_from(payload, _CELL_LENGTHS.size)
    family_at = _CELL_LENGTHS.size + _ROW_LENGTH.size + row_length
    return key_length == _ROW_LENGTH.size + row_length + 1 + _KEY_TAIL and payload[family_at : family_at + 1] == b"\0"


def _search_cells(
    payload: bytes, rows: Sequence[bytes], max_wasted: int | None = None
) -> list[tuple[bytes, bytes]] | None:
    """Cells of ``rows`` (ascending) in a block of plain keys, found by byte search; None when the
    searches for missing rows scan more than ``max_wasted`` bytes.

    Cells are in row order, so each row is searched for from the end of the previous hit, first
    within two average gaps between wanted cells; a row not there is searched for up to the next
    row's cell (found first, and kept for that row), so a missing row costs a few gaps, not the
    rest of the block (only a row with no later row found runs to the block's end).
    """
    size = len(payload)
    window = 2 * size // max(1, len(rows)) + 64
    cursor = 0
    wasted = 0
    ahead: tuple[int, int, int] | None = None  # (row index, value start, value end) found early
    out: list[tuple[bytes, bytes]] = []
    for i, row in enumerate(rows):
        if ahead is not None and ahead[0] == i:
            found: tuple[int, int] | None = (ahead[1], ahead[2])
        else:
            near = min(size, cursor + window)
            found = _cell_in(payload, row, cursor, near)
            if found is None and near < size:
                later = _cell_in(payload, rows[i + 1], cursor, size) if i + 1 < len(rows) else None
                ahead = None if later is None else (i + 1, *later)
                limit = size if later is None else later[0]
                found = _cell_in(payload, row, cursor, limit)
                if found is None:
                    wasted += near - cursor + limit - cursor
            elif found is None:
                wasted += near - cursor
        if found is None:
            if max_wasted is not None and wasted > max_wasted:
                return None
            continue
        out.append((row, payload[found[0] : found[1]]))
        cursor = found[1]
    return out


def _cell_in(payload: bytes, row: bytes, start: int, end: int) -> tuple[int, int] | None:
    """(value start, value end) of the cell of ``row`` whose key lies in ``payload[start:end]``."""
    pattern = len(row).to_bytes(2, "big") + row + b"\0"
    key_length = _ROW_LENGTH.size + len(row) + 1 + _KEY_TAIL
    size = len(payload)
    hit = payload.find(pattern, start + _CELL_LENGTHS.size, end)
    while hit != -1:
        length, value_length = _CELL_LENGTHS.unpack_from(payload, hit - _CELL_LENGTHS.size)
        value_start = hit + key_length
        if length == key_length and value_length >= 0 and value_start + value_length <= size:
            return value_start, value_start + value_length
        hit = payload.find(pattern, hit + 1, end)
    return None


def _read_block(data: bytes, offset: int, end: int, compression: HFileCompression) -> _Block:
    if offset + _HEADER.size > end:
        raise HFileFormatError(f"block header at {offset} runs past offset {end}")
    magic, on_disk, uncompressed, _prev, _checksum_type, _per_checksum, data_with_header = _HEADER.unpack_from(
        data, offset
    )
    if magic not in BLOCK_MAGICS:
        raise HFileFormatError(f"unknown HFile block magic {magic!r} at offset {offset}")
    block_end = offset + _HEADER.size + on_disk
    if on_disk < 0 or uncompressed < 0 or block_end > end:
        raise HFileFormatError(f"{magic.decode('ascii')} block at {offset} of {on_disk} bytes runs past offset {end}")
    if not _HEADER.size <= data_with_header <= _HEADER.size + on_disk:
        raise HFileFormatError(
            f"{magic.decode('ascii')} block at {offset}: onDiskDataSizeWithHeader {data_with_header} "
            f"outside [{_HEADER.size}, {_HEADER.size + on_disk}]"
        )
    stored = data[offset + _HEADER.size : offset + data_with_header]
    if compression is HFileCompression.GZ:
        payload = _gunzip(stored, uncompressed)
        if payload is not None:
            return _Block(magic, offset, block_end, payload)
        try:
            # wbits 31: a gzip member; Hadoop's GzipCodec writes one per block.
            payload = zlib.decompress(stored, 31)
        except zlib.error as e:
            raise HFileFormatError(f"{magic.decode('ascii')} block at {offset} does not gunzip: {e}") from e
    else:
        payload = stored
    if len(payload) < uncompressed:
        raise HFileFormatError(
            f"{magic.decode('ascii')} block at {offset} holds {len(payload)} bytes, its header says {uncompressed}"
        )
    return _Block(magic, offset, block_end, payload[:uncompressed])


def _gunzip(stored: bytes, size: int) -> bytes | None:
    """The gzip member ``stored`` inflated by Arrow's codec (about twice as fast as :mod:`zlib`),
    when its trailer says it inflates to ``size`` bytes; None otherwise (then :mod:`zlib` inflates
    it and names what is wrong).

    Arrow fills a buffer of the size it is told and checks the member's CRC and length only
    against what it inflated: a member shorter than ``size`` would come back padded. Hence the
    check of the trailer's length (ISIZE, the size modulo 2**32) first. A codec inflates with
    state of its own: one per call, as lookups inflate blocks in several threads.
    """
    if len(stored) < _GZIP_MIN or int.from_bytes(stored[-4:], "little") != size & 0xFFFFFFFF:
        return None
    try:
        out: bytes = pa.Codec("gzip").decompress(stored, decompressed_size=size).to_pybytes()
    except (pa.ArrowException, OSError, ValueError):
        return None
    return out


def _cells(block: _Block, with_mvcc: bool) -> Iterator[tuple[bytes, int, int]]:
    """(row key, value start, value end) of every cell of a data block."""
    payload = block.payload
    size = len(payload)
    pos = 0
    while pos < size:
        if pos + _CELL_LENGTHS.size > size:
            raise HFileFormatError(f"cell lengths at {pos} of the data block at {block.offset} are cut off")
        key_length, value_length = _CELL_LENGTHS.unpack_from(payload, pos)
        key_start = pos + _CELL_LENGTHS.size
        value_start = key_start + key_length
        value_end = value_start + value_length
        if key_length < 2 + 1 + _KEY_TAIL or value_length < 0 or value_end > size:
            raise HFileFormatError(
                f"cell at {pos} of the data block at {block.offset} (key {key_length}, value {value_length} bytes) "
                f"does not fit the block"
            )
        (row_length,) = _ROW_LENGTH.unpack_from(payload, key_start)
        if 2 + row_length + 1 + _KEY_TAIL > key_length:
            raise HFileFormatError(f"row of {row_length} bytes overflows its {key_length}-byte cell key")
        row = payload[key_start + 2 : key_start + 2 + row_length]
        yield row, value_start, value_end
        pos = _skip_vlong(payload, value_end, block.offset) if with_mvcc else value_end


def _skip_vlong(buf: bytes, pos: int, block_offset: int) -> int:
    """Position after a Hadoop ``WritableUtils`` vlong starting at ``pos``."""
    if pos >= len(buf):
        raise HFileFormatError(f"MVCC version of the last cell of the data block at {block_offset} is cut off")
    first = buf[pos] - 256 if buf[pos] > 127 else buf[pos]
    width = 1 if first >= -112 else (-111 - first if first >= -120 else -119 - first)
    if pos + width > len(buf):
        raise HFileFormatError(f"MVCC version at {pos} of the data block at {block_offset} is cut off")
    return pos + width


def _signed64(value: int) -> int:
    # uint64 protobuf fields that Java fills from a signed long (-1 = none).
    return value - (1 << 64) if value >= 1 << 63 else value


def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """A protobuf base-128 varint at ``pos``: (value, position after it)."""
    value = 0
    shift = 0
    while pos < end and shift < 64:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise HFileFormatError("protobuf varint is cut off or longer than 64 bits")


def _proto_fields(message: bytes, what: str) -> Iterator[tuple[int, int | bytes]]:
    """(field number, value) of a protobuf message; varints as int, length-delimited as bytes."""
    pos, end = 0, len(message)
    while pos < end:
        tag, pos = _varint(message, pos, end)
        number, wire = tag >> 3, tag & 7
        if wire == 0:
            value, pos = _varint(message, pos, end)
            yield number, value
        elif wire == 2:
            length, pos = _varint(message, pos, end)
            if pos + length > end:
                raise HFileFormatError(f"{what} protobuf field {number} runs past the message")
            yield number, message[pos : pos + length]
            pos += length
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            if pos + width > end:
                raise HFileFormatError(f"{what} protobuf field {number} runs past the message")
            yield number, message[pos : pos + width]
            pos += width
        else:
            raise HFileFormatError(f"{what} protobuf field {number} has unsupported wire type {wire}")


def _proto_ints(message: bytes, what: str) -> dict[int, int]:
    return {number: value for number, value in _proto_fields(message, what) if isinstance(value, int)}


def _parse_file_info(payload: bytes) -> dict[bytes, bytes]:
    # InfoProto { repeated BytesBytesPair map_entry = 1 }, BytesBytesPair { bytes first = 1; bytes second = 2 }
    if payload[:4] != _PB_MAGIC:
        raise HFileFormatError(f"file info starts with {payload[:4]!r}, expected {_PB_MAGIC!r}")
    length, pos = _varint(payload, 4, len(payload))
    if pos + length > len(payload):
        raise HFileFormatError(f"file info protobuf of {length} bytes runs past its block")
    info: dict[bytes, bytes] = {}
    for number, entry in _proto_fields(payload[pos : pos + length], "file info"):
        if number != 1 or not isinstance(entry, bytes):
            continue
        pair: Mapping[int, int | bytes] = dict(_proto_fields(entry, "file info entry"))
        first, second = pair.get(1, b""), pair.get(2, b"")
        if isinstance(first, bytes) and isinstance(second, bytes):
            info[first] = second
    return info
