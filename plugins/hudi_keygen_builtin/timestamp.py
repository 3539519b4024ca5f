"""Timestamp-based partition values (Java ``TimestampBasedAvroKeyGenerator.getPartitionPath``).

A value becomes an instant, then text in the output pattern and zone:

* numbers (ints, longs, floats and decimals truncated toward zero, dates as epoch days, timestamps
  and times as their raw Avro long) are counts of the time unit of the timestamp type:
  ``UNIX_TIMESTAMP`` seconds, ``EPOCHMILLISECONDS``, ``EPOCHMICROSECONDS``, or ``SCALAR`` in
  ``scalar_time_unit``; with ``consistent_logical_timestamp`` a zoned timestamp is its instant;
* strings are parsed with the input patterns (``DATE_STRING``/``MIXED`` only);
* null becomes ``1`` of the unit, or for strings the instant 1 ms after the epoch printed with the
  first input pattern, as Java substitutes before formatting.

Output zone: ``output_timezone`` (or ``timezone``) when set; else, for strings, the input zone when
set, or the offset parsed from the string; else UTC (Java: the JVM default zone).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.keygen import TimestampKeyGenOptions, TimeUnit
from hudi_framework.errors import InvalidPartitionValueError, KeyFieldError
from hudi_framework.vocabulary import TimestampType
from hudi_keygen_builtin.joda_format import OutputFormat
from hudi_keygen_builtin.joda_parse import InputParser
from hudi_keygen_builtin.render import avro_long, avro_millis
from hudi_keygen_builtin.zones import UTC, arrow_zone

_KEY = "hoodie.keygen.timebased."
_UNIT_OF_TYPE = {
    TimestampType.UNIX_TIMESTAMP: TimeUnit.SECONDS,
    TimestampType.EPOCHMILLISECONDS: TimeUnit.MILLISECONDS,
    TimestampType.EPOCHMICROSECONDS: TimeUnit.MICROSECONDS,
}
# Java TimeUnit.MILLISECONDS.convert: finer units divide (truncating), coarser ones multiply.
_DIVIDE = {TimeUnit.NANOSECONDS: 1_000_000, TimeUnit.MICROSECONDS: 1000, TimeUnit.MILLISECONDS: 1}
_MULTIPLY = {TimeUnit.SECONDS: 1000, TimeUnit.MINUTES: 60_000, TimeUnit.HOURS: 3_600_000, TimeUnit.DAYS: 86_400_000}


class TimestampFormatter:
    """Formats one partition column's values as timestamp partition values."""

    def __init__(self, options: TimestampKeyGenOptions, *, consistent_logical_timestamp: bool = False) -> None:
        """Resolve zones and compile the patterns.

        Raises:
            InvalidConfigValueError: A pattern or time zone is not supported.
        """
        self.options = options
        self._consistent = consistent_logical_timestamp
        kind = options.timestamp_type
        self._unit: TimeUnit | None = (
            options.scalar_time_unit if kind is TimestampType.SCALAR else _UNIT_OF_TYPE.get(kind)
        )
        self._output = OutputFormat(options.output_date_format, key=f"{_KEY}output.dateformat")
        in_tz, out_tz = options.effective_input_timezone, options.effective_output_timezone
        in_key = f"{_KEY}timezone" if options.timezone is not None else f"{_KEY}input.timezone"
        out_key = f"{_KEY}timezone" if options.timezone is not None else f"{_KEY}output.timezone"
        self._in_zone = arrow_zone(in_tz, key=in_key) if in_tz is not None else None
        self._out_zone = arrow_zone(out_tz, key=out_key) if out_tz is not None else None
        self._parser: InputParser | None = None
        if kind in (TimestampType.DATE_STRING, TimestampType.MIXED):
            self._parser = InputParser(options.input_date_formats, key=f"{_KEY}input.dateformat")

    def format(self, column: pa.Array, field: str) -> pa.Array:
        """Partition values (before escaping and hive prefix) for every row.

        Raises:
            KeyFieldError: The column's type does not fit the timestamp type.
            InvalidPartitionValueError: A value cannot be parsed or converted.
        """
        if pa.types.is_dictionary(column.type):
            values = pc.take(self._format_values(column.dictionary, field), column.indices)
        else:
            values = self._format_values(column, field)
        if values.null_count == 0:
            return values
        return pc.fill_null(values, self._default_text(field))

    def _default_text(self, field: str) -> str:
        """What Java writes for a null partition value."""
        if self._parser is None:
            default = pa.array([1], pa.int64())
        else:
            # new DateTime(1L, zone).toString(firstInputFormat), then parsed like any string.
            zone = self._in_zone or self._out_zone or UTC
            first = OutputFormat(self._parser.first_pattern, key=f"{_KEY}input.dateformat")
            default = first.format(pa.array([1], pa.int64()), zone=zone)
        text: str = self._format_values(default, field)[0].as_py()
        return text

    def _format_values(self, values: pa.Array, field: str) -> pa.Array:
        """Non-null values formatted; null stays null."""
        typ = values.type
        if pa.types.is_string(typ) or pa.types.is_large_string(typ) or pa.types.is_string_view(typ):
            if self._parser is None:
                raise KeyFieldError(
                    field,
                    f"string values need timestamp type DATE_STRING or MIXED with an input date format, "
                    f"not {self.options.timestamp_type.value} (Java: missing input formatter)",
                )
            instants, offsets = self._parser.parse(pc.cast(values, pa.string()), zone=self._in_zone or UTC, field=field)
            if self._out_zone is not None or self._in_zone is not None:
                return self._output.format(instants, zone=self._out_zone or self._in_zone, field=field)
            return self._output.format(instants, offsets=pc.fill_null(offsets, 0), field=field)
        if self._consistent and pa.types.is_timestamp(typ) and typ.tz is not None:
            # Java: a java.sql.Timestamp is its own instant, whatever the unit.
            return self._output.format(avro_millis(values), zone=self._out_zone or UTC, field=field)
        if self._unit is None:
            raise KeyFieldError(
                field,
                f"{typ} values need a numeric timestamp type (UNIX_TIMESTAMP, EPOCHMILLISECONDS, "
                f"EPOCHMICROSECONDS or SCALAR), not {self.options.timestamp_type.value}",
            )
        millis = _to_millis(_as_long(values, field), self._unit, field)
        return self._output.format(millis, zone=self._out_zone or UTC, field=field)


def _as_long(values: pa.Array, field: str) -> pa.Array:
    """The ``long`` Java's ``convertLongTimeToMillis`` receives for a value of this type."""
    typ = values.type
    if pa.types.is_integer(typ):
        return pc.cast(values, pa.int64())
    if pa.types.is_floating(typ):
        # Double.longValue(): truncate toward zero, NaN is 0.
        as_double = pc.cast(values, pa.float64())
        truncated = pc.if_else(pc.is_nan(as_double), 0.0, pc.trunc(as_double))
        return _checked_cast(truncated, field)
    if pa.types.is_decimal(typ):
        # BigDecimal.longValue(): drop the fraction.
        return _checked_cast(pc.cast(pc.trunc(values), pa.decimal128(38, 0), safe=False), field)
    if pa.types.is_date32(typ):
        return pc.cast(pc.cast(values, pa.int32()), pa.int64())
    if pa.types.is_date64(typ):
        return pc.cast(pc.cast(pc.cast(values, pa.date32()), pa.int32()), pa.int64())
    if pa.types.is_timestamp(typ) or pa.types.is_time(typ):
        return avro_long(values)
    raise KeyFieldError(field, f"values of type {typ} cannot be timestamp partition values")


def _checked_cast(values: pa.Array, field: str) -> pa.Array:
    try:
        return pc.cast(values, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise InvalidPartitionValueError(field, "<number>", f"does not fit a Java long: {e}") from e


def _to_millis(values: pa.Array, unit: TimeUnit, field: str) -> pa.Array:
    if unit in _DIVIDE:
        return pc.divide(values, _DIVIDE[unit]) if _DIVIDE[unit] != 1 else values
    try:
        return pc.multiply_checked(values, _MULTIPLY[unit])
    except pa.ArrowInvalid as e:
        # Java saturates at Long.MAX_VALUE; a partition in year 292278994 is never what was meant.
        raise InvalidPartitionValueError(field, "<number>", f"overflows milliseconds in {unit.value}") from e
