"""DELETE block content (version 3) as Arrow columns, decoded without a Python object per record.

The layout is :func:`~hudi_framework.log.delete_records.delete_list_schema`: an Avro array, written
in blocks (a zigzag ``long`` count; a negative count is followed by the block's byte size; then the
items; a zero count ends the array), of records ``recordKey: [null, string]``, ``partitionPath:
[null, string]``, ``orderingVal: [null, <11 scalar wrappers>, ArrayWrapper]``.

Items carry no length, so where each record starts is a chain only a walk can follow. The walk is
kept to one array lookup per record: a record starts with its key's union index, canonically the
single byte 0 or 2, so every such byte is a *candidate* start; the end of a record starting at each
candidate is computed for all candidates at once with numpy (garbage for candidates inside other
records, never looked at), and the walk then hops from record end to record end. The fields of the
records found are read together, strings with one Arrow ``take`` over the content.

The columnar form holds the ordering values as one column, so it exists only when every ordering
value is null or of one scalar wrapper type other than ``DecimalWrapper``. For anything else (an
``ArrayWrapper``, decimals, several wrapper types) and for any inconsistency (bad union index,
non-canonical union byte, length past the end, trailing bytes, bad UTF-8, an ``int`` out of range)
:func:`decode_delete_columns` returns None and the caller uses the reference decoder,
:func:`~hudi_framework.log.delete_records.decode_delete_content`, which reads every valid datum and
names the damage of an invalid one; the fast path never guesses.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_framework.errors import LogBlockEncodeError
from hudi_framework.log.delete_records import (
    DELETE_CONTENT_VERSION,
    SCALAR_ORDERING_TYPES,
    DeleteRecord,
    OrderingType,
    OrderingValue,
)

__all__ = ["ORDERING_ARROW_TYPES", "DeleteColumns", "columns_from_records", "decode_delete_columns"]

#: The Arrow type of each scalar wrapper's value: Avro's physical type (dates and timestamps as the
#: raw numbers Java writes). DECIMAL has no entry: decimal ordering values are never columnar.
ORDERING_ARROW_TYPES: Final = MappingProxyType(
    {
        OrderingType.BOOLEAN: pa.bool_(),
        OrderingType.INT: pa.int32(),
        OrderingType.LONG: pa.int64(),
        OrderingType.FLOAT: pa.float32(),
        OrderingType.DOUBLE: pa.float64(),
        OrderingType.BYTES: pa.binary(),
        OrderingType.STRING: pa.string(),
        OrderingType.DATE: pa.int32(),
        OrderingType.TIME_MICROS: pa.int64(),
        OrderingType.TIMESTAMP_MICROS: pa.int64(),
    }
)

#: numpy dtypes of the fixed-width ordering columns (``to_pandas_dtype`` would import pandas).
_NUMPY_TYPES: Final = MappingProxyType(
    {
        pa.bool_().id: np.dtype(np.bool_),
        pa.int32().id: np.dtype(np.int32),
        pa.int64().id: np.dtype(np.int64),
        pa.float32().id: np.dtype(np.float32),
        pa.float64().id: np.dtype(np.float64),
    }
)
_I64 = npt.NDArray[np.int64]
_BOOL = npt.NDArray[np.bool_]
_HEAD = struct.Struct(">ii")
_MAX_VARINT = 10
#: Three union indexes: the smallest record.
_MIN_RECORD = 3

# orderingVal union branches (SCALAR_ORDERING_TYPES index plus one), grouped by how the value is stored.
_BRANCH: Final = MappingProxyType({t: i + 1 for i, t in enumerate(SCALAR_ORDERING_TYPES)})
_VARINT_BRANCHES: Final = tuple(
    _BRANCH[t]
    for t in (
        OrderingType.INT,
        OrderingType.LONG,
        OrderingType.DATE,
        OrderingType.TIME_MICROS,
        OrderingType.TIMESTAMP_MICROS,
    )
)
_LENGTH_BRANCHES: Final = (_BRANCH[OrderingType.BYTES], _BRANCH[OrderingType.STRING])
_FIXED_WIDTHS: Final = MappingProxyType(
    {0: 0, _BRANCH[OrderingType.BOOLEAN]: 1, _BRANCH[OrderingType.FLOAT]: 4, _BRANCH[OrderingType.DOUBLE]: 8}
)
# How the value after each possible branch byte is stored: a fixed width (>= 0) or one of these.
_VARINT: Final = -1
_LENGTH: Final = -2
_NOT_COLUMNAR: Final = -3
_VALUE_KINDS: Final = tuple(
    _NOT_COLUMNAR
    if byte % 2
    else _VARINT
    if byte // 2 in _VARINT_BRANCHES
    else _LENGTH
    if byte // 2 in _LENGTH_BRANCHES
    else _FIXED_WIDTHS.get(byte // 2, _NOT_COLUMNAR)
    for byte in range(256)
)
_INT32_TYPES: Final = (OrderingType.INT, OrderingType.DATE)


@dataclass(frozen=True, slots=True)
class DeleteColumns:
    """The entries of a DELETE block as columns.

    Attributes:
        record_keys: ``string``, null where the key is null.
        partition_paths: ``string``, null where the path is null.
        ordering_type: The wrapper type of every non-null ordering value; None when all are null or
            when they are not one scalar type.
        ordering_values: The wrapped values as ``ORDERING_ARROW_TYPES[ordering_type]``, null where the
            entry has no ordering value (``null`` type when none has); None when the ordering values
            are not one scalar wrapper type (ARRAY, DECIMAL, several types): then only the block's
            records hold them.
    """

    record_keys: pa.Array
    partition_paths: pa.Array
    ordering_type: OrderingType | None
    ordering_values: pa.Array | None

    def __len__(self) -> int:
        return len(self.record_keys)

    @property
    def commit_time(self) -> _BOOL:
        """Per entry, whether its ordering value is ``IntWrapper(0)``, a commit-time delete."""
        values = self.ordering_values
        if self.ordering_type is not OrderingType.INT or values is None:
            return np.zeros(len(self), dtype=np.bool_)
        data = np.frombuffer(values.buffers()[1], dtype=np.int32, count=len(values), offset=values.offset * 4)
        mask: _BOOL = (data == 0) & _valid(values)
        return mask

    def to_records(self) -> tuple[DeleteRecord, ...]:
        """The entries as records.

        Raises:
            LogBlockEncodeError: The ordering values are not columnar (``ordering_values`` is None).
        """
        if self.ordering_values is None:
            raise LogBlockEncodeError("delete columns without an ordering column cannot give records")
        t = self.ordering_type
        keys = self.record_keys.to_pylist()
        paths = self.partition_paths.to_pylist()
        if t is None:
            return tuple(DeleteRecord(k, p, None) for k, p in zip(keys, paths, strict=True))
        values = self.ordering_values.to_pylist()
        return tuple(
            DeleteRecord(k, p, None if v is None else OrderingValue(t, v))
            for k, p, v in zip(keys, paths, values, strict=True)
        )


def _valid(values: pa.Array) -> _BOOL:
    bitmap = values.buffers()[0]
    if bitmap is None:
        return np.ones(len(values), dtype=np.bool_)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[values.offset : values.offset + len(values)].astype(np.bool_)


# ------------------------------------------------------------------------------------ from records
def columns_from_records(records: Sequence[DeleteRecord]) -> DeleteColumns:
    """The columns of records made in memory or decoded by the reference decoder."""
    keys = _binary([None if r.record_key is None else r.record_key.encode() for r in records], pa.string())
    paths = _binary([None if r.partition_path is None else r.partition_path.encode() for r in records], pa.string())
    orderings = [r.ordering_value for r in records]
    types = {v.type for v in orderings if v is not None}
    if not types:
        return DeleteColumns(keys, paths, None, pa.nulls(len(records)))
    t = types.pop()
    if types or t not in ORDERING_ARROW_TYPES:
        return DeleteColumns(keys, paths, None, None)
    valid = np.fromiter((v is not None for v in orderings), dtype=np.bool_, count=len(orderings))
    raw = [None if v is None else v.value for v in orderings]
    arrow_type = ORDERING_ARROW_TYPES[t]
    if t is OrderingType.BYTES or t is OrderingType.STRING:
        encoded = [v if isinstance(v, bytes) else None if v is None else str(v).encode() for v in raw]
        return DeleteColumns(keys, paths, t, _binary(encoded, arrow_type))
    filled = [0 if v is None else v for v in raw]
    values = np.array(filled, dtype=_NUMPY_TYPES[arrow_type.id])
    if t is OrderingType.FLOAT and not np.array_equal(values.astype(np.float64), np.array(filled), equal_nan=True):
        # A double the float32 column would round: keep it in the records only.
        return DeleteColumns(keys, paths, None, None)
    return DeleteColumns(keys, paths, t, _from_numpy(values, arrow_type, valid))


def _binary(values: Sequence[bytes | None], t: pa.DataType) -> pa.Array:
    """Byte strings (None for null) as ``t`` (``binary`` or ``string``), built from buffers."""
    n = len(values)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.fromiter((0 if v is None else len(v) for v in values), dtype=np.int64, count=n), out=offsets[1:])
    valid = np.fromiter((v is not None for v in values), dtype=np.bool_, count=n)
    data = b"".join(v for v in values if v is not None)
    large = pa.Array.from_buffers(pa.large_binary(), n, [_bitmap(valid), pa.py_buffer(offsets), pa.py_buffer(data)])
    return (large.cast(pa.large_string()) if pa.types.is_string(t) else large).cast(t)


def _from_numpy(values: npt.NDArray[Any], t: pa.DataType, valid: _BOOL) -> pa.Array:
    data = np.packbits(values, bitorder="little") if values.dtype == np.bool_ else np.ascontiguousarray(values)
    return pa.Array.from_buffers(t, len(values), [_bitmap(valid), pa.py_buffer(data)])


def _bitmap(valid: _BOOL) -> pa.Buffer | None:
    return None if bool(valid.all()) else pa.py_buffer(np.packbits(valid, bitorder="little"))


# ------------------------------------------------------------------------------------ decoding
class _DamagedError(Exception):
    """The content does not walk cleanly, or is not columnar: the caller uses the reference decoder."""


@dataclass(frozen=True, slots=True)
class _Fields:
    """Where the fields of records starting at given offsets lie (one entry per offset)."""

    start: _I64
    key_set: _BOOL
    key_at: _I64
    key_len: _I64
    path_set: _BOOL
    path_at: _I64
    path_len: _I64
    branch: _I64
    value_at: _I64
    #: The zigzag varint after the branch: the value (int/long wrappers) or the length (bytes/string).
    varint: _I64
    varint_size: _I64
    end: _I64

    def take(self, rows: _I64) -> _Fields:
        return _Fields(*(getattr(self, f.name)[rows] for f in fields(self)))


def decode_delete_columns(content: bytes) -> DeleteColumns | None:
    """The columns of DELETE block content, or None when the reference decoder must read it.

    None for content that is damaged, not version 3, or whose ordering values are not null or one
    scalar wrapper type other than DECIMAL; see the module docstring.
    """
    end = len(content)
    if end < _HEAD.size:
        return None
    version, length = _HEAD.unpack_from(content)
    if version != DELETE_CONTENT_VERSION or length != end - _HEAD.size:
        return None
    buf = np.frombuffer(content, dtype=np.uint8)
    try:
        fields = _record_fields(buf, content, _HEAD.size)
        return _columns(buf, fields)
    except _DamagedError:
        return None


def _record_fields(buf: npt.NDArray[np.uint8], content: bytes, body: int) -> _Fields:
    """The fields of every record of the array at ``body``, which must end the content."""
    end = len(content)
    candidates = np.flatnonzero((buf[body:] | 2) == 2).astype(np.int64) + body
    speculative = _scan(buf, candidates, end)
    rows = _one_block(content, speculative, body)
    if rows is None:
        rows = _walk(content, speculative, body)
    return speculative.take(rows)


def _one_block(content: bytes, f: _Fields, body: int) -> _I64 | None:
    """The rows of the records when the array is one block (as Java and fastavro write it) and the
    possible record starts after its header are exactly a chain ending at the terminator; else None.

    Then following the chain from the first record would visit exactly these rows, so no walk is needed.
    """
    end = len(content)
    count, at = _py_varint(content, body)
    size = None
    if count < 0:
        count = -count
        size, at = _py_varint(content, at)
    last = end - 1  # where the terminator must be
    if count <= 0 or content[last] != 0 or (size is not None and size != last - at):
        return None
    low, high = (int(i) for i in np.searchsorted(f.start, [at, last]))
    if high - low != count:
        return None
    starts, ends = f.start[low:high], f.end[low:high]
    if int(starts[0]) != at or int(ends[-1]) != last or not np.array_equal(ends[:-1], starts[1:]):
        return None
    return np.arange(low, high, dtype=np.int64)


def _walk(content: bytes, f: _Fields, body: int) -> _I64:
    """The rows of the records, found by following the chain of record ends through every array block."""
    end = len(content)
    # next_start[o]: where the record starting at o ends; ``sink`` (which maps to itself) if none can.
    sink = end + 1
    next_start = np.full(end + 2, sink, dtype=np.int64)
    next_start[f.start] = f.end
    hop = next_start.item
    starts: list[int] = []
    append = starts.append
    at = body
    while True:
        count, at = _py_varint(content, at)
        if not count:
            break
        size = None
        if count < 0:
            count = -count
            size, at = _py_varint(content, at)
        if count > (end - at) // _MIN_RECORD:
            raise _DamagedError
        first = at
        for _ in range(count):
            append(at)
            at = hop(at)
        if at >= end or (size is not None and at - first != size):
            raise _DamagedError
    if at != end:
        raise _DamagedError
    return np.searchsorted(f.start, np.array(starts, dtype=np.int64))


def _py_varint(content: bytes, at: int) -> tuple[int, int]:
    """One zigzag long at ``at`` (array block counts and sizes): its value and the next offset."""
    raw = shift = 0
    try:
        while True:
            b = content[at]
            at += 1
            raw |= (b & 0x7F) << shift
            if b < 0x80:
                break
            shift += 7
            if shift >= 7 * _MAX_VARINT:
                raise _DamagedError
    except IndexError:
        raise _DamagedError from None
    if raw >= 1 << 64:
        raise _DamagedError
    return (raw >> 1) ^ -(raw & 1), at


def _scan(buf: npt.NDArray[np.uint8], at: _I64, end: int) -> _Fields:
    """The fields of the records that could start at ``at``: those positions only where one can."""
    key_set, key_at, key_len, ok = _optional_string(buf, at, end)
    path_union_at = key_at + key_len
    ok &= (buf.take(path_union_at, mode="clip") | 2) == 2  # early, to read fewer lengths at false starts
    at, key_set, key_at, key_len, path_union_at = _where(ok, at, key_set, key_at, key_len, path_union_at)
    path_set, path_at, path_len, ok = _optional_string(buf, path_union_at, end)
    branch_at = path_at + path_len
    b = buf.take(branch_at, mode="clip")
    # Byte 2i is the canonical union index i; odd bytes (negative indexes) and high ones are not scalars.
    kind = np.array(_VALUE_KINDS, dtype=np.int64).take(b)
    ok &= (branch_at < end) & (kind != _NOT_COLUMNAR)
    at, key_set, key_at, key_len, path_set, path_at, path_len, branch_at, kind = _where(
        ok, at, key_set, key_at, key_len, path_set, path_at, path_len, branch_at, kind
    )
    value_at = branch_at + 1
    varint, varint_size, varint_ok = _varints(buf, value_at, end)
    is_varint = kind == _VARINT
    is_length = kind == _LENGTH
    length_ok = varint_ok & (varint >= 0) & (varint <= end - value_at - varint_size)
    ok = np.where(is_varint, varint_ok, ~is_length | length_ok)
    size = np.where(is_varint, varint_size, np.where(is_length & length_ok, varint_size + varint, kind))
    record_end = value_at + size
    ok &= record_end <= end
    branch = (buf.take(branch_at) >> 1).astype(np.int64)
    found = (at, key_set, key_at, key_len, path_set, path_at, path_len, branch, value_at, varint, varint_size)
    return _Fields(*_where(ok, *found, record_end))


def _where(ok: _BOOL, *arrays: npt.NDArray[Any]) -> tuple[npt.NDArray[Any], ...]:
    """The entries of ``arrays`` where ``ok`` (the arrays themselves when it always is)."""
    if bool(ok.all()):
        return arrays
    rows = np.flatnonzero(ok)
    return tuple(a[rows] for a in arrays)


def _optional_string(buf: npt.NDArray[np.uint8], at: _I64, end: int) -> tuple[_BOOL, _I64, _I64, _BOOL]:
    """A ``[null, string]`` union at each of ``at``: set, data offset, byte length, readable."""
    b = buf.take(at, mode="clip")
    is_set = b == 2
    length_at = at + 1
    length, size, length_ok = _varints(buf, length_at, end)
    length_ok &= (length >= 0) & (length <= end - length_at - size)
    ok = (at < end) & (is_set & length_ok | (b == 0))
    usable = is_set & length_ok
    return is_set, np.where(usable, length_at + size, length_at), np.where(usable, length, 0), ok


def _varints(buf: npt.NDArray[np.uint8], at: _I64, end: int) -> tuple[_I64, _I64, _BOOL]:
    """Zigzag varints at each of ``at``: values, byte counts, and whether each is a valid varint
    ending within the content (reads past the end are clipped, then flagged)."""
    b = buf.take(at, mode="clip")
    more = np.flatnonzero(b >= 0x80)
    if not len(more):  # all one byte, the usual lengths
        small = b.astype(np.int64)
        return (small >> 1) ^ -(small & 1), np.ones(len(at), dtype=np.int64), at < end
    # The longer varints at once: a window of their other nine bytes, cut to the longest one.
    raw = (b & 0x7F).astype(np.uint64)
    size = np.ones(len(at), dtype=np.int64)
    ok = np.ones(len(at), dtype=np.bool_)
    tail = np.arange(1, _MAX_VARINT, dtype=np.int64)
    window = buf.take(at[more, None] + tail, mode="clip")
    stop = window < 0x80
    last = stop.argmax(axis=1)
    rows = np.arange(len(more))
    # Found a final byte; a tenth byte may only hold bit 64.
    ok[more] = stop[rows, last] & ((last < _MAX_VARINT - 2) | (window[rows, last] <= 1))
    size[more] += last + 1
    width = int(last.max()) + 1
    parts = (window[:, :width] & 0x7F).astype(np.uint64) << (np.uint64(7) * tail[:width].astype(np.uint64))
    parts[tail[None, :width] > last[:, None] + 1] = 0
    raw[more] |= np.bitwise_or.reduce(parts, axis=1)
    ok &= at + size <= end
    value = (raw >> np.uint64(1)).view(np.int64) ^ -(raw & np.uint64(1)).view(np.int64)
    return value, size, ok


def _columns(buf: npt.NDArray[np.uint8], f: _Fields) -> DeleteColumns:
    keys = _spans(buf, f.key_at, f.key_len, f.key_set, pa.string())
    paths = _spans(buf, f.path_at, f.path_len, f.path_set, pa.string())
    has_value = f.branch != 0
    branches = f.branch[has_value]
    if not len(branches):
        return DeleteColumns(keys, paths, None, pa.nulls(len(f.branch)))
    if int(branches.min()) != int(branches.max()):
        raise _DamagedError  # several wrapper types: not one column
    t = SCALAR_ORDERING_TYPES[int(branches[0]) - 1]
    arrow_type = ORDERING_ARROW_TYPES[t]
    rows = np.flatnonzero(has_value)
    values: npt.NDArray[Any]
    if t is OrderingType.BYTES or t is OrderingType.STRING:
        data_at = np.where(has_value, f.value_at + f.varint_size, f.value_at)
        return DeleteColumns(keys, paths, t, _spans(buf, data_at, f.varint, has_value, arrow_type))
    if t is OrderingType.BOOLEAN:
        flags = buf.take(f.value_at[rows])
        if np.any(flags > 1):
            raise _DamagedError
        values = np.zeros(len(has_value), dtype=np.bool_)
        values[rows] = flags.astype(np.bool_)
    elif t is OrderingType.FLOAT or t is OrderingType.DOUBLE:
        width, dtype = (4, "<f4") if t is OrderingType.FLOAT else (8, "<f8")
        raw = np.zeros((len(has_value), width), dtype=np.uint8)
        raw[rows] = buf.take(f.value_at[rows, None] + np.arange(width))
        values = raw.view(dtype).reshape(-1)
    elif t in _INT32_TYPES:
        if np.any((f.varint[rows] < -(1 << 31)) | (f.varint[rows] >= 1 << 31)):
            raise _DamagedError
        values = np.where(has_value, f.varint, 0).astype(np.int32)
    else:
        values = np.where(has_value, f.varint, 0)
    return DeleteColumns(keys, paths, t, _from_numpy(values, arrow_type, has_value))


def _spans(buf: npt.NDArray[np.uint8], at: _I64, lengths: _I64, valid: _BOOL, t: pa.DataType) -> pa.Array:
    """The byte ranges ``[at, at + lengths)`` (empty where not ``valid``) as ``t`` (string or binary).

    The ranges lie in order in ``buf`` with other bytes between them: viewed as one binary array
    whose elements alternate range, gap, range..., the column is its even elements, which one Arrow
    ``take`` copies with no per-byte index.
    """
    n = len(at)
    lengths = np.where(valid, lengths, 0)
    # 32-bit offsets when the content allows (delete content always does in practice): one cast less.
    narrow = len(buf) < 2**31
    binary, offset_type = (pa.binary(), np.int32) if narrow else (pa.large_binary(), np.int64)
    if n:
        bounds = np.empty(2 * n, dtype=np.int64)
        bounds[0::2] = at
        bounds[1::2] = at + lengths
        if bool((bounds[1:] < bounds[:-1]).any()) or int(bounds[-1]) > len(buf) or int(bounds[0]) < 0:
            raise _DamagedError
        spans = pa.Array.from_buffers(
            binary, 2 * n - 1, [None, pa.py_buffer(bounds.astype(offset_type)), pa.py_buffer(buf)]
        )
        even = np.arange(0, 2 * n, 2, dtype=np.int64)
        taken = spans.take(pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(even)]))
        offsets, data = taken.buffers()[1:]
    else:
        offsets, data = pa.py_buffer(np.zeros(1, dtype=offset_type)), pa.py_buffer(b"")
    values = pa.Array.from_buffers(binary, n, [_bitmap(valid), offsets, data])
    try:
        # Casting binary to string validates UTF-8, as the reference decoder's strict decoding does.
        return values.cast(t)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise _DamagedError from e
