"""Conform Arrow data read from a base file to the read schema.

Base files of one table differ from the table schema, and from each other, in ways Apache Hudi's
readers tolerate:

* list layout: Java's Avro writer stores 2-level lists (child named ``array``, non-null), Spark's row
  writer 3-level lists (``element``); map entries and struct children are named by the writer too;
* schema evolution: columns or nested fields added later are missing from older files (read as null),
  and types are promoted (``int`` to ``long``, ``long`` to ``string``...);
* physical types: timestamps in milliseconds, ``large_string``, dictionary-encoded columns.

Everything runs on whole arrays (pyarrow kernels); nested values are rebuilt from their children and
offsets, never row by row.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous
from hudi_framework.errors import ReadError
from hudi_framework.model.java_text import java_float_text

_CAST_ERRORS = (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError)


def _cast_options(target: pa.DataType) -> pc.CastOptions:
    # Sub-microsecond digits (INT96 nanoseconds) are dropped as Spark does; everything else must be exact.
    return pc.CastOptions(target_type=target, allow_time_truncate=True)


def conform_array(values: pa.Array | pa.ChunkedArray, target: pa.DataType, *, name: str = "") -> pa.Array:
    """``values`` as an array of exactly ``target``.

    Args:
        values: Data as read.
        target: The type to produce.
        name: Column path for error messages.

    Raises:
        ReadError: The data cannot be converted (an incompatible type change).
    """
    if isinstance(values, pa.ChunkedArray):
        values = contiguous(values)
    if values.type == target:
        return values
    if pa.types.is_dictionary(values.type):
        return conform_array(_decoded(values), target, name=name)
    if pa.types.is_null(values.type):
        return pa.nulls(len(values), target)
    source = values.type
    if pa.types.is_struct(target) and pa.types.is_struct(source):
        return _conform_struct(values, target, name)
    if pa.types.is_list(target) and _is_list(source):
        return _conform_list(values, target, name)
    if pa.types.is_map(target) and pa.types.is_map(source):
        return _conform_map(values, target, name)
    if pa.types.is_floating(source) and (pa.types.is_string(target) or pa.types.is_large_string(target)):
        # A column widened from float/double to string (schema evolution): Java's text, as Apache Hudi's
        # readers give it (Float/Double.toString: 1.0, 1.0E7), not Arrow's (1, 1e+07).
        return java_float_text(values).cast(target)
    try:
        return pc.cast(values, options=_cast_options(target))
    except _CAST_ERRORS as e:
        raise ReadError(f"column {name or '?'}: cannot read {source} as {target}: {e}") from e


def _decoded(values: pa.DictionaryArray) -> pa.Array:
    """A dictionary array's values; one value without nulls (a file's name, partition, commit time)
    is repeated, a third of the cost of taking it row by row."""
    if len(values.dictionary) == 1 and not values.null_count:
        return pa.repeat(values.dictionary[0], len(values))
    return values.dictionary_decode()


def _is_list(typ: pa.DataType) -> bool:
    return bool(pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ))


def _validity(values: pa.Array) -> pa.Array | None:
    return pc.is_null(values) if values.null_count else None


def _conform_struct(values: pa.StructArray, target: pa.StructType, name: str) -> pa.Array:
    # flatten() applies the array's offset (field() does not), so children line up with the rows.
    children = dict(zip([f.name for f in values.type], values.flatten(), strict=True))
    arrays = []
    for field in target:
        child = children.get(field.name)
        path = f"{name}.{field.name}" if name else field.name
        # A nested field added by schema evolution is missing from older files: null there.
        arrays.append(
            pa.nulls(len(values), field.type) if child is None else conform_array(child, field.type, name=path)
        )
    return pa.StructArray.from_arrays(arrays, fields=list(target), mask=_validity(values))


def _rebased(values: pa.Array) -> tuple[pa.Array, int, int]:
    """Offsets of a (possibly sliced) list or map array starting at 0, and the child range they cover.

    ``from_arrays`` refuses a sliced offsets array together with a null mask, and rebasing also keeps
    the child conversion to the rows actually referenced.
    """
    offsets = values.offsets
    if pa.types.is_large_list(values.type):
        offsets = offsets.cast(pa.int32())
    if not len(values):
        return pa.array([0], pa.int32()), 0, 0
    start, stop = offsets[0].as_py(), offsets[-1].as_py()
    return pc.subtract(offsets, pa.scalar(start, pa.int32())), start, stop


def _conform_list(values: pa.Array, target: pa.ListType, name: str) -> pa.Array:
    if pa.types.is_fixed_size_list(values.type):
        values = values.cast(pa.list_(values.type.value_field))
    offsets, start, stop = _rebased(values)
    items = conform_array(values.values.slice(start, stop - start), target.value_type, name=f"{name}[]")
    return pa.ListArray.from_arrays(offsets, items, type=target, mask=_validity(values))


def _conform_map(values: pa.MapArray, target: pa.MapType, name: str) -> pa.Array:
    offsets, start, stop = _rebased(values)
    keys = conform_array(values.keys.slice(start, stop - start), target.key_type, name=f"{name}.key")
    items = conform_array(values.items.slice(start, stop - start), target.item_type, name=f"{name}.value")
    return pa.MapArray.from_arrays(offsets, keys, items, type=target, mask=_validity(values))


def constant_array(value: str | None, target: pa.DataType, length: int, *, name: str) -> pa.Array:
    """A column of ``length`` copies of a partition value parsed from the path, as ``target``.

    Raises:
        ReadError: The path value does not parse as ``target``.
    """
    if value is None:
        return pa.nulls(length, target)
    try:
        scalar = pa.scalar(value, pa.string()).cast(target)
    except _CAST_ERRORS as e:
        raise ReadError(f"partition column {name}: path value {value!r} does not parse as {target}") from e
    return pa.repeat(scalar, length)
