"""Timestamp-based partition values (``hoodie.keygen.timebased.*``)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.keygen import TimestampKeyGenOptions
from hudi_framework.errors import InvalidConfigValueError, InvalidPartitionValueError, KeyFieldError
from hudi_keygen_builtin import KeyGenOptions, TimestampBasedKeyGenerator
from hudi_keygen_builtin.timestamp import TimestampFormatter

UTC = dt.UTC


def fmt(values: pa.Array, *, consistent: bool = False, **options: Any) -> list[str]:
    formatter = TimestampFormatter(TimestampKeyGenOptions(**options), consistent_logical_timestamp=consistent)
    result: list[str] = formatter.format(values, "ts").to_pylist()
    return result


def test_epoch_millis_hourly() -> None:  # as in the fixture table v9_timebasedkeygen_epochmillis
    values = pa.array([1705311000000, 1705367700000, 1705489200000], pa.int64())
    assert fmt(values, timestamp_type="EPOCHMILLISECONDS", output_date_format="yyyy/MM/dd/HH") == [
        "2024/01/15/09",
        "2024/01/16/01",
        "2024/01/17/11",
    ]


@pytest.mark.parametrize(
    ("kind", "unit", "value"),
    [
        ("UNIX_TIMESTAMP", "SECONDS", 1705311000),
        ("EPOCHMILLISECONDS", "SECONDS", 1705311000_000),
        ("EPOCHMICROSECONDS", "SECONDS", 1705311000_000_000),
        ("SCALAR", "SECONDS", 1705311000),
        ("SCALAR", "minutes", 1705311000 // 60),
        ("SCALAR", "HOURS", 1705311000 // 3600),
        ("SCALAR", "DAYS", 19737),
        ("SCALAR", "MILLISECONDS", 1705311000_000),
        ("SCALAR", "NANOSECONDS", 1705311000_000_000_000),
    ],
)
def test_numeric_types_and_units(kind: str, unit: str, value: int) -> None:
    out = fmt(
        pa.array([value], pa.int64()), timestamp_type=kind, scalar_time_unit=unit, output_date_format="yyyy-MM-dd"
    )
    assert out == ["2024-01-15"]


def test_floats_and_decimals_truncate_toward_zero() -> None:
    options = {"timestamp_type": "UNIX_TIMESTAMP", "output_date_format": "yyyy-MM-dd HH:mm:ss"}
    assert fmt(pa.array([59.9, -0.5, float("nan")]), **options) == ["1970-01-01 00:00:59"] + ["1970-01-01 00:00:00"] * 2
    decimals = pa.array([Decimal("59.99"), Decimal("-1.99")], pa.decimal128(6, 2))
    assert fmt(decimals, **options) == ["1970-01-01 00:00:59", "1969-12-31 23:59:59"]


def test_dates_count_epoch_days_in_the_unit() -> None:
    # Java converts a LocalDate to toEpochDay() and then applies the time unit: days as seconds.
    days = pa.array([dt.date(1970, 1, 11)])
    assert fmt(days, timestamp_type="UNIX_TIMESTAMP", output_date_format="HH:mm:ss") == ["00:00:10"]
    assert fmt(days, timestamp_type="SCALAR", scalar_time_unit="DAYS", output_date_format="yyyy-MM-dd") == [
        "1970-01-11"
    ]


def test_timestamps_use_the_raw_long_unless_consistent() -> None:
    moment = dt.datetime(2024, 1, 15, 9, 30, tzinfo=UTC)
    micros = pa.array([moment], pa.timestamp("us", tz="UTC"))
    out = "yyyy-MM-dd HH:mm"
    assert fmt(micros, timestamp_type="EPOCHMICROSECONDS", output_date_format=out) == ["2024-01-15 09:30"]
    # Without the flag the micros are read in the configured unit (here millis: year 55993).
    with pytest.raises(InvalidPartitionValueError, match="years 1-9999"):
        fmt(micros, timestamp_type="EPOCHMILLISECONDS", output_date_format="yyyy")
    assert fmt(micros, consistent=True, timestamp_type="EPOCHMILLISECONDS", output_date_format=out) == [
        "2024-01-15 09:30"
    ]


def test_null_values_use_one_unit() -> None:
    values = pa.array([None, 86_400], pa.int64())
    assert fmt(values, timestamp_type="UNIX_TIMESTAMP", output_date_format="yyyy-MM-dd HH:mm:ss") == [
        "1970-01-01 00:00:01",
        "1970-01-02 00:00:00",
    ]


def test_date_strings_with_offsets() -> None:
    values = pa.array(["2023-04-01T12:01:00.123Z", "2024-01-15T23:30:00.000+05:30", "2024-01-15T23:30:00.000-0100"])
    options = {
        "timestamp_type": "DATE_STRING",
        "input_date_format": "yyyy-MM-dd'T'HH:mm:ss.SSSZ",
        "output_date_format": "yyyy/MM/dd/HH",
    }
    # Without an output zone each value is printed in the offset it was written with (Joda withOffsetParsed).
    assert fmt(values, **options) == ["2023/04/01/12", "2024/01/15/23", "2024/01/15/23"]
    assert fmt(values, **options, output_timezone="UTC") == ["2023/04/01/12", "2024/01/15/18", "2024/01/16/00"]
    # An input zone becomes the output zone when none is set; the parsed offset still fixes the instant.
    assert fmt(values, **options, input_timezone="GMT+1") == ["2023/04/01/13", "2024/01/15/19", "2024/01/16/01"]
    # The deprecated "timezone" sets both.
    assert fmt(values, **options, timezone="Asia/Kolkata") == ["2023/04/01/17", "2024/01/15/23", "2024/01/16/06"]


def test_date_strings_without_offsets_use_the_input_zone() -> None:
    values = pa.array(["2024-07-01 10:00", "2024-01-01 10:00"])
    options = {
        "timestamp_type": "DATE_STRING",
        "input_date_format": "yyyy-MM-dd HH:mm",
        "output_date_format": "HH",
        "output_timezone": "UTC",
    }
    assert fmt(values, **options) == ["10", "10"]
    assert fmt(values, **options, input_timezone="Europe/Paris") == ["08", "09"]


def test_several_input_formats_and_a_custom_delimiter() -> None:
    values = pa.array(["2024-01-15", "15/01/2024", "20240115", None])
    options = {
        "timestamp_type": "MIXED",
        "input_date_format": "yyyy-MM-dd; dd/MM/yyyy ;yyyyMMdd",
        "input_date_format_delimiter_regex": ";",
        "output_date_format": "yyyyMMdd",
    }
    # null: Java formats the instant 1 ms with the first input pattern and parses it back.
    assert fmt(values, **options) == ["20240115", "20240115", "20240115", "19700101"]


def test_unparseable_strings_fail_with_the_value() -> None:
    options = {"timestamp_type": "DATE_STRING", "input_date_format": "yyyy-MM-dd", "output_date_format": "yyyy"}
    with pytest.raises(InvalidPartitionValueError, match="'2024/01/15'") as info:
        fmt(pa.array(["2024-01-15", "2024/01/15"]), **options)
    assert info.value.field == "ts"
    with pytest.raises(InvalidPartitionValueError, match="day of month"):
        fmt(pa.array(["2023-02-29"]), **options)


def test_types_that_do_not_fit_the_timestamp_type() -> None:
    with pytest.raises(KeyFieldError, match="DATE_STRING or MIXED"):
        fmt(pa.array(["1705311000"]), timestamp_type="UNIX_TIMESTAMP", output_date_format="yyyy")
    with pytest.raises(KeyFieldError, match="numeric timestamp type"):
        fmt(pa.array([1]), timestamp_type="DATE_STRING", input_date_format="yyyy", output_date_format="yyyy")
    with pytest.raises(KeyFieldError, match="bool"):
        fmt(pa.array([True]), timestamp_type="UNIX_TIMESTAMP", output_date_format="yyyy")


def test_overflow_is_an_error() -> None:
    with pytest.raises(InvalidPartitionValueError, match="overflows"):
        fmt(pa.array([2**62]), timestamp_type="UNIX_TIMESTAMP", output_date_format="yyyy")


@pytest.mark.parametrize(
    ("options", "key"),
    [
        ({"output_date_format": "yyyy-MM-dd zzz"}, "output.dateformat"),
        ({"output_date_format": "yyyy-MM-dd qq"}, "output.dateformat"),
        ({"output_timezone": "Mars/Olympus"}, "output.timezone"),
        ({"timezone": "+05:00"}, "timebased.timezone"),
    ],
)
def test_unsupported_settings_fail_early(options: dict[str, str], key: str) -> None:
    full = {"timestamp_type": "UNIX_TIMESTAMP", "output_date_format": "yyyy", **options}
    with pytest.raises(InvalidConfigValueError, match=key):
        TimestampFormatter(TimestampKeyGenOptions(**full))


def test_unparseable_input_pattern_fails_early() -> None:
    options = TimestampKeyGenOptions(
        timestamp_type="DATE_STRING", input_date_format="EEE yyyy", output_date_format="yyyy"
    )
    with pytest.raises(InvalidConfigValueError, match="'EEE' cannot be parsed"):
        TimestampFormatter(options)


def test_date_string_needs_input_format() -> None:
    with pytest.raises(ValueError, match="needs input_date_format"):
        TimestampKeyGenOptions(timestamp_type="DATE_STRING", output_date_format="yyyy")


def test_key_generator_with_hive_style_and_url_encoding() -> None:
    kg = TimestampBasedKeyGenerator(
        KeyGenOptions(
            record_key_fields=("id",),
            partition_fields=("ts",),
            hive_style_partitioning=True,
            url_encode_partitions=True,
            timestamp=TimestampKeyGenOptions(timestamp_type="EPOCHMILLISECONDS", output_date_format="yyyy/MM/dd"),
        )
    )
    batch = pa.table({"id": [1], "ts": pa.array([1705311000000], pa.int64())})
    assert kg.keys(batch)[0].to_pylist() == ["1"]
    assert kg.keys(batch)[1].to_pylist() == ["ts=2024%2F01%2F15"]


ZONES = ["UTC", "Asia/Kolkata", "America/New_York", "Europe/Paris", "Australia/Lord_Howe"]


@settings(max_examples=120, deadline=None)
@given(
    st.lists(st.integers(-(2**41), 2**42), min_size=1, max_size=20),
    st.sampled_from(ZONES),
)
def test_output_matches_python_datetime(millis: list[int], zone: str) -> None:
    out = fmt(
        pa.array(millis, pa.int64()),
        timestamp_type="EPOCHMILLISECONDS",
        output_date_format="yyyy-MM-dd HH:mm:ss.SSS Z EEE MMM D",
        output_timezone=zone,
    )
    for value, text in zip(millis, out, strict=True):
        local = dt.datetime.fromtimestamp(value / 1000, ZoneInfo(zone))
        local = local.replace(microsecond=(value % 1000) * 1000)
        # Joda's Z prints hours and minutes only (local mean time offsets have seconds).
        offset = local.strftime("%z")[:5]
        expected = local.strftime("%Y-%m-%d %H:%M:%S.") + f"{value % 1000:03d} {offset} " + local.strftime("%a %b ")
        assert text == expected + str(local.timetuple().tm_yday)


@settings(max_examples=120, deadline=None)
@given(
    st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31)),
    st.integers(-14 * 60, 14 * 60),
)
def test_parse_then_print_round_trips(moment: dt.datetime, offset_minutes: int) -> None:
    moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
    zone = dt.timezone(dt.timedelta(minutes=offset_minutes))
    text = moment.replace(tzinfo=zone).isoformat(timespec="milliseconds")
    pattern = "yyyy-MM-dd'T'HH:mm:ss.SSSZZ"
    out = fmt(pa.array([text]), timestamp_type="DATE_STRING", input_date_format=pattern, output_date_format=pattern)
    assert out == [text]


def test_daylight_saving_after_2037_and_gaps() -> None:
    # Arrow's zone kernels miss daylight saving from 2038 on; the formatter must not.
    july = int(dt.datetime(2039, 7, 1, 12, tzinfo=UTC).timestamp() * 1000)
    out = fmt(
        pa.array([july]), timestamp_type="EPOCHMILLISECONDS", output_date_format="HH Z", output_timezone="EST5EDT"
    )
    assert out == ["08 -0400"]
    options = {
        "timestamp_type": "DATE_STRING",
        "input_date_format": "yyyy-MM-dd HH:mm",
        "input_timezone": "America/New_York",
        "output_date_format": "yyyy-MM-dd HH:mm",
        "output_timezone": "UTC",
    }
    assert fmt(pa.array(["2039-07-01 08:00", "2024-11-03 01:30"]), **options) == [
        "2039-07-01 12:00",
        "2024-11-03 05:30",
    ]
    with pytest.raises(InvalidPartitionValueError, match="daylight saving gap"):
        fmt(pa.array(["2024-03-10 02:30"]), **options)
    with pytest.raises(InvalidPartitionValueError, match="daylight saving gap"):
        fmt(pa.array(["2039-03-13 02:30"]), **options)
