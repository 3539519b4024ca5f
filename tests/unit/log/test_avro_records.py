"""AVRO_DATA content: exact values at the edges of every logical type, schema checks, damage."""

from __future__ import annotations

import datetime as dt
import struct
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.errors import LogBlockDecodeError, LogBlockEncodeError
from hudi_framework.log import decode_avro_records, encode_avro_records
from hudi_framework.log.avro_records import conform_records
from hudi_framework.model.schema import avro_to_arrow

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _schema(*fields: tuple[str, Any]) -> dict[str, Any]:
    return {
        "type": "record",
        "name": "t_record",
        "namespace": "hoodie.t",
        "fields": [{"name": n, "type": t, "default": None} for n, t in fields],
    }


def _round_trip(table: pa.Table, schema: dict[str, Any]) -> pa.Table:
    content = encode_avro_records(table, schema)
    decoded = decode_avro_records(content, schema)
    assert encode_avro_records(decoded, schema) == content
    return decoded


def test_timestamps_and_dates_beyond_python_datetime_are_exact() -> None:
    schema = _schema(
        ("ts", ["null", {"type": "long", "logicalType": "timestamp-micros"}]),
        ("local", ["null", {"type": "long", "logicalType": "local-timestamp-millis"}]),
        ("d", ["null", {"type": "int", "logicalType": "date"}]),
        ("t", ["null", {"type": "long", "logicalType": "time-micros"}]),
    )
    longs = pa.array([INT64_MIN, INT64_MAX, 0, None], pa.int64())
    table = pa.table(
        {
            "ts": longs.cast(pa.timestamp("us", tz="UTC")),
            "local": longs.cast(pa.timestamp("ms")),
            "d": pa.array([-(2**31), 2**31 - 1, 0, None], pa.int32()).cast(pa.date32()),
            "t": pa.array([0, 86_399_999_999, 1, None], pa.int64()).cast(pa.time64("us")),
        }
    )
    assert _round_trip(table, schema).equals(table)


def _decimal_schema(size: int, precision: int, scale: int) -> dict[str, Any]:
    fixed = {
        "type": "fixed",
        "name": "fixed",
        "namespace": "hoodie.t.t_record.amount",
        "size": size,
        "logicalType": "decimal",
        "precision": precision,
        "scale": scale,
    }
    return _schema(("amount", ["null", fixed]))


@pytest.mark.parametrize(("size", "precision", "scale"), [(1, 2, 0), (5, 10, 2), (7, 15, 2), (16, 38, 10), (20, 38, 0)])
def test_fixed_decimals_round_trip_at_their_limits(size: int, precision: int, scale: int) -> None:
    limit = 10**precision - 1
    values = [Decimal(f"{v}E-{scale}") for v in (limit, -limit, 0, 1, -1)]
    table = pa.table({"amount": pa.array([*values, None], pa.decimal128(precision, scale))})
    content = encode_avro_records(table, _decimal_schema(size, precision, scale))
    # Each record: int32 length, union index 2, then exactly `size` bytes.
    assert struct.unpack(">i", content[8:12])[0] == 1 + size
    assert decode_avro_records(content, _decimal_schema(size, precision, scale)).equals(table)


def test_fixed_decimal_bytes_are_big_endian_twos_complement() -> None:
    table = pa.table({"amount": pa.array([Decimal("-1.00"), Decimal("1.28")], pa.decimal128(10, 2))})
    content = encode_avro_records(table, _decimal_schema(5, 10, 2))
    assert content[12:18] == b"\x02\xff\xff\xff\xff\x9c"  # union branch 1, then -100
    assert content[22:28] == b"\x02\x00\x00\x00\x00\x80"  # 128


def test_decimal_too_wide_for_its_fixed_is_rejected() -> None:
    table = pa.table({"amount": pa.array([Decimal("99999")], pa.decimal128(10, 0))})
    with pytest.raises(LogBlockEncodeError, match="does not fit"):
        encode_avro_records(table, _decimal_schema(2, 10, 0))


def test_bytes_decimals_use_minimal_twos_complement() -> None:
    schema = _schema(("amount", ["null", {"type": "bytes", "logicalType": "decimal", "precision": 20, "scale": 3}]))
    table = pa.table({"amount": pa.array([Decimal("-0.128"), Decimal("0.128"), None], pa.decimal128(20, 3))})
    content = encode_avro_records(table, schema)
    assert content[12:15] == b"\x02\x02\x80"  # branch 1, length 1, -128
    assert _round_trip(table, schema).equals(table)


def test_nested_records_lists_maps_enums_and_null_second_unions() -> None:
    inner = {"type": "record", "name": "inner", "namespace": "hoodie.t.t_record", "fields": [
        {"name": "d", "type": [{"type": "int", "logicalType": "date"}, "null"]},
        {"name": "e", "type": {"type": "enum", "name": "color", "symbols": ["RED", "BLUE"]}},
    ]}  # fmt: skip
    schema = _schema(
        ("s", ["null", inner]),
        ("l", ["null", {"type": "array", "items": ["null", "hoodie.t.t_record.inner"]}]),
        ("m", ["null", {"type": "map", "values": ["null", {"type": "long", "logicalType": "timestamp-micros"}]}]),
    )
    when = dt.datetime(2024, 1, 15, 10, 30, tzinfo=dt.UTC)
    rows = [
        {
            "s": {"d": dt.date(2024, 1, 15), "e": "RED"},
            "l": [{"d": None, "e": "BLUE"}, None],
            "m": {"a": when, "b": None},
        },
        {"s": None, "l": None, "m": None},
        {"s": {"d": None, "e": "BLUE"}, "l": [], "m": {}},
    ]
    decoded = decode_avro_records(
        encode_avro_records(pa.Table.from_pylist(rows, schema=_arrow(schema)), schema), schema
    )
    assert decoded.to_pylist(maps_as_pydicts="strict") == rows


def _arrow(schema: dict[str, Any]) -> pa.Schema:
    return avro_to_arrow(schema)


def test_conform_selects_and_casts_columns() -> None:
    schema = _schema(("a", ["null", "long"]), ("b", ["null", "string"]))
    table = pa.table({"b": pa.array(["x"], pa.large_string()), "a": pa.array([1], pa.int8())})
    conformed = conform_records(table, schema)
    assert conformed.schema == pa.schema([("a", pa.int64()), ("b", pa.string())])


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        (pa.table({"a": [1]}), "missing"),
        (pa.table({"a": [1], "b": ["x"], "c": [2]}), "extra"),
        (pa.table({"a": ["not a number"], "b": ["x"]}), "do not fit"),
    ],
)
def test_records_that_do_not_fit_the_schema_are_rejected(table: pa.Table, reason: str) -> None:
    with pytest.raises(LogBlockEncodeError, match=reason):
        encode_avro_records(table, _schema(("a", ["null", "long"]), ("b", ["null", "string"])))


def test_null_in_a_non_null_field_is_rejected() -> None:
    schema = {"type": "record", "name": "r", "fields": [{"name": "a", "type": "long"}]}
    with pytest.raises(LogBlockEncodeError):
        encode_avro_records(pa.table({"a": pa.array([None], pa.int64())}), schema)


SCHEMA = _schema(("a", ["null", "long"]))
GOOD = encode_avro_records(pa.table({"a": [1, None]}), SCHEMA)


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (GOOD[:6], "shorter than its header"),
        (b"\x00\x00\x00\x02" + GOOD[4:], "version 2 is not supported"),
        (GOOD[:4] + b"\x7f\xff\xff\xff" + GOOD[8:], "implausible record count"),
        (GOOD[:8] + b"\x00\x00\x00\x03" + GOOD[12:], "decodes to 2 bytes, not 3"),
        (GOOD + b"\x00", "bytes follow the last record"),
        (GOOD[:-1], "runs past the content"),
        (GOOD[:12] + b"\x09" + GOOD[13:], "does not decode"),
    ],
)
def test_damaged_content_is_rejected(content: bytes, reason: str) -> None:
    with pytest.raises(LogBlockDecodeError, match=reason):
        decode_avro_records(content, SCHEMA)


def test_unusable_schema_is_a_decode_error() -> None:
    with pytest.raises(LogBlockDecodeError, match="SCHEMA header"):
        decode_avro_records(GOOD, _schema(("a", ["null", "lonf"])))
