"""Key values as text, exactly as Apache Hudi renders them (``HoodieAvroUtils.getNestedFieldValAsString``).

Java renders an Avro value with ``String.valueOf`` after ``convertValueForSpecificDataTypes``:

* strings as they are; booleans ``true``/``false``; ints and longs in decimal;
* floats and doubles with ``Float.toString`` / ``Double.toString`` (``1.0``, ``1.0E10``, ``1.4E-45``);
* decimals with ``BigDecimal.toString`` (``12345.67890``, ``1E-7``): Arrow's decimal cast spells the same;
* dates (Avro ``date``) as ``LocalDate.toString`` (``2023-04-01``);
* timestamps as the raw Avro long (micros for ``timestamp-micros``, millis for ``timestamp-millis``),
  or, with ``consistent_logical_timestamp``, as ``java.sql.Timestamp.toString`` (``2023-04-01 12:01:00.0``)
  in the JVM zone, which this project fixes to UTC;
* times (``time-millis``/``time-micros``) as the raw number.

Arrow types map to Avro types as the writer maps them (``hudi_framework.model.schema``): timestamps in
``s``/``ms`` become ``timestamp-millis``, in ``us``/``ns`` ``timestamp-micros``; a timestamp without a
time zone is ``local-timestamp-*``, which Java never converts, so it always renders as the raw long.
Binary, fixed, list, map and struct values are refused: Java would print object identities for them.

Everything runs in Arrow kernels, except floats, which are rendered once per distinct value.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Context, Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.errors import KeyFieldError

# Java's Float/Double.toString switch to computerized scientific notation outside [1e-3, 1e7).
_PLAIN_MIN_EXP = -3
_PLAIN_MAX_EXP = 7
_TWO_DIGITS = Context(prec=2, rounding=ROUND_HALF_EVEN)


def render_column(column: pa.Array, field: str, *, consistent_logical_timestamp: bool = False) -> pa.Array:
    """Render one key field's values as Java would; nulls stay null.

    Args:
        column: The field's values (any length, dictionary-encoded or not).
        field: The field name, for error messages.
        consistent_logical_timestamp: Render zoned timestamps as ``java.sql.Timestamp`` text.

    Returns:
        A ``string`` array of the same length.

    Raises:
        KeyFieldError: The type has no faithful key rendering.
    """
    typ = column.type
    if pa.types.is_dictionary(typ):
        # Render each distinct value once, then gather the rows.
        rendered = render_column(column.dictionary, field, consistent_logical_timestamp=consistent_logical_timestamp)
        return pc.take(rendered, column.indices)
    if pa.types.is_null(typ):
        return pa.nulls(len(column), pa.string())
    if pa.types.is_string(typ):
        return column
    if (
        pa.types.is_large_string(typ)
        or pa.types.is_string_view(typ)
        or pa.types.is_boolean(typ)
        or pa.types.is_integer(typ)
        or pa.types.is_decimal(typ)
        or pa.types.is_date32(typ)
    ):
        return pc.cast(column, pa.string())
    if pa.types.is_date64(typ):
        return pc.cast(pc.cast(column, pa.date32()), pa.string())
    if pa.types.is_floating(typ):
        single = not pa.types.is_float64(typ)
        return _per_distinct(column, lambda v: java_float_text(v, single=single))
    if pa.types.is_timestamp(typ):
        if consistent_logical_timestamp and typ.tz is not None:
            return java_timestamp_text(avro_millis(column))
        return pc.cast(avro_long(column), pa.string())
    if pa.types.is_time(typ):
        return pc.cast(avro_long(column), pa.string())
    raise KeyFieldError(field, f"values of type {typ} cannot make record keys or partition paths")


def avro_long(column: pa.Array) -> pa.Array:
    """The number Java sees for a temporal column: the Avro ``long``/``int`` the writer stores.

    Timestamps: epoch millis (``s``/``ms`` columns) or micros (``us``/``ns``, nanos truncated toward
    zero as a Java long division would). Times: millis of the day (``time32``) or micros (``time64``).
    """
    typ = column.type
    if pa.types.is_timestamp(typ) or pa.types.is_time(typ):
        # time32 casts only to int32; every other temporal type to int64.
        raw = pc.cast(pc.cast(column, pa.int32() if typ.bit_width == 32 else pa.int64()), pa.int64())
        if typ.unit == "s":
            return pc.multiply(raw, 1000)
        if typ.unit == "ns":
            return pc.divide(raw, 1000)  # int64 division truncates toward zero, like Java
        return raw
    raise TypeError(f"not a temporal type: {typ}")


def avro_millis(column: pa.Array) -> pa.Array:
    """Epoch millis of a timestamp column, as ``new java.sql.Timestamp(micros / 1000)`` gets them."""
    raw = avro_long(column)
    if column.type.unit in ("us", "ns"):
        return pc.divide(raw, 1000)
    return raw


def java_timestamp_text(millis: pa.Array) -> pa.Array:
    """``java.sql.Timestamp.toString()`` in UTC: ``yyyy-MM-dd HH:mm:ss.f`` (fraction without trailing zeros)."""
    ts = pc.cast(millis, pa.timestamp("ms"))
    seconds = pc.cast(pc.floor_temporal(ts, unit="second"), pa.timestamp("s"))
    base = pc.strftime(seconds, format="%Y-%m-%d %H:%M:%S")
    ms = pc.millisecond(ts)
    frac = pc.utf8_rtrim(pc.utf8_lpad(pc.cast(ms, pa.string()), width=3, padding="0"), characters="0")
    frac = pc.if_else(pc.equal(ms, 0), pa.scalar("0"), frac)
    return pc.binary_join_element_wise(base, frac, ".")


def _per_distinct(column: pa.Array, render: Callable[[float], str]) -> pa.Array:
    """Apply a Python renderer to each distinct value once, then gather the rows."""
    encoded = pc.dictionary_encode(column)
    texts = [None if v is None else render(v) for v in encoded.dictionary.to_pylist()]
    return pc.take(pa.array(texts, pa.string()), encoded.indices)


def java_float_text(value: float, *, single: bool) -> str:
    """``Float.toString`` (``single``) or ``Double.toString`` as Java 19+ spells them.

    The digits are the shortest that round-trip (when only one digit would do, Java picks the closest
    decimal with one or two digits, hence ``4.9E-324``); Java 8-18 differ from this for a few values.
    """
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    number = np.float32(value) if single else np.float64(value)
    shortest = Decimal(np.format_float_scientific(number, unique=True))
    digits, exponent = _digits(shortest)
    if len(digits) == 1:
        closest = _TWO_DIGITS.plus(Decimal(float(number)))
        back = np.float32(float(closest)) if single else float(closest)
        if back == number:
            digits, exponent = _digits(closest)
    sign = "-" if value < 0 else ""
    if _PLAIN_MIN_EXP <= exponent < _PLAIN_MAX_EXP:
        if exponent >= 0:
            whole = digits[: exponent + 1].ljust(exponent + 1, "0")
            return f"{sign}{whole}.{digits[exponent + 1 :] or '0'}"
        return f"{sign}0.{'0' * (-exponent - 1)}{digits}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _digits(number: Decimal) -> tuple[str, int]:
    """Significant digits without trailing zeros, and the exponent of the first digit."""
    text = "".join(str(d) for d in number.as_tuple().digits).rstrip("0") or "0"
    return text, number.adjusted()
