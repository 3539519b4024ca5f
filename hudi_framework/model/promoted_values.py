"""Incoming columns as values of the table's types, converted as Apache Hudi promotes them.

:func:`hudi_framework.model.promotion.fit` decides from the types whether a column goes into the
table's column; this module converts the values of an accepted one, column-wise, the way
``HoodieAvroUtils.rewritePrimaryTypeWithDiffSchemaType`` rewrites them one by one:

* another Arrow representation of the same Avro type: a cast (a timestamp or time with digits
  below the unit Avro keeps fails the write rather than losing them);
* int and long into long, float, double: the numeric conversion (long into float rounds);
* numbers into string: Java's ``toString`` (``1.0E7`` for a double of 10^7, see ``java_text``);
  float into double through that text (a float of 1.1 is the double 1.1, not 1.100000023841858);
* numbers and text into decimal: ``new BigDecimal(text).setScale(scale, HALF_UP)``;
* decimal into a wider decimal, decimal and date into text, text and bytes into each other (UTF-8),
  text ``yyyy-[m]m-[d]d`` into date (``java.sql.Date.valueOf``, lenient days as Java).

A value with no counterpart in an accepted type (text that is no number, a number beyond the
decimal's precision, NaN, a null in a required column) fails the write, as it does in Hudi.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import ColumnValueError
from hudi_framework.model.java_text import java_float_text
from hudi_framework.model.promotion import AvroLeaf, avro_leaf
from hudi_framework.model.schema import AVRO_PRIMITIVES

__all__ = ["promote_column"]

Convert = Callable[[pa.Array, pa.DataType], pa.Array]

#: java.sql.Date.valueOf's text: four-digit year, one- or two-digit month and day.
_DATE = r"^(?P<year>\d{4})-(?P<month>\d{1,2})-(?P<day>\d{1,2})$"


def promote_column(values: pa.ChunkedArray, field: pa.Field, column: str) -> pa.ChunkedArray:
    """``values`` as the table ``field``'s type; the types were accepted by ``fit``.

    Raises:
        ColumnValueError: A value has no counterpart in the table's type, or a null goes into a
            required field.
    """
    if values.type == field.type and (field.nullable or not values.null_count):
        return values
    out = pa.chunked_array([_convert(chunk, field.type, column) for chunk in values.chunks], field.type)
    if not field.nullable and out.null_count:
        raise _null_error(column, values.type, field.type)
    return out


def _null_error(column: str, incoming: pa.DataType, table: pa.DataType) -> ColumnValueError:
    return ColumnValueError(
        column,
        str(incoming),
        str(table),
        None,
        "holds a null but the table's column is required; Apache Hudi would make it nullable "
        "(schema evolution), which is not supported yet",
    )


def _convert(values: pa.Array, target: pa.DataType, column: str) -> pa.Array:
    if values.type == target:
        return values
    if pa.types.is_dictionary(values.type):
        return _convert(values.dictionary_decode(), target, column)
    if pa.types.is_null(values.type):
        return pa.nulls(len(values), target)
    if pa.types.is_struct(target):
        return _struct(values, target, column)
    if pa.types.is_map(target):
        return _map(values, target, column)
    if pa.types.is_list(target):
        return _list(values, target, column)
    return _leaf(values, target, column)


def _struct(values: pa.StructArray, target: pa.StructType, column: str) -> pa.Array:
    valid = values.is_valid()
    children = []
    for f in target:
        child = _convert(values.field(f.name), f.type, f"{column}.{f.name}")
        if not f.nullable and pc.any(pc.and_(valid, child.is_null())).as_py():
            raise _null_error(f"{column}.{f.name}", values.type.field(f.name).type, f.type)
        children.append(child)
    return pa.StructArray.from_arrays(children, fields=list(target), mask=_null_mask(values))


def _null_mask(values: pa.Array) -> pa.Array | None:
    return values.is_null() if values.null_count else None


def _offsets(values: pa.Array) -> pa.Array:
    """int32 offsets of the lists in ``values`` once flattened (a null list is empty)."""
    lengths = pc.fill_null(pc.list_value_length(values), 0).to_numpy(zero_copy_only=False)
    return pa.array(np.concatenate([[0], np.cumsum(lengths)]), pa.int32())


def _list(values: pa.Array, target: pa.ListType, column: str) -> pa.Array:
    element = target.value_field
    items = _convert(values.flatten(), element.type, f"{column}.element")
    if not element.nullable and items.null_count:
        raise _null_error(f"{column}.element", values.type.value_type, element.type)
    return pa.ListArray.from_arrays(_offsets(values), items, type=target, mask=_null_mask(values))


def _map(values: pa.MapArray, target: pa.MapType, column: str) -> pa.Array:
    entries_type = pa.list_(pa.struct([("key", values.type.key_type), ("value", values.type.item_type)]))
    as_lists = values.cast(entries_type)  # MapArray.keys and .items ignore slicing
    entries = as_lists.flatten()
    keys = _convert(entries.field(0), target.key_type, f"{column}.key")
    items = _convert(entries.field(1), target.item_type, f"{column}.value")
    if not target.item_field.nullable and items.null_count:
        raise _null_error(f"{column}.value", values.type.item_type, target.item_type)
    return pa.MapArray.from_arrays(_offsets(as_lists), keys, items, type=target, mask=_null_mask(values))


# ------------------------------------------------------------------------------------ leaves
def _leaf(values: pa.Array, target: pa.DataType, column: str) -> pa.Array:
    source, dest = avro_leaf(values.type), avro_leaf(target)
    if source == dest:
        return _same(values, target, column)
    incoming = values.type
    values = _same(values, _canonical(source), column)  # int8 as int32, float16 as float32, large_string as string...
    if dest.kind == "decimal":
        return _to_decimal(values, target, column, incoming)
    if dest.kind == "date":
        return _text_to_date(values, target, column, incoming)
    if source.kind in ("float", "double"):
        text = java_float_text(values)
        return text if dest.kind == "string" else text.cast(target)
    if source.kind == "bytes":
        return _bytes_to_text(values, target)
    # Integers into long, float, double (Java's widening, rounding into float) or text; decimal
    # into a wider decimal; decimals and dates into text; text into bytes (UTF-8).
    return pc.cast(values, options=pc.CastOptions(target, allow_float_truncate=True))


def _canonical(leaf: AvroLeaf) -> pa.DataType:
    """The Arrow type a promotion converts from; other representations are cast to it first."""
    if leaf.kind == "decimal":
        return pa.decimal128(leaf.precision, leaf.scale)
    if leaf.kind == "date":
        return pa.date32()
    return AVRO_PRIMITIVES[leaf.kind]


def _same(values: pa.Array, target: pa.DataType, column: str) -> pa.Array:
    """Another Arrow representation of the same Avro type.

    Raises:
        ColumnValueError: A value would lose digits: nanoseconds in a microsecond column (Avro and
            Spark stop at microseconds), which a write refuses rather than drops.
    """
    if values.type == target:
        return values
    try:
        return pc.cast(values, target)
    except pa.ArrowInvalid:
        raise ColumnValueError(
            column, str(values.type), str(target), None, f"has values with digits {target} cannot hold"
        ) from None


def _to_decimal(values: pa.Array, target: pa.Decimal128Type, column: str, incoming: pa.DataType) -> pa.Array:
    kind = avro_leaf(values.type).kind
    if kind == "decimal":
        return values.cast(target)  # a wider decimal: exact
    text = java_float_text(values) if kind in ("float", "double") else values.cast(pa.string())

    def convert(part: pa.Array, t: pa.DataType) -> pa.Array:
        # BigDecimal(text).setScale(scale, HALF_UP): only the first dropped digit decides the
        # rounding, so keep one more digit (truncating the rest) and round that one away.
        wide = part.cast(pa.decimal256(76, t.scale + 1), safe=False)
        return pc.round(wide, ndigits=t.scale, round_mode="half_towards_infinity").cast(t)

    return _checked(text, target, convert, column, incoming, "is not a number that fits")


def _checked(
    text: pa.Array, target: pa.DataType, convert: Convert, column: str, incoming: pa.DataType, what: str
) -> pa.Array:
    """``convert(text, target)``; on failure, the first value that fails names the error."""
    try:
        return convert(text, target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        pass
    lo, hi = 0, len(text)
    while hi - lo > 1:  # the values convert one by one: halve to the first that fails
        mid = (lo + hi) // 2
        try:
            convert(text.slice(lo, mid - lo), target)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            hi = mid
        else:
            lo = mid
    value = text[lo].as_py()
    raise ColumnValueError(column, str(incoming), str(target), value, f"value {value!r} {what} {target}")


def _text_to_date(values: pa.Array, target: pa.DataType, column: str, incoming: pa.DataType) -> pa.Array:
    year, month_text, day_text = pc.extract_regex(values, _DATE).flatten()  # null where no match
    month, day = pc.cast(month_text, pa.int32()), pc.cast(day_text, pa.int32())
    months_ok = pc.and_(pc.greater_equal(month, 1), pc.less_equal(month, 12))
    days_ok = pc.and_(pc.greater_equal(day, 1), pc.less_equal(day, 31))
    bad = pc.and_(values.is_valid(), pc.invert(pc.fill_null(pc.and_(months_ok, days_ok), False)))
    if pc.any(bad).as_py():
        value = values[pc.index(bad, True).as_py()].as_py()
        reason = f"value {value!r} is no date yyyy-[m]m-[d]d"
        raise ColumnValueError(column, str(incoming), str(target), value, reason)
    # Java's calendar is lenient: day 31 of a 30-day month is the next month's first.
    first = pc.binary_join_element_wise(year, pc.utf8_lpad(month_text, 2, "0"), "01", "-")
    days = pc.add(pc.cast(pc.cast(first, pa.date32()), pa.int32()), pc.subtract(day, pa.scalar(1, pa.int32())))
    return pc.cast(pc.cast(days, pa.int32()), pa.date32()).cast(target)


def _bytes_to_text(values: pa.Array, target: pa.DataType) -> pa.Array:
    try:
        return values.cast(target)
    except pa.ArrowInvalid:
        # Java decodes malformed UTF-8 as U+FFFD where Arrow refuses it; only then value by value.
        return pa.array([v if v is None else v.decode("utf-8", "replace") for v in values.to_pylist()], target)
