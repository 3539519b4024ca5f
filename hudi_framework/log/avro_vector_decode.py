"""Vectorised decoding of flat Avro records (:mod:`hudi_framework.log.avro_flat_schema`).

Avro datums have no field offsets, but a flat record's fields can be walked for all records at
once: given every record's current position, read field ``k`` of all records together (union
index, then the value or its length), advance all positions, and move on to field ``k + 1``. Only
finding where each record starts follows the chain of length prefixes one record at a time.

Any inconsistency (a length that disagrees with the walk, a bad union index, a non-UTF-8 string)
returns None so that the caller re-reads the content with the reference decoder, which names the
damage precisely; the fast path never guesses.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pyarrow as pa

from hudi_framework.log.avro_flat_schema import FlatField

_I64 = np.ndarray[Any, np.dtype[np.int64]]
_MAX_VARINT = 10
_INT32 = struct.Struct(">i")


class _DamagedError(Exception):
    """The content does not walk cleanly; the caller falls back to the reference decoder."""


def decode_flat_records(
    content: bytes, offset: int, count: int, fields: list[FlatField], target: pa.Schema
) -> pa.Table | None:
    """The physical-typed records framed in ``content[offset:]``, or None when they do not walk cleanly."""
    buf = np.frombuffer(content, dtype=np.uint8)
    starts = _record_starts(content, offset, count)
    if starts is None:
        return None
    lengths = _be_int32(buf, starts)
    pos = starts + 4
    ends = pos + lengths
    if count and (np.any(lengths < 0) or int(ends[-1]) != len(content) or np.any(ends[:-1] != starts[1:])):
        return None
    if not count and offset != len(content):
        return None
    try:
        columns = []
        for field, arrow_field in zip(fields, target, strict=True):
            column, pos = _read_field(buf, pos, field, arrow_field.type)
            if np.any(pos > ends):
                return None
            columns.append(column)
    except _DamagedError:
        return None
    if np.any(pos != ends):
        return None
    return pa.Table.from_arrays(columns, schema=target)


def _record_starts(content: bytes, offset: int, count: int) -> _I64 | None:
    """Where each record's length prefix sits: a chain only a sequential walk can follow."""
    unpack = _INT32.unpack_from
    starts: list[int] = []
    append = starts.append
    at = offset
    try:
        for _ in range(count):
            append(at)
            (length,) = unpack(content, at)
            if length < 0:
                return None
            at += 4 + length
    except struct.error:
        return None
    return np.array(starts, dtype=np.int64)


def _be_int32(buf: np.ndarray[Any, Any], at: _I64) -> _I64:
    raw = buf.take(at[:, None] + np.arange(4), mode="clip").astype(np.int64)
    value = (raw[:, 0] << 24) | (raw[:, 1] << 16) | (raw[:, 2] << 8) | raw[:, 3]
    return np.where(value >= 1 << 31, value - (1 << 32), value)


def _read_varint(buf: np.ndarray[Any, Any], pos: _I64) -> tuple[_I64, _I64]:
    """Zigzag varints at ``pos``: their values and byte counts."""
    b = buf.take(pos, mode="clip")
    raw = (b & 0x7F).astype(np.uint64)
    size = np.ones(len(pos), dtype=np.int64)
    more = np.nonzero(b >= 0x80)[0]
    j = 1
    while len(more):
        if j >= _MAX_VARINT:
            raise _DamagedError
        b = buf.take(pos[more] + j, mode="clip")
        raw[more] |= (b & 0x7F).astype(np.uint64) << np.uint64(7 * j)
        size[more] += 1
        more = more[b >= 0x80]
        j += 1
    value = (raw >> np.uint64(1)).view(np.int64) ^ -(raw & np.uint64(1)).view(np.int64)
    return value, size


def _read_field(buf: np.ndarray[Any, Any], pos: _I64, field: FlatField, t: pa.DataType) -> tuple[pa.Array, _I64]:
    n = len(pos)
    pos = pos.copy()
    valid: np.ndarray[Any, np.dtype[np.bool_]] | None = None
    if field.null_branch is not None:
        branch, size = _read_varint(buf, pos)
        if np.any((branch != 0) & (branch != 1)):
            raise _DamagedError
        pos += size
        is_value = branch == field.value_branch
        valid = None if bool(is_value.all()) else is_value
    rows = np.arange(n) if valid is None else np.nonzero(valid)[0]
    at = pos[rows]
    kind = field.kind
    if kind in ("string", "bytes"):
        return _read_binary(buf, pos, rows, valid, n, t)
    if kind in ("int", "long"):
        values, size = _read_varint(buf, at)
        if kind == "int" and np.any((values < -(1 << 31)) | (values >= 1 << 31)):
            raise _DamagedError
        pos[rows] += size
        # Physical Avro int/long are int32/int64 (``to_pandas_dtype`` would import pandas).
        dtype = np.int32 if kind == "int" else np.int64
        return _numeric(values.astype(dtype), rows, valid, n, t), pos
    if kind == "boolean":
        flags = buf.take(at, mode="clip")
        if np.any(flags > 1):
            raise _DamagedError
        pos[rows] += 1
        return _numeric(flags.astype(bool), rows, valid, n, t), pos
    width = 4 if kind == "float" else 8 if kind == "double" else field.size
    raw = np.ascontiguousarray(buf.take(at[:, None] + np.arange(width), mode="clip"))
    pos[rows] += width
    if kind == "fixed":
        data = np.zeros((n, width), dtype=np.uint8)
        data[rows] = raw
        return pa.Array.from_buffers(t, n, [_bitmap(valid), pa.py_buffer(data)]), pos
    values_f = raw.view("<f4" if kind == "float" else "<f8").reshape(-1)
    return _numeric(values_f, rows, valid, n, t), pos


def _numeric(values: np.ndarray[Any, Any], rows: _I64, valid: Any, n: int, t: pa.DataType) -> pa.Array:
    # Built from buffers: zero-copy, and no trip through pyarrow's pandas-aware conversion.
    if valid is not None:
        full = np.zeros(n, dtype=values.dtype)
        full[rows] = values
        values = full
    data = np.packbits(values, bitorder="little") if values.dtype == np.bool_ else np.ascontiguousarray(values)
    return pa.Array.from_buffers(t, n, [_bitmap(valid), pa.py_buffer(data)])


def _read_binary(
    buf: np.ndarray[Any, Any], pos: _I64, rows: _I64, valid: Any, n: int, t: pa.DataType
) -> tuple[pa.Array, _I64]:
    lengths_at, size = _read_varint(buf, pos[rows])
    if np.any(lengths_at < 0):
        raise _DamagedError
    pos[rows] += size
    lengths = np.zeros(n, dtype=np.int64)
    lengths[rows] = lengths_at
    if n:
        # The column's values lie in record order in ``buf``, separated by the other fields' bytes.
        # Viewed as one binary array over ``buf`` whose values alternate value, gap, value..., the
        # column is its even elements: Arrow's take copies them, with no per-byte index array.
        bounds = np.empty(2 * n, dtype=np.int64)
        bounds[0::2] = pos
        bounds[1::2] = pos + lengths
        if np.any(np.diff(bounds) < 0) or int(bounds[-1]) > len(buf):
            raise _DamagedError
        spans = pa.Array.from_buffers(pa.large_binary(), 2 * n - 1, [None, pa.py_buffer(bounds), pa.py_buffer(buf)])
        even = np.arange(0, 2 * n, 2, dtype=np.int64)  # from buffers: pa.array would probe for pandas
        taken = spans.take(pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(even)]))
        offsets, data = taken.buffers()[1:]
    else:
        offsets, data = pa.py_buffer(np.zeros(1, dtype=np.int64)), pa.py_buffer(b"")
    pos += lengths
    large = pa.Array.from_buffers(pa.large_binary(), n, [_bitmap(valid), offsets, data])
    try:
        # Casting binary to string validates UTF-8, as the reference decoder does.
        return (large.cast(pa.large_string()) if pa.types.is_string(t) else large).cast(t), pos
    except (ValueError, TypeError) as e:
        raise _DamagedError from e


def _bitmap(valid: Any) -> pa.Buffer | None:
    return None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
