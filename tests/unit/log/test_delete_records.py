"""DELETE content: Java's bytes, every wrapper branch of the ordering value, exact decimals."""

from __future__ import annotations

import struct
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.errors import LogBlockDecodeError, LogBlockEncodeError
from hudi_framework.log import (
    COMMIT_TIME_ORDERING,
    DeleteRecord,
    OrderingType,
    OrderingValue,
    decode_delete_content,
    encode_delete_content,
)
from hudi_framework.log.delete_records import delete_list_schema
from tests.unit.log.strategies import delete_records

# Written by Apache Hudi 1.1 (fixture mor/avro/v9_txns_simple_meta, SQL DELETE of TXN-002).
JAVA_DELETE = b"\x00\x00\x00\x03\x00\x00\x00\x18\x02\x02\x0eTXN-002\x02\x12region=us\x04\x00\x00"
# Written by Apache Hudi 1.1 in the metadata table: an empty delete list.
JAVA_EMPTY_DELETE = b"\x00\x00\x00\x03\x00\x00\x00\x01\x00"


def test_java_delete_block_decodes_and_re_encodes() -> None:
    records = decode_delete_content(JAVA_DELETE)
    assert records == (DeleteRecord("TXN-002", "region=us", OrderingValue(OrderingType.INT, 0)),)
    assert records[0].ordering_value == COMMIT_TIME_ORDERING
    assert encode_delete_content(records) == JAVA_DELETE
    assert decode_delete_content(JAVA_EMPTY_DELETE) == ()
    assert encode_delete_content(()) == JAVA_EMPTY_DELETE


def test_commit_time_ordering_is_int_wrapper_zero() -> None:
    # Branch 2 (zig-zag 0x04) then the int 0: hudi-format.md section 4.
    data = encode_delete_content([DeleteRecord("k", "")])
    assert data.endswith(b"\x04\x00\x00")


UNION = ["null", *(f"org.apache.hudi.avro.model.{t.value}" for t in list(OrderingType)[:11]), "ArrayWrapper"]


@pytest.mark.parametrize(
    ("value", "branch"),
    [
        (None, 0),
        (OrderingValue(OrderingType.BOOLEAN, True), 1),
        (OrderingValue(OrderingType.INT, -5), 2),
        (OrderingValue(OrderingType.LONG, 2**40), 3),
        (OrderingValue(OrderingType.FLOAT, 1.5), 4),
        (OrderingValue(OrderingType.DOUBLE, -2.25), 5),
        (OrderingValue(OrderingType.BYTES, b"\x00\x01"), 6),
        (OrderingValue(OrderingType.STRING, "v"), 7),
        (OrderingValue(OrderingType.DATE, 19000), 8),
        (OrderingValue(OrderingType.DECIMAL, Decimal("12.5")), 9),
        (OrderingValue(OrderingType.TIME_MICROS, 3_600_000_000), 10),
        (OrderingValue(OrderingType.TIMESTAMP_MICROS, 1_700_000_000_000_000), 11),
        (OrderingValue(OrderingType.ARRAY, (OrderingValue(OrderingType.LOCAL_DATE, 3), None)), 12),
    ],
)
def test_every_union_branch(value: OrderingValue | None, branch: int) -> None:
    data = encode_delete_content([DeleteRecord(None, None, value)])
    # version, length, array count 1, recordKey null, partitionPath null, then the branch index.
    assert data[8:12] == bytes([2, 0, 0, branch * 2])
    assert decode_delete_content(data) == (DeleteRecord(None, None, value),)


def test_schema_union_order_matches_java() -> None:
    record = delete_list_schema()["fields"][0]["type"]["items"]
    union = record["fields"][2]["type"]
    names = [b if isinstance(b, str) else f"{b['namespace']}.{b['name']}" for b in union]
    assert [n.rsplit(".", 1)[-1] for n in names] == [n.rsplit(".", 1)[-1] for n in UNION]


@pytest.mark.parametrize(
    ("value", "raw"),
    [
        (Decimal("0"), b"\x00"),
        (Decimal("-128E-15"), b"\x80"),
        (Decimal("128E-15"), b"\x00\x80"),
        (Decimal("-129E-15"), b"\xff\x7f"),
    ],
)
def test_decimal_bytes_are_java_big_integer_bytes(value: Decimal, raw: bytes) -> None:
    data = encode_delete_content([DeleteRecord(None, None, OrderingValue(OrderingType.DECIMAL, value))])
    # After the branch index (9 -> 0x12): the bytes length (zig-zag) and the two's complement bytes.
    assert data[11:12] == b"\x12"
    assert data[12:13] == bytes([len(raw) * 2])
    assert data[13 : 13 + len(raw)] == raw


def test_thirty_digit_decimal_is_exact() -> None:
    value = Decimal("-999999999999999.999999999999999")
    data = encode_delete_content([DeleteRecord("k", "p", OrderingValue(OrderingType.DECIMAL, value))])
    decoded = decode_delete_content(data)[0].ordering_value
    assert decoded is not None
    assert decoded.value == value
    assert str(decoded.value) == str(value)


@pytest.mark.parametrize(
    ("kind", "value"),
    [
        (OrderingType.INT, True),
        (OrderingType.INT, 2**31),
        (OrderingType.LONG, 1.0),
        (OrderingType.FLOAT, 1),
        (OrderingType.STRING, b"x"),
        (OrderingType.DECIMAL, Decimal("1E-16")),
        (OrderingType.DECIMAL, Decimal("NaN")),
        (OrderingType.ARRAY, (OrderingValue(OrderingType.ARRAY, None),)),
        (OrderingType.ARRAY, [OrderingValue(OrderingType.INT, 1)]),
    ],
)
def test_invalid_ordering_values_are_rejected(kind: OrderingType, value: object) -> None:
    with pytest.raises(LogBlockEncodeError):
        OrderingValue(kind, value)  # type: ignore[arg-type]


def test_local_date_only_inside_arrays() -> None:
    with pytest.raises(LogBlockEncodeError, match="LOCAL_DATE"):
        encode_delete_content([DeleteRecord("k", "p", OrderingValue(OrderingType.LOCAL_DATE, 1))])


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"\x00\x00\x00", "shorter than its header"),
        (b"\x00\x00\x00\x01\x00\x00\x00\x01\x00", "version 1 is not supported"),
        (b"\x00\x00\x00\x03\x00\x00\x00\x02\x00", "says 2 bytes but holds 1"),
        (b"\x00\x00\x00\x03\x00\x00\x00\x02\x00\x00", "ends after 1 of 2 bytes"),
        (b"\x00\x00\x00\x03\x00\x00\x00\x02\x02\x7f", "does not decode"),
    ],
)
def test_damaged_content_is_rejected(content: bytes, reason: str) -> None:
    with pytest.raises(LogBlockDecodeError, match=reason):
        decode_delete_content(content)


@settings(max_examples=100, deadline=None)
@given(st.lists(delete_records, max_size=5))
def test_delete_records_round_trip(records: list[DeleteRecord]) -> None:
    data = encode_delete_content(records)
    assert struct.unpack(">ii", data[:8]) == (3, len(data) - 8)
    decoded = decode_delete_content(data)
    assert decoded == tuple(records)
    assert encode_delete_content(decoded) == data
