"""Values of accepted incoming columns converted into the table's types, as Apache Hudi promotes them."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.errors import ColumnValueError
from hudi_framework.model.promoted_values import promote_column
from hudi_framework.model.promotion import Fit, fit


def promote(values: pa.Array, table: pa.DataType, *, nullable: bool = True) -> list[Any]:
    assert fit(values.type, table, "c") in (Fit.SAME, Fit.PROMOTED)
    out = promote_column(pa.chunked_array([values]), pa.field("c", table, nullable=nullable), "c")
    assert out.type == table
    return out.to_pylist()


@pytest.mark.parametrize(
    ("values", "table", "expected"),
    [
        # Other Arrow representations of the incoming Avro type are converted like it.
        # The half float 1.1 is the float 1.099609375, whose Java text is 1.0996094.
        (pa.array([1.1, None], pa.float16()), pa.float64(), [1.0996094, None]),
        (pa.array([-7], pa.int8()), pa.decimal128(5, 1), [Decimal("-7.0")]),
        (pa.array([65535], pa.uint16()), pa.string(), ["65535"]),
        (pa.array(["2024-1-5"], pa.large_string()), pa.date32(), [dt.date(2024, 1, 5)]),
        (pa.array(["1.25"], pa.string_view()), pa.decimal128(4, 1), [Decimal("1.3")]),
        (pa.array([86_400_000], pa.date64()), pa.string(), ["1970-01-02"]),
        (pa.array(["b", "a", "b"]).dictionary_encode(), pa.binary(), [b"b", b"a", b"b"]),
        (pa.array([Decimal("1.5")], pa.decimal256(3, 1)), pa.string(), ["1.5"]),
        # Java's rules at the edges.
        (pa.array(["2023-02-29", "2024-4-31"]), pa.date32(), [dt.date(2023, 3, 1), dt.date(2024, 5, 1)]),
        (pa.array([b"ok\xff"]), pa.string(), ["ok\ufffd"]),
        (pa.array(["-0.05", "0.05", "9.995"]), pa.decimal128(4, 1), [Decimal("-0.1"), Decimal("0.1"), Decimal("10.0")]),
        (pa.array([1e-7, -1e-300], pa.float64()), pa.decimal128(5, 2), [Decimal("0.00"), Decimal("0.00")]),
        (pa.array([2**63 - 1], pa.int64()), pa.decimal128(38, 18), [Decimal(2**63 - 1)]),
        (pa.array([float("inf")], pa.float32()), pa.float64(), [float("inf")]),
        # Another representation of the same type.
        (
            pa.array([1_000], pa.timestamp("ns", tz="UTC")),
            pa.timestamp("us", tz="UTC"),
            [pa.scalar(1, pa.timestamp("us", tz="UTC")).as_py()],
        ),
    ],
)
def test_leaf_values(values: pa.Array, table: pa.DataType, expected: list[Any]) -> None:
    assert promote(values, table) == expected


def test_nested_values_keep_nulls_and_slices() -> None:
    source = pa.struct(
        [
            ("tags", pa.list_(pa.float32())),
            ("m", pa.map_(pa.large_string(), pa.int32())),
            ("n", pa.int16()),
        ]
    )
    table = pa.struct(
        [
            ("n", pa.int64()),
            ("tags", pa.list_(pa.field("element", pa.string()))),
            ("m", pa.map_(pa.string(), pa.field("value", pa.float64()))),
        ]
    )
    rows = [
        {"tags": [9.0], "m": [("z", 9)], "n": 9},
        {"tags": [1.5, None], "m": [("a", 1), ("b", None)], "n": 1},
        None,
        {"tags": None, "m": None, "n": None},
        {"tags": [], "m": [], "n": 2},
    ]
    values = pa.array(rows, source).slice(1)  # offsets must follow the slice
    assert promote(values, table) == [
        {"n": 1, "tags": ["1.5", None], "m": [("a", 1.0), ("b", None)]},
        None,
        {"n": None, "tags": None, "m": None},
        {"n": 2, "tags": [], "m": []},
    ]


def test_chunks_are_converted_each() -> None:
    values = pa.chunked_array([pa.array([1], pa.int32()), pa.array([], pa.int32()), pa.array([2], pa.int32())])
    out = promote_column(values, pa.field("c", pa.float64()), "c")
    assert out.to_pylist() == [1.0, 2.0]


@pytest.mark.parametrize(
    ("values", "table", "value"),
    [
        (pa.array(["1", None, "1,5"]), pa.decimal128(5, 2), "1,5"),
        (pa.array(["12.345", "999.995"]), pa.decimal128(5, 2), "999.995"),
        (pa.array([1.0, float("nan")], pa.float32()), pa.decimal128(5, 2), "NaN"),
        (pa.array(["2024-01-01", "2024-13-01"]), pa.date32(), "2024-13-01"),
        (pa.array(["20240101"]), pa.date32(), "20240101"),
    ],
)
def test_a_value_without_a_counterpart_is_named(values: pa.Array, table: pa.DataType, value: str) -> None:
    with pytest.raises(ColumnValueError) as caught:
        promote(values, table)
    assert (caught.value.column, caught.value.value) == ("c", value)
    assert caught.value.table == str(table)


def test_nulls_into_required_fields() -> None:
    with pytest.raises(ColumnValueError, match="required") as caught:
        promote(pa.array([1, None], pa.int32()), pa.int64(), nullable=False)
    assert caught.value.column == "c"
    table = pa.struct([pa.field("x", pa.int64(), nullable=False)])
    # A null struct may have a null child; a valid one may not.
    assert promote(pa.array([None, {"x": 1}], pa.struct([("x", pa.int32())])), table) == [None, {"x": 1}]
    with pytest.raises(ColumnValueError) as nested:
        promote(pa.array([{"x": None}], pa.struct([("x", pa.int32())])), table)
    assert nested.value.column == "c.x"
    elements = pa.list_(pa.field("element", pa.int64(), nullable=False))
    with pytest.raises(ColumnValueError) as element:
        promote(pa.array([[1, None]], pa.list_(pa.int32())), elements)
    assert element.value.column == "c.element"


def test_nanoseconds_a_microsecond_column_cannot_hold_are_refused_not_dropped() -> None:
    from hudi_framework.errors import ColumnValueError

    with pytest.raises(ColumnValueError, match="'c'"):
        promote(pa.array([1_500], pa.timestamp("ns", tz="UTC")), pa.timestamp("us", tz="UTC"))
