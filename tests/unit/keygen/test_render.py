"""Key values rendered as Java renders Avro values (``String.valueOf`` after logical-type conversion)."""

from __future__ import annotations

import datetime as dt
import math
import struct
from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.errors import KeyFieldError
from hudi_keygen_builtin.render import java_float_text, render_column

UTC = dt.UTC


def render(values: pa.Array, *, consistent: bool = False) -> list[str | None]:
    return render_column(values, "f", consistent_logical_timestamp=consistent).to_pylist()


@pytest.mark.parametrize(
    ("array", "expected"),
    [
        (pa.array([1, -2, None], pa.int8()), ["1", "-2", None]),
        (pa.array([2**63 - 1], pa.int64()), ["9223372036854775807"]),
        (pa.array([2**64 - 1], pa.uint64()), ["18446744073709551615"]),
        (pa.array([True, False]), ["true", "false"]),
        (pa.array(["a", ""], pa.large_string()), ["a", ""]),
        (pa.array([dt.date(2023, 4, 1), dt.date(1, 1, 1)]), ["2023-04-01", "0001-01-01"]),
        (pa.array([dt.date(2023, 4, 1)], pa.date64()), ["2023-04-01"]),
        (pa.nulls(2), [None, None]),
    ],
)
def test_plain_types(array: pa.Array, expected: list[str | None]) -> None:
    assert render(array) == expected


@pytest.mark.parametrize(
    ("value", "scale", "expected"),
    [
        ("12345.67890", 5, "12345.67890"),
        ("-0.50000", 5, "-0.50000"),
        ("0.00000", 5, "0.00000"),
        ("0.0000001", 7, "1E-7"),  # BigDecimal.toString switches to E notation below 1e-6
        ("0E-7", 7, "0E-7"),
        ("0.0000012", 8, "0.00000120"),
        ("1250.00", 2, "1250.00"),
    ],
)
def test_decimals_as_big_decimal_to_string(value: str, scale: int, expected: str) -> None:
    assert render(pa.array([Decimal(value)], pa.decimal128(20, scale))) == [expected]


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**18), 10**18), st.integers(0, 18))
def test_decimal_rendering_matches_big_decimal(unscaled: int, scale: int) -> None:
    # Python's Decimal.__str__ follows the same to-scientific-string rule as BigDecimal.toString.
    value = Decimal(unscaled).scaleb(-scale)
    assert render(pa.array([value], pa.decimal128(38, scale))) == [str(value)]


@pytest.mark.parametrize(
    ("value", "single", "expected"),
    [
        (1.0, False, "1.0"),
        (0.1, False, "0.1"),
        (100.0, False, "100.0"),
        (3.14159, False, "3.14159"),
        (1e7, False, "1.0E7"),
        (9999999.0, False, "9999999.0"),
        (0.001, False, "0.001"),
        (0.0009, False, "9.0E-4"),
        (1e-4, False, "1.0E-4"),
        (1.2345e-5, False, "1.2345E-5"),
        (1e23, False, "1.0E23"),
        (-2.5, False, "-2.5"),
        (5e-324, False, "4.9E-324"),  # Double.MIN_VALUE: the closest two-digit decimal
        (1.7976931348623157e308, False, "1.7976931348623157E308"),
        (0.0, False, "0.0"),
        (-0.0, False, "-0.0"),
        (math.nan, False, "NaN"),
        (math.inf, False, "Infinity"),
        (-math.inf, False, "-Infinity"),
        (1.1, True, "1.1"),
        (0.1, True, "0.1"),
        (16777216.0, True, "1.6777216E7"),
        (3.4028234663852886e38, True, "3.4028235E38"),
        (1.401298464324817e-45, True, "1.4E-45"),  # Float.MIN_VALUE
    ],
)
def test_java_float_to_string(value: float, single: bool, expected: str) -> None:
    assert java_float_text(value, single=single) == expected


def test_float_columns_render_per_distinct_value() -> None:
    assert render(pa.array([1.0, None, 1.0, 0.5], pa.float32())) == ["1.0", None, "1.0", "0.5"]
    assert render(pa.array([1e10, -0.0, 0.0], pa.float64())) == ["1.0E10", "-0.0", "0.0"]


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_double_text_round_trips(value: float) -> None:
    text = java_float_text(value, single=False)
    assert float(text) == value
    mantissa = text.split("E")[0].lstrip("-")
    assert "." in mantissa
    if "E" in text:
        assert 1 <= abs(float(mantissa)) < 10
    else:
        assert value == 0 or 1e-3 <= abs(value) < 1e7


@settings(max_examples=300, deadline=None)
@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_float_text_round_trips(value: float) -> None:
    text = java_float_text(value, single=True)
    assert struct.unpack("f", struct.pack("f", float(text)))[0] == value


def test_timestamps_render_as_the_raw_avro_long() -> None:
    moment = dt.datetime(2023, 4, 1, 12, 1, 0, 123456, tzinfo=UTC)
    assert render(pa.array([moment], pa.timestamp("us", tz="UTC"))) == ["1680350460123456"]
    assert render(pa.array([moment], pa.timestamp("ns", tz="UTC"))) == ["1680350460123456"]
    assert render(pa.array([moment], pa.timestamp("ms", tz="UTC"))) == ["1680350460123"]
    assert render(pa.array([moment], pa.timestamp("s", tz="UTC"))) == ["1680350460000"]
    assert render(pa.array([moment.replace(tzinfo=None)], pa.timestamp("us"))) == ["1680350460123456"]


def test_consistent_logical_timestamps_render_as_sql_timestamp() -> None:
    values = [
        dt.datetime(2023, 4, 1, 12, 1, tzinfo=UTC),
        dt.datetime(2023, 4, 1, 12, 1, 0, 120000, tzinfo=UTC),
        dt.datetime(2023, 4, 1, 12, 1, 0, 5999, tzinfo=UTC),
        dt.datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC),
        None,
    ]
    assert render(pa.array(values, pa.timestamp("us", tz="UTC")), consistent=True) == [
        "2023-04-01 12:01:00.0",
        "2023-04-01 12:01:00.12",
        "2023-04-01 12:01:00.005",  # micros are dropped (Timestamp(micros / 1000))
        "1969-12-31 23:59:59.999",
        None,
    ]
    # local-timestamp-* is never converted by Java.
    naive = pa.array([dt.datetime(2023, 4, 1, 12, 1)], pa.timestamp("ms"))
    assert render(naive, consistent=True) == ["1680350460000"]


def test_times_render_as_the_raw_number() -> None:
    assert render(pa.array([dt.time(1, 2, 3, 4000)], pa.time64("us"))) == ["3723004000"]
    assert render(pa.array([dt.time(1, 2, 3, 4000)], pa.time32("ms"))) == ["3723004"]


@pytest.mark.parametrize(
    "array",
    [
        pa.array([b"x"], pa.binary()),
        pa.array([[1]]),
        pa.array([{"a": 1}]),
        pa.array([b"ab"], pa.binary(2)),
        pa.array([dt.timedelta(1)]),
    ],
)
def test_unsupported_types(array: pa.Array) -> None:
    with pytest.raises(KeyFieldError, match="cannot make record keys or partition paths"):
        render(array)


def test_dictionary_values_render_once() -> None:
    dictionary = pa.array([1.5, None, 1.5]).dictionary_encode()
    assert render(dictionary) == ["1.5", None, "1.5"]
