"""Vectorised decoding of flat Avro records (:mod:`hudi_framework.log.avro_flat_schema`).

Avro datums have no field offsets, but a flat record's fields can be walked for all records at
once: given every record's current position, read field ``k`` of all records together (union
index, then the value or its length), advance all positions, and move on to field ``k + 1``. Only
finding where each record starts follows the chain of length prefixes one record at a time.

Each read is one gather from a view of the content that has a value starting at *every* byte
offset (an unaligned little-endian ``float64``, ``uint64``... per offset). Union indexes and
string lengths are usually one byte each and are read as bytes; other varints are read as 8-byte
words and decoded with word-wide bit operations. String bytes are copied once per column, after
the whole walk has checked out.

Any inconsistency (a length that disagrees with the walk, a bad or non-canonical union index, a
non-UTF-8 string) returns None so that the caller re-reads the content with the reference
decoder, which names the damage precisely; the fast path never guesses.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.log.avro_flat_schema import FlatField, flat_fields

_I64 = np.ndarray[Any, np.dtype[np.int64]]
_Mask = np.ndarray[Any, np.dtype[np.bool_]]
_Words = np.ndarray[Any, Any]  # uint64 (numpy's stubs widen uint64 arithmetic with Python ints)
_MAX_VARINT = 10
_INT32 = struct.Struct(">i")
# Java byte arrays (and so Hudi blocks) stay below 2 GiB: positions fit Arrow's int32 offsets.
_MAX_CONTENT = (1 << 31) - 1
_WORD = 8
_LOW_7_BITS = 0x7F7F7F7F7F7F7F7F
_HIGH_BITS = 0x8080808080808080
_BYTE_ONES = 0x0101010101010101
# Varint compaction steps (needed past this span, shift, bits kept in place, bits moved down):
# merge 7-bit groups pairwise, then the 14-bit pairs (varints over 2 bytes), then 28 (over 4).
_COMPACT_STEPS = (
    (0xFF, 1, 0x007F007F007F007F, 0x3F803F803F803F80),
    (0xFFFF, 2, 0x00003FFF00003FFF, 0x0FFFC0000FFFC000),
    (0xFFFFFFFF, 4, 0x000000000FFFFFFF, 0x00FFFFFFF0000000),
)


class _DamagedError(Exception):
    """The content does not walk cleanly; the caller falls back to the reference decoder."""


def _every(raw: bytes, dtype: str) -> Any:
    """A value of ``dtype`` starting at every byte offset of ``raw`` (as far as one fits)."""
    width = np.dtype(dtype).itemsize
    return np.ndarray((max(0, len(raw) - width + 1),), dtype=dtype, buffer=raw, strides=(1,))


@dataclass(frozen=True)
class _Views:
    """The content read at any byte offset, as bytes, floats, or 8-byte words."""

    raw: bytes
    u8: np.ndarray[Any, np.dtype[np.uint8]]
    f32: np.ndarray[Any, np.dtype[np.float32]]
    f64: np.ndarray[Any, np.dtype[np.float64]]
    u64: _Words
    # The last bytes again, zero-padded: a varint near the end is still read as a whole word.
    tail_at: int
    tail: _Words

    @classmethod
    def of(cls, raw: bytes) -> _Views:
        tail_at = max(0, len(raw) - 2 * _WORD)
        return cls(
            raw,
            np.frombuffer(raw, dtype=np.uint8),
            _every(raw, "<f4"),
            _every(raw, "<f8"),
            _every(raw, "<u8"),
            tail_at,
            _every(raw[tail_at:] + bytes(_WORD), "<u8"),
        )

    def words(self, pos: _I64) -> _Words:
        """The 8 bytes at each of ``pos`` (increasing, as each field's positions are), zeros past the end."""
        limit = len(self.u64) - 1
        if int(pos[-1]) <= limit:
            return self.u64[pos]
        # Words running past the end are a suffix of ``pos`` (unless damaged: then some record
        # has overrun its length, which the walk's final check rejects whatever is read here).
        k = int(np.searchsorted(pos, limit, side="right"))
        out = np.empty(len(pos), dtype=np.uint64)
        out[:k] = self.u64[pos[:k]]
        out[k:] = self.tail[pos[k:] - self.tail_at]
        return out


@dataclass(frozen=True)
class _Binary:
    """Where a string/bytes column's values lie, kept until the walk has checked out."""

    start: _I64
    length: _I64
    valid: _Mask | None


def decode_flat_records(
    content: bytes, offset: int, count: int, fields: list[FlatField], target: pa.Schema
) -> pa.Table | None:
    """The physical-typed records framed in ``content[offset:]``, or None when they do not walk cleanly."""
    size = len(content)
    # Every record takes at least its 4-byte length prefix, which bounds the walk below.
    if count < 0 or not 0 <= offset <= size or count > (size - offset) // 4 or size > _MAX_CONTENT:
        return None
    if not count:
        return target.empty_table() if offset == size else None
    bounds = _record_starts(content, offset, count)
    if bounds is None or int(bounds[-1]) != size or np.any(np.diff(bounds) < 4):
        return None
    views = _Views.of(content)
    pos = bounds[:-1] + 4
    try:
        parts: list[pa.Array | _Binary] = []
        for field, arrow_field in zip(fields, target, strict=True):
            part, pos = _read_field(views, pos, field, arrow_field.type)
            parts.append(part)
        # Every field advances a record's position by a non-negative amount, so ending exactly on
        # each record's end also bounds every value read on the way.
        if np.any(pos != bounds[1:]):
            return None
        columns = [
            _binary_column(views, part, arrow_field.type) if isinstance(part, _Binary) else part
            for part, arrow_field in zip(parts, target, strict=True)
        ]
    except (_DamagedError, IndexError):
        return None
    return pa.Table.from_arrays(columns, schema=target)


def _record_starts(content: bytes, offset: int, count: int) -> _I64 | None:
    """Where each record's length prefix sits, then the end: a chain only a sequential walk can follow.

    A negative length shows as a step shorter than 4 bytes, checked by the caller in one pass.
    """
    unpack = _INT32.unpack_from
    starts = [0] * (count + 1)
    at = offset
    try:
        for i in range(count):
            starts[i] = at
            at += 4 + unpack(content, at)[0]
    except struct.error:
        return None
    starts[count] = at
    return np.array(starts, dtype=np.int64)


def _read_field(views: _Views, pos: _I64, field: FlatField, t: pa.DataType) -> tuple[pa.Array | _Binary, _I64]:
    kind = field.kind
    valid: _Mask | None = None
    if field.null_branch is not None:
        tag = views.u8[pos]
        value_tag = 2 * field.value_branch  # the branch index as a one-byte zigzag varint
        if not (tag == value_tag).all():
            valid = tag == value_tag
            # Branch indexes other than one canonical byte 0x00/0x02 are left to the reference decoder.
            if not (valid | (tag == 2 * field.null_branch)).all():
                raise _DamagedError
        pos = pos + 1
    if kind in ("string", "bytes"):
        if valid is None:
            lead = views.u8[pos]
            if not (lead & 0x81).any():  # the usual case: every length one byte, 0..63
                start = pos + 1
                short = (lead >> 1).astype(np.int64)
                return _Binary(start, short, None), start + short
        length, size = _varints(views, pos, valid)
        # Negative lengths (huge as unsigned) and lengths beyond the content are damage; bounding
        # them keeps positions far from int64 overflow.
        if np.any(length.view(np.uint64) > len(views.raw)):
            raise _DamagedError
        start = pos + size
        return _Binary(start, length, valid), start + length
    if kind in ("int", "long"):
        values, size = _varints(views, pos, valid)
        if kind == "int":
            if np.any((values < -(1 << 31)) | (values >= 1 << 31)):
                raise _DamagedError
            values = values.astype(np.int32)  # physical Avro int is int32
        return _numeric(values, valid, t), pos + size
    if kind == "boolean":
        flags = _gather(views.u8, pos, valid)
        if np.any(flags > 1):
            raise _DamagedError
        return _numeric(flags, valid, t), pos + _consumed(1, valid)
    if kind in ("float", "double"):
        values_f = _gather(views.f32 if kind == "float" else views.f64, pos, valid)
        return _numeric(values_f, valid, t), pos + _consumed(values_f.itemsize, valid)
    return _fixed(views, pos, field.size, valid, t)


def _gather(view: np.ndarray[Any, Any], pos: _I64, valid: _Mask | None) -> np.ndarray[Any, Any]:
    """``view`` at ``pos``; 0 in null rows, whose positions may lie too near the end for a value."""
    if valid is None:
        return view[pos]
    if not valid.any():
        return np.zeros(len(pos), dtype=view.dtype)
    return np.where(valid, view[np.where(valid, pos, pos[valid.argmax()])], 0).astype(view.dtype, copy=False)


def _consumed(width: int, valid: _Mask | None) -> Any:
    """Bytes a value of ``width`` takes per row: none in null rows."""
    return width if valid is None else np.where(valid, width, 0)


def _varints(views: _Views, pos: _I64, valid: _Mask | None) -> tuple[_I64, _I64]:
    """Zigzag varints at ``pos``: values and byte counts; null rows (``valid`` False) read 0 and take no bytes."""
    word = views.words(pos)
    if valid is not None:
        word = np.where(valid, word, 0)
    if not (word & 0x80).any():  # all one byte
        raw: _Words = word & 0x7F
        size: Any = _consumed(1, valid)
    else:
        decoded = _decode_words(word)
        if decoded is None:  # a varint longer than 8 bytes: large longs, or damage
            return _read_varint(views.u8, pos, valid)
        raw, size = decoded
        if valid is not None:
            size = np.where(valid, size, 0)
    value = (raw >> 1).view(np.int64) ^ -(raw & 1).view(np.int64)
    return value, size


def _decode_words(word: _Words) -> tuple[_Words, _I64] | None:
    """Raw (still zigzag) varints starting each word, or None if one runs past its word."""
    term = ~word
    term &= _HIGH_BITS  # the high bit of every byte that can end a varint
    if not term.all():
        return None
    span = -term
    span &= term  # lowest set bit: the high bit of the varint's last byte
    span <<= 1
    span -= 1  # every bit up to and including that byte (wraps to all ones for the 8th)
    raw: _Words = word & span
    raw &= _LOW_7_BITS
    # Close the gaps left by the dropped continuation bits (steps beyond the longest varint have
    # nothing to move).
    longest = int(span.max())
    for needed_past, shift, keep, moved in _COMPACT_STEPS:
        if longest <= needed_past:
            break
        high: _Words = raw >> shift
        high &= moved
        raw &= keep
        raw |= high
    span &= _BYTE_ONES
    span *= _BYTE_ONES
    span >>= 56  # the span's bytes, counted by summing one bit per byte into the top byte
    return raw, span.view(np.int64)


def _read_varint(u8: np.ndarray[Any, Any], pos: _I64, valid: _Mask | None) -> tuple[_I64, _I64]:
    """Byte-at-a-time zigzag varints for the rare rows longer than 8 bytes (up to Avro's 10)."""
    b = u8.take(pos, mode="clip")
    if valid is not None:
        b = np.where(valid, b, 0)
    raw = (b & 0x7F).astype(np.uint64)
    size = np.ones(len(pos), dtype=np.int64)
    more = np.nonzero(b >= 0x80)[0]
    j = 1
    while len(more):
        if j >= _MAX_VARINT:
            raise _DamagedError
        b = u8.take(pos[more] + j, mode="clip")
        raw[more] |= (b & 0x7F).astype(np.uint64) << np.uint64(7 * j)
        size[more] += 1
        more = more[b >= 0x80]
        j += 1
    if valid is not None:
        size[~valid] = 0
    value = (raw >> np.uint64(1)).view(np.int64) ^ -(raw & np.uint64(1)).view(np.int64)
    return value, size


def _fixed(views: _Views, pos: _I64, width: int, valid: _Mask | None, t: pa.DataType) -> tuple[pa.Array, _I64]:
    data = views.u8.take(pos[:, None] + np.arange(width), mode="clip")
    if valid is not None:
        data[~valid] = 0
    return pa.Array.from_buffers(t, len(pos), [_bitmap(valid), pa.py_buffer(data)]), pos + _consumed(width, valid)


def _numeric(values: np.ndarray[Any, Any], valid: _Mask | None, t: pa.DataType) -> pa.Array:
    """A column from ``values`` (0 in null rows). Built from buffers: zero-copy, and no trip through
    pyarrow's pandas-aware conversion."""
    data = np.packbits(values, bitorder="little") if pa.types.is_boolean(t) else values
    return pa.Array.from_buffers(t, len(values), [_bitmap(valid), pa.py_buffer(data)])


def _binary_column(views: _Views, part: _Binary, t: pa.DataType) -> pa.Array:
    """Copy a column's values (in record order, separated by other fields' bytes) into one Arrow array."""
    n = len(part.start)
    lo, hi = int(part.length.min()), int(part.length.max())
    if lo == hi and part.valid is None:
        # Equal lengths (keys, commit times, file names...): one gather of fixed-size items.
        data = (
            np.ndarray((len(views.raw) - hi + 1,), dtype=f"V{hi}", buffer=views.raw, strides=(1,))[part.start]
            if hi
            else np.zeros(0, dtype=np.uint8)
        )
        offsets = np.arange(0, (n + 1) * hi, hi, dtype=np.int64) if hi else np.zeros(n + 1, dtype=np.int64)
        data_buf = pa.py_buffer(data)
    else:
        # Viewed as one binary array over the content whose values alternate value, gap, value...,
        # the column is its even elements: Arrow's take copies them, with no per-byte index array.
        spans_at = np.empty(2 * n, dtype=np.int32)
        spans_at[0::2] = part.start
        spans_at[1::2] = part.start + part.length
        spans = pa.Array.from_buffers(pa.binary(), 2 * n - 1, [None, pa.py_buffer(spans_at), pa.py_buffer(views.raw)])
        even = np.arange(0, 2 * n, 2, dtype=np.int32)  # from buffers: pa.array would probe for pandas
        indices = pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(even)])
        # In bounds by construction; the spans' bounds were checked by the walk.
        taken = pc.call_function("array_take", [spans, indices], pc.TakeOptions(boundscheck=False))
        _, offsets_buf, data_buf = taken.buffers()
        offsets = np.frombuffer(offsets_buf, dtype=np.int32, count=n + 1)
    # A column's bytes are fewer than the content's (< 2 GiB): int32 offsets hold them.
    large = pa.types.is_large_string(t) or pa.types.is_large_binary(t)
    column = pa.Array.from_buffers(
        t, n, [_bitmap(part.valid), pa.py_buffer(offsets.astype(np.int64 if large else np.int32, copy=False)), data_buf]
    )
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        _check_utf8(column, data_buf)
    return column


def _check_utf8(column: pa.Array, data: pa.Buffer) -> None:
    """Reject non-UTF-8 values as the reference decoder does; ASCII-only data needs no closer look."""
    raw = np.frombuffer(data, dtype=np.uint8)
    if len(raw) and int(raw.max()) >= 0x80:
        try:
            column.validate(full=True)
        except pa.ArrowInvalid as e:
            raise _DamagedError from e


def _bitmap(valid: _Mask | None) -> pa.Buffer | None:
    return None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))


@dataclass(frozen=True)
class NullField:
    """A field every value skipped over must hold as ``null`` (a union's null branch, one byte)."""

    null_branch: int


@dataclass(frozen=True)
class FlatRecordField:
    """A union of ``null`` and a flat record whose every value holds the record: decoded to a struct."""

    null_branch: int
    fields: list[FlatField]
    type: pa.StructType


#: One top-level field of a value walked by :func:`decode_values_at`, with its Arrow type (None
#: for a skipped null field).
ValueField = tuple["FlatField | NullField | FlatRecordField | NestedRecordField | NestedUnionField", pa.DataType | None]


def decode_values_at(content: bytes, starts: _I64, ends: _I64, fields: list[ValueField]) -> list[pa.Array] | None:
    """Decode the Avro values ``content[starts[i]:ends[i]]`` field by field for all values at once.

    Returns one column per field that has an Arrow type (flat fields and flat records), or None
    when a value does not walk cleanly (a skipped field is not null, a record field is null, a
    length disagrees): the caller then decodes per record.
    """
    if len(content) > _MAX_CONTENT or len(starts) == 0:
        return None
    views = _Views.of(content)
    pos = starts.astype(np.int64, copy=True)
    try:
        parts: list[pa.Array | _Binary | list[pa.Array | _Binary]] = []
        for field, arrow_type in fields:
            if isinstance(field, NullField):
                if not (views.u8[pos] == 2 * field.null_branch).all():
                    return None
                pos = pos + 1
            elif isinstance(field, (NestedRecordField, NestedUnionField)):
                column, pos = _walk_nested(views, pos, field, field.type)
                parts.append(column)
            elif isinstance(field, FlatRecordField):
                if not (views.u8[pos] == 2 * (1 - field.null_branch)).all():
                    return None
                pos = pos + 1
                children: list[pa.Array | _Binary] = []
                for child, child_field in zip(field.fields, field.type, strict=True):
                    part, pos = _read_field(views, pos, child, child_field.type)
                    children.append(part)
                parts.append(children)
            else:
                assert arrow_type is not None
                part, pos = _read_field(views, pos, field, arrow_type)
                parts.append(part)
        if np.any(pos != ends):
            return None
        typed = [(f, t) for f, t in fields if t is not None]
        columns: list[pa.Array] = []
        for part, (field, arrow_type) in zip(parts, typed, strict=True):
            if isinstance(part, list):
                assert isinstance(field, FlatRecordField)
                kids = [
                    _binary_column(views, p, f.type) if isinstance(p, _Binary) else p
                    for p, f in zip(part, field.type, strict=True)
                ]
                columns.append(pa.StructArray.from_arrays(kids, fields=list(field.type)))
            else:
                assert arrow_type is not None
                columns.append(_binary_column(views, part, arrow_type) if isinstance(part, _Binary) else part)
    except (_DamagedError, IndexError):
        return None
    return columns


@dataclass(frozen=True)
class NestedRecordField:
    """A record, or a union of ``null`` and a record, whose fields may nest records and unions
    (a metadata-table payload such as ``HoodieMetadataColumnStats``): decoded to a struct."""

    null_branch: int | None
    fields: list[NestedNode]
    type: pa.StructType


@dataclass(frozen=True)
class NestedUnionField:
    """A union of records, maybe with ``null`` (Hudi's value wrappers), decoded to the
    ``member<i>`` struct of :mod:`hudi_framework.log.avro_unions`. A branch the walk cannot
    decode (None: an array wrapper) makes any value that takes it fall back to the reference decoder."""

    null_branch: int | None
    branches: list[NestedRecordField | None]  # the non-null branches, in union order
    type: pa.StructType


NestedNode = FlatField | NestedRecordField | NestedUnionField


def nested_value_field(avro_type: Any, arrow_type: pa.DataType, named: dict[str, Any]) -> NestedNode | None:
    """How the walk decodes a field of ``avro_type`` (named types resolved through ``named``) into
    the physical ``arrow_type``, or None when it has a shape the walk does not take."""
    if isinstance(avro_type, str) and avro_type in named:
        avro_type = named[avro_type]
    flat = flat_fields({"type": "record", "fields": [{"name": "f", "type": avro_type}]})
    if flat is not None:
        return flat[0]
    if not pa.types.is_struct(arrow_type):
        return None
    if isinstance(avro_type, dict):
        return _nested_record(avro_type, arrow_type, None, named)
    if not isinstance(avro_type, list) or avro_type.count("null") > 1:
        return None
    null_branch = avro_type.index("null") if "null" in avro_type else None
    others = [named.get(b, b) if isinstance(b, str) else b for b in avro_type if b != "null"]
    if len(others) == 1 and null_branch is not None:
        return _nested_record(others[0], arrow_type, null_branch, named)
    if len(others) != arrow_type.num_fields:
        return None
    branches = [_nested_record(b, arrow_type.field(i).type, None, named) for i, b in enumerate(others)]
    if not any(branches):
        return None
    return NestedUnionField(null_branch, branches, arrow_type)


def _nested_record(
    avro_type: Any, arrow_type: pa.DataType, null_branch: int | None, named: dict[str, Any]
) -> NestedRecordField | None:
    if not isinstance(avro_type, dict) or avro_type.get("type") != "record" or not pa.types.is_struct(arrow_type):
        return None
    fields = avro_type.get("fields") or []
    if [f["name"] for f in fields] != [f.name for f in arrow_type]:
        return None
    nodes: list[NestedNode] = []
    for f, arrow_field in zip(fields, arrow_type, strict=True):
        node = nested_value_field(f["type"], arrow_field.type, named)
        if node is None:
            return None
        nodes.append(node)
    return NestedRecordField(null_branch, nodes, arrow_type)


def _walk_nested(views: _Views, pos: _I64, node: NestedNode, t: pa.DataType) -> tuple[pa.Array, _I64]:
    """Read ``node`` at every position of ``pos`` (increasing, not empty): the column and the new positions."""
    if isinstance(node, FlatField):
        part, pos = _read_field(views, pos, node, t)
        return (_binary_column(views, part, t) if isinstance(part, _Binary) else part), pos
    if isinstance(node, NestedRecordField) and node.null_branch is None:
        children: list[pa.Array] = []
        for child, child_field in zip(node.fields, node.type, strict=True):
            column, pos = _walk_nested(views, pos, child, child_field.type)
            children.append(column)
        return pa.StructArray.from_arrays(children, fields=list(node.type)), pos
    tag = views.u8[pos]
    if np.any(tag & 0x81):  # a union index other than one canonical non-negative byte
        raise _DamagedError
    branch = (tag >> 1).astype(np.int64)
    pos = pos + 1
    if isinstance(node, NestedRecordField):
        if np.any(branch > 1):
            raise _DamagedError
        record = NestedRecordField(None, node.fields, node.type)
        return _spread_walk(views, pos, branch != node.null_branch, record)
    has_null = node.null_branch is not None
    if np.any(branch >= len(node.branches) + has_null):
        raise _DamagedError
    members: list[pa.Array] = []
    out = pos.copy()
    for i, record_node in enumerate(node.branches):
        rows = branch == (i + 1 if has_null and i >= (node.null_branch or 0) else i)
        if not rows.any():
            members.append(pa.nulls(len(pos), node.type.field(i).type))
            continue
        if record_node is None:
            raise _DamagedError
        member, moved = _spread_walk(views, pos, rows, record_node)
        out[rows] = moved[rows]
        members.append(member)
    valid = branch != node.null_branch if has_null else None
    mask = None if valid is None or valid.all() else pa.array(~valid)
    return pa.StructArray.from_arrays(members, fields=list(node.type), mask=mask), out


def _spread_walk(views: _Views, pos: _I64, rows: _Mask, node: NestedRecordField) -> tuple[pa.Array, _I64]:
    """``node`` read where ``rows`` holds, null elsewhere (whose positions do not move)."""
    if rows.all():
        return _walk_nested(views, pos, node, node.type)
    if not rows.any():
        return pa.nulls(len(pos), node.type), pos
    column, moved = _walk_nested(views, pos[rows], node, node.type)
    out = pos.copy()
    out[rows] = moved
    index = np.cumsum(rows, dtype=np.int64) - 1
    spread = pa.Array.from_buffers(pa.int64(), len(pos), [_bitmap(rows), pa.py_buffer(index)])
    return column.take(spread), out
