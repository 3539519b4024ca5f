"""Vectorised Avro binary encoding of flat records (:mod:`hudi_framework.log.avro_flat_schema`).

Each field becomes one or two per-row byte pieces (union index, value) built for the whole column
with numpy: zigzag varints from a ``(rows, width)`` byte matrix, fixed-width values by view,
strings from Arrow's own buffers. Every piece is then scattered into its place in the output, row
``i``'s pieces back to back behind the row's big-endian int32 length, as an AVRO_DATA block frames
its records.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous
from hudi_framework.errors import LogBlockEncodeError
from hudi_framework.log.avro_flat_schema import FlatField

#: Rows encoded per pass: bounds the numpy temporaries (8 bytes of index per output byte).
_CHUNK_ROWS = 1 << 16

_U8 = np.ndarray[Any, np.dtype[np.uint8]]
_I64 = np.ndarray[Any, np.dtype[np.int64]]
_Mask = np.ndarray[Any, np.dtype[np.bool_]]


@dataclass(frozen=True)
class _Piece:
    """Per-row byte strings: ``lengths[i]`` bytes of row ``i``, concatenated in ``data``."""

    lengths: _I64
    data: _U8
    width: int | None  #: every row has exactly this many bytes (then ``data`` is a matrix)


def encode_flat_records(table: pa.Table, fields: list[FlatField]) -> bytes:
    """The framed records (``int32 length | datum`` each) of a physical-typed ``table``."""
    return _encode(table.columns, fields, framed=True)


def encode_flat_items(columns: Sequence[pa.Array | pa.ChunkedArray], fields: list[FlatField]) -> bytes:
    """The records of ``columns`` back to back, without lengths: the items of an Avro array."""
    return _encode(columns, fields, framed=False)


def _encode(columns: Sequence[pa.Array | pa.ChunkedArray], fields: list[FlatField], *, framed: bool) -> bytes:
    parts: list[bytes] = []
    flat = [contiguous(c) for c in columns]
    rows = len(flat[0]) if flat else 0
    for start in range(0, rows, _CHUNK_ROWS):
        chunk = [c.slice(start, _CHUNK_ROWS) for c in flat]
        parts.append(_encode_chunk(chunk, fields, len(chunk[0]), framed=framed))
    return b"".join(parts)


def _encode_chunk(columns: list[pa.Array], fields: list[FlatField], n: int, *, framed: bool) -> bytes:
    pieces: list[_Piece] = []
    for column, field in zip(columns, fields, strict=True):
        pieces.extend(_field_pieces(column, field, n))
    if framed:
        datum = np.zeros(n, dtype=np.int64)
        for p in pieces:
            datum += p.lengths
        pieces.insert(0, _Piece(np.full(n, 4, dtype=np.int64), datum.astype(">i4").view(np.uint8), 4))
    stacked = pa.concat_arrays([_binary(p) for p in pieces])
    # Piece-major to row-major: Arrow copies each row's pieces, in order, into one buffer.
    order = (np.arange(len(pieces), dtype=np.int64)[None, :] * n + np.arange(n, dtype=np.int64)[:, None]).ravel()
    rows = stacked.take(pa.array(order))
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int64, count=len(rows) + 1, offset=rows.offset * 8)
    data: bytes = rows.buffers()[2][int(offsets[0]) : int(offsets[-1])].to_pybytes()
    return data


def _binary(piece: _Piece) -> pa.Array:
    offsets = np.zeros(len(piece.lengths) + 1, dtype=np.int64)
    np.cumsum(piece.lengths, out=offsets[1:])
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(piece.data))]
    return pa.Array.from_buffers(pa.large_binary(), len(piece.lengths), buffers)


def _field_pieces(column: pa.Array, field: FlatField, n: int) -> list[_Piece]:
    valid = _valid_mask(column)
    pieces: list[_Piece] = []
    if field.null_branch is None:
        if valid is not None:
            raise LogBlockEncodeError("record does not fit the writer schema: a null in a non-null field")
    else:
        # Union indexes 0 and 1 zigzag to the single bytes 0x00 and 0x02.
        branch = np.full(n, 2 * field.value_branch, dtype=np.uint8)
        if valid is not None:
            branch[~valid] = 2 * field.null_branch
        pieces.append(_fixed_piece(branch.reshape(n, 1), None))
    kind = field.kind
    if kind in ("string", "bytes"):
        filled = pc.fill_null(column, "" if kind == "string" else b"") if valid is not None else column
        values = filled.cast(pa.large_binary())
        offsets = np.frombuffer(values.buffers()[1], dtype=np.int64, count=n + 1, offset=values.offset * 8)
        lengths = np.diff(offsets)
        data = np.frombuffer(values.buffers()[2], dtype=np.uint8, count=int(offsets[-1]))[int(offsets[0]) :]
        pieces.append(_varint_piece(lengths, valid))
        pieces.append(_Piece(lengths, data, None))
        return pieces
    if kind in ("int", "long"):
        pieces.append(_varint_piece(_numbers(column, valid, np.int64), valid))
        return pieces
    if kind == "boolean":
        pieces.append(_fixed_piece(_numbers(column, valid, np.uint8).reshape(n, 1), valid))
        return pieces
    if kind in ("float", "double"):
        dtype = np.dtype("<f4") if kind == "float" else np.dtype("<f8")
        values_np = _numbers(column, valid, dtype)
        pieces.append(_fixed_piece(values_np.view(np.uint8).reshape(n, dtype.itemsize), valid))
        return pieces
    # fixed: Arrow fixed_size_binary of the schema's size.
    size = field.size
    raw = np.frombuffer(column.buffers()[1], dtype=np.uint8, count=(column.offset + n) * size)
    pieces.append(_fixed_piece(raw[column.offset * size :].reshape(n, size), valid))
    return pieces


def _valid_mask(column: pa.Array) -> _Mask | None:
    if not column.null_count:
        return None
    return np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool)


def _numbers(column: pa.Array, valid: _Mask | None, dtype: Any) -> np.ndarray[Any, Any]:
    if valid is not None:
        column = pc.fill_null(column, False if pa.types.is_boolean(column.type) else 0)
    return np.ascontiguousarray(column.to_numpy(zero_copy_only=False).astype(dtype, copy=False))


def _fixed_piece(matrix: np.ndarray[Any, Any], valid: _Mask | None) -> _Piece:
    """Row ``i`` of ``matrix`` for each row (no bytes where ``valid`` is False)."""
    n, width = matrix.shape
    if valid is None:
        return _Piece(np.full(n, width, dtype=np.int64), np.ascontiguousarray(matrix).reshape(-1), width)
    lengths = np.where(valid, width, 0).astype(np.int64)
    return _Piece(lengths, np.ascontiguousarray(matrix[valid]).reshape(-1), None)


def _varint_piece(values: np.ndarray[Any, Any], valid: _Mask | None) -> _Piece:
    """Zigzag varints of int64 ``values`` (no bytes where ``valid`` is False)."""
    v = values.astype(np.int64, copy=False)
    zigzag = ((v << 1) ^ (v >> 63)).view(np.uint64)
    n = len(zigzag)
    top = int(zigzag.max()) if n else 0
    width = max(1, (top.bit_length() + 6) // 7)  # the widest varint of the column
    groups = np.empty((n, width), dtype=np.uint8)
    count = np.ones(n, dtype=np.int64)
    for j in range(width):
        groups[:, j] = (zigzag >> np.uint64(7 * j)) & np.uint64(0x7F)
        if j:
            count += zigzag >= np.uint64(1 << (7 * j))
    for j in range(width - 1):
        groups[:, j] |= np.where(count > j + 1, 0x80, 0).astype(np.uint8)
    if width == 1:
        return _fixed_piece(groups, valid)
    keep = np.arange(width)[None, :] < count[:, None]
    if valid is not None:
        keep &= valid[:, None]
        count = np.where(valid, count, 0)
    return _Piece(count, groups[keep], None)
