"""Columnar conversion between Arrow's logical types and the raw values of Avro binary encoding.

Log records are decoded and encoded by fastavro *without* logical types: dates are ``int`` days,
timestamps and times ``long``/``int`` counts, decimals two's complement ``fixed``/``bytes``. That
keeps every value exact (no ``datetime`` range limits, no decimal context rounding) and leaves the
type conversion to Arrow, one column at a time, instead of one Python object per value.

The logical Arrow schema is :func:`hudi_framework.model.schema.avro_to_arrow` of the writer schema;
the *physical* schema built here has the same shape with the raw Avro types at the leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous
from hudi_framework.errors import LogBlockEncodeError
from hudi_framework.model.schema import AVRO_PRIMITIVES, AvroSchema, avro_to_arrow

_DECIMAL_BYTES = 16  # decimal128


def strip_logical_types(schema: AvroSchema) -> AvroSchema:
    """A copy of ``schema`` without ``logicalType`` attributes (physical values only)."""

    def strip(node: Any) -> Any:
        if isinstance(node, list):
            return [strip(n) for n in node]
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "logicalType"}
        return node

    # Rebuilding every list and dict is the copy: the leaves of parsed JSON are immutable.
    stripped: AvroSchema = strip(schema)
    return stripped


class _Walker:
    """Walks an Avro schema, resolving named-type references in definition order."""

    def __init__(self) -> None:
        self.named: dict[str, Any] = {}

    def resolve(self, t: Any) -> Any:
        """The definition behind a type (follows names, unwraps ``["null", T]`` unions)."""
        if isinstance(t, list):
            non_null = [b for b in t if b != "null"]
            if len(non_null) != 1:
                # avro_to_arrow has already rejected such schemas; this is a defensive message.
                raise LogBlockEncodeError(f"union {t} with several non-null branches is not supported")
            return self.resolve(non_null[0])
        if isinstance(t, str):
            return self.named.get(t, t)
        if isinstance(t, dict):
            kind = t.get("type")
            if kind in ("record", "error", "fixed", "enum"):
                name = str(t["name"])
                namespace = t.get("namespace")
                full = f"{namespace}.{name}" if namespace and "." not in name else name
                self.named[full] = t
                self.named.setdefault(name, t)
            elif isinstance(kind, (str, list, dict)) and kind not in ("array", "map") and "logicalType" not in t:
                return self.resolve(kind)
        return t

    def learn(self, t: Any) -> None:
        """Note every named type defined inside ``t`` (a subtree whose values are not walked)."""
        if isinstance(t, list):
            for branch in t:
                self.learn(branch)
            return
        if not isinstance(t, dict):
            return
        self.resolve(t)
        kind = t.get("type")
        if kind in ("record", "error"):
            for f in t.get("fields") or ():
                self.learn(f.get("type"))
        elif kind == "array":
            self.learn(t.get("items"))
        elif kind == "map":
            self.learn(t.get("values"))
        elif isinstance(kind, (list, dict)):
            self.learn(kind)


def physical_schema(schema: AvroSchema) -> pa.Schema:
    """The Arrow schema of the raw (logical-type-free) values of records of ``schema``."""
    walker = _Walker()
    logical = avro_to_arrow(schema)
    return pa.schema(
        [
            pa.field(f["name"], _physical_type(walker, f["type"]), nullable=lf.nullable)
            for f, lf in zip(schema["fields"], logical, strict=True)
        ]
    )


def _physical_type(walker: _Walker, t: Any) -> pa.DataType:
    d = walker.resolve(t)
    if isinstance(d, str):
        return AVRO_PRIMITIVES[d]
    kind = d["type"]
    if kind in ("record", "error"):
        return pa.struct([pa.field(f["name"], _physical_type(walker, f["type"])) for f in d["fields"]])
    if kind == "array":
        return pa.list_(pa.field("element", _physical_type(walker, d["items"])))
    if kind == "map":
        return pa.map_(pa.string(), pa.field("value", _physical_type(walker, d["values"])))
    if kind == "fixed":
        return pa.binary(int(d["size"]))
    if kind == "enum":
        return pa.string()
    return AVRO_PRIMITIVES[kind]


# ------------------------------------------------------------------------ physical -> logical
def to_logical(table: pa.Table, schema: AvroSchema, logical: pa.Schema | None = None) -> pa.Table:
    """Convert a table of raw Avro values (:func:`physical_schema`) to ``avro_to_arrow(schema)``
    (``logical``, when the caller has it already)."""
    if logical is None:
        logical = avro_to_arrow(schema)
    walker = _Walker()
    columns = [
        _convert(walker, f["type"], contiguous(table.column(i)), lf.type, _leaf_to_logical)
        for i, (f, lf) in enumerate(zip(schema["fields"], logical, strict=True))
    ]
    return pa.Table.from_arrays(columns, schema=logical)


def to_physical(table: pa.Table, schema: AvroSchema) -> pa.Table:
    """Convert a table of ``avro_to_arrow(schema)`` to raw Avro values (:func:`physical_schema`)."""
    physical = physical_schema(schema)
    walker = _Walker()
    columns = [
        _convert(walker, f["type"], contiguous(table.column(i)), pf.type, _leaf_to_physical)
        for i, (f, pf) in enumerate(zip(schema["fields"], physical, strict=True))
    ]
    return pa.Table.from_arrays(columns, schema=physical)


_Leaf = Callable[[pa.Array, Any, pa.DataType], pa.Array]


def _convert(walker: _Walker, t: Any, arr: pa.Array, target: pa.DataType, leaf: _Leaf) -> pa.Array:
    """Rebuild ``arr`` with type ``target``, converting leaves with ``leaf``; containers recurse."""
    if arr.type == target or arr.null_count == len(arr):
        # No logical type below (every leaf would come back as it is), or nothing but nulls (the
        # unset members of a wrapper union): the values are not walked, named types still are.
        walker.learn(t)
        return arr if arr.type == target else pa.nulls(len(arr), target)
    d = walker.resolve(t)
    kind = d if isinstance(d, str) else d["type"]
    mask = arr.is_null() if arr.null_count else None
    if kind in ("record", "error"):
        children = arr.flatten()
        fields = list(target)
        converted = [
            _convert(walker, f["type"], child, field.type, leaf)
            for f, child, field in zip(d["fields"], children, fields, strict=True)
        ]
        return pa.StructArray.from_arrays(converted, fields=fields, mask=mask)
    if kind == "array":
        values = _convert(walker, d["items"], arr.values, target.value_type, leaf)
        return pa.ListArray.from_arrays(arr.offsets, values, type=target, mask=mask)
    if kind == "map":
        items = _convert(walker, d["values"], arr.items, target.item_type, leaf)
        return pa.MapArray.from_arrays(arr.offsets, arr.keys, items, type=target, mask=mask)
    return leaf(arr, d, target)


def _leaf_to_logical(arr: pa.Array, d: Any, target: pa.DataType) -> pa.Array:
    if pa.types.is_decimal(target):
        return _bytes_to_decimal(arr, target)
    if arr.type == target:
        return arr
    # date/int32, timestamp/int64, time/int32|int64: same width, so the cast is a relabel.
    return arr.cast(target)


def _leaf_to_physical(arr: pa.Array, d: Any, target: pa.DataType) -> pa.Array:
    if pa.types.is_decimal(arr.type):
        return _decimal_to_bytes(arr, target)
    if arr.type == target:
        return arr
    return arr.cast(target)


# ------------------------------------------------------------------------------------ decimals
def _bytes_to_decimal(arr: pa.Array, target: pa.DataType) -> pa.Array:
    """Big-endian two's complement (Avro decimal) to Arrow decimal, vectorised for ``fixed``."""
    if not pa.types.is_fixed_size_binary(arr.type):
        # Avro ``bytes`` decimals vary in width; Spark never writes them, so per value is fine.
        scale = target.scale
        return pa.array(
            [
                None if b is None else Decimal(f"{int.from_bytes(b, 'big', signed=True)}E-{scale}")
                for b in arr.to_pylist()
            ],
            type=target,
        )
    width = arr.type.byte_width
    n = len(arr)
    data = arr.buffers()[1]
    raw = np.frombuffer(data, dtype=np.uint8, count=(arr.offset + n) * width)[arr.offset * width :]
    raw = raw.reshape(n, width)
    if width > _DECIMAL_BYTES:
        extra = raw[:, : width - _DECIMAL_BYTES]
        sign = np.where(raw[:, width - _DECIMAL_BYTES] >= 0x80, 0xFF, 0)[:, None]
        if n and np.any(extra != sign):
            raise OverflowError(f"a decimal of {width} bytes does not fit in {target}")
        raw = raw[:, width - _DECIMAL_BYTES :]
        width = _DECIMAL_BYTES
    wide = np.empty((n, _DECIMAL_BYTES), dtype=np.uint8)
    wide[:, : _DECIMAL_BYTES - width] = np.where(raw[:, :1] >= 0x80, 0xFF, 0)
    wide[:, _DECIMAL_BYTES - width :] = raw
    little = np.ascontiguousarray(wide[:, ::-1])  # Arrow stores decimal128 little-endian
    validity = _validity(arr)
    return pa.Array.from_buffers(target, n, [validity, pa.py_buffer(little.tobytes())], null_count=arr.null_count)


def _decimal_to_bytes(arr: pa.Array, target: pa.DataType) -> pa.Array:
    """Arrow decimal to big-endian two's complement: ``fixed`` of the schema's size, or minimal ``bytes``."""
    if pa.types.is_decimal256(arr.type):
        raise LogBlockEncodeError(f"decimal256 values are not supported in log blocks ({arr.type})")
    n = len(arr)
    raw = np.frombuffer(arr.buffers()[1], dtype=np.uint8, count=(arr.offset + n) * _DECIMAL_BYTES)
    big = raw[arr.offset * _DECIMAL_BYTES :].reshape(n, _DECIMAL_BYTES)[:, ::-1]
    if not pa.types.is_fixed_size_binary(target):
        return pa.array(
            [
                None if v is None else _minimal_twos_complement(int.from_bytes(v, "big", signed=True))
                for v in _rows(big, arr)
            ],
            type=target,
        )
    width = target.byte_width
    if width < _DECIMAL_BYTES:
        # Dropped bytes must be pure sign extension of the kept top byte, or the value does not fit.
        sign = np.where(big[:, _DECIMAL_BYTES - width] >= 0x80, 0xFF, 0)[:, None]
        valid = ~np.asarray(arr.is_null().to_numpy(zero_copy_only=False), dtype=bool)
        if np.any((big[:, : _DECIMAL_BYTES - width] != sign).any(axis=1) & valid):
            raise LogBlockEncodeError(f"a {arr.type} value does not fit in an Avro fixed of {width} bytes")
        out = big[:, _DECIMAL_BYTES - width :]
    else:
        pad = np.where(big[:, :1] >= 0x80, 0xFF, 0).astype(np.uint8)
        out = np.concatenate([np.repeat(pad, width - _DECIMAL_BYTES, axis=1), big], axis=1)
    data = np.ascontiguousarray(out).tobytes()
    return pa.Array.from_buffers(target, n, [_validity(arr), pa.py_buffer(data)], null_count=arr.null_count)


def _rows(big: np.ndarray[Any, Any], arr: pa.Array) -> list[bytes | None]:
    nulls = arr.is_null().to_pylist()
    return [None if nulls[i] else bytes(big[i]) for i in range(len(arr))]


def _minimal_twos_complement(value: int) -> bytes:
    """Java ``BigInteger.toByteArray``: the shortest big-endian two's complement keeping the sign."""
    bits = value.bit_length() if value >= 0 else (~value).bit_length()
    return value.to_bytes(bits // 8 + 1, "big", signed=True)


def _validity(arr: pa.Array) -> pa.Buffer | None:
    """A validity bitmap for ``arr`` starting at bit 0 (``arr`` may be a slice)."""
    if not arr.null_count:
        return None
    valid = pc.invert(arr.is_null())
    return valid.buffers()[1] if valid.offset == 0 else pa.concat_arrays([valid]).buffers()[1]
