"""Conforming file data to the read schema: list layouts, evolution, promotions, physical types."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest

from hudi_framework.errors import ReadError
from hudi_framework.read import conform_batch, spark_type
from hudi_framework.read.conform import conform_array, constant_array

ITEM = pa.struct([("f1", pa.string()), ("f2", pa.int32())])
TWO_LEVEL = pa.list_(pa.field("array", ITEM, nullable=False))
THREE_LEVEL = pa.list_(pa.field("element", ITEM))


def test_two_level_list_becomes_three_level_even_when_sliced() -> None:
    values = pa.array([[{"f1": "a", "f2": 1}], None, [], [{"f1": "b", "f2": 2}, {"f1": "c", "f2": 3}]], TWO_LEVEL)
    out = conform_array(values.slice(1), THREE_LEVEL)
    assert out.type == THREE_LEVEL
    assert out.to_pylist() == [None, [], [{"f1": "b", "f2": 2}, {"f1": "c", "f2": 3}]]


def test_struct_fields_by_name_with_added_fields_null() -> None:
    values = pa.array(
        [{"b": 1, "a": "x"}, None, {"b": 3, "a": "z"}], pa.struct([("b", pa.int32()), ("a", pa.string())])
    )
    target = pa.struct([("a", pa.string()), ("b", pa.int64()), ("added", pa.float64())])
    out = conform_array(values.slice(1), target)
    assert out.to_pylist() == [None, {"a": "z", "b": 3, "added": None}]


def test_map_values_conformed_even_when_sliced() -> None:
    values = pa.array([[("j", {"f1": "z", "f2": 0})], [("k", {"f1": "a", "f2": 1})], None], pa.map_(pa.string(), ITEM))
    target = pa.map_(pa.string(), pa.struct([("f1", pa.string()), ("f2", pa.int64())]))
    assert conform_array(values.slice(1), target).to_pylist() == [[("k", {"f1": "a", "f2": 1})], None]


@pytest.mark.parametrize(
    ("values", "target", "expected"),
    [
        (pa.array([1, None], pa.int32()), pa.int64(), [1, None]),
        (pa.array([1705311000000], pa.int64()), pa.string(), ["1705311000000"]),
        (pa.array(["x"], pa.large_string()), pa.string(), ["x"]),
        (pa.array(["x", "x"]).dictionary_encode(), pa.string(), ["x", "x"]),
        (pa.array([1500], pa.timestamp("ms", tz="UTC")), pa.timestamp("us", tz="UTC"),
         [dt.datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=dt.UTC)]),
        # INT96 timestamps arrive in nanoseconds: sub-microsecond digits are dropped, as Spark does.
        (pa.array([1_000_001_999], pa.timestamp("ns")), pa.timestamp("us"), [dt.datetime(1970, 1, 1, 0, 0, 1, 1)]),
        (pa.nulls(2), pa.date32(), [None, None]),
    ],
)  # fmt: skip
def test_promotions(values: pa.Array, target: pa.DataType, expected: list[object]) -> None:
    out = conform_array(values, target)
    assert out.type == target
    assert out.to_pylist() == expected


def test_incompatible_change_is_a_read_error() -> None:
    with pytest.raises(ReadError, match="col"):
        conform_array(pa.array(["abc"]), pa.int32(), name="col")


def test_chunked_input() -> None:
    chunked = pa.chunked_array([pa.array([1], pa.int32()), pa.array([2], pa.int32())])
    assert conform_array(chunked, pa.int64()).to_pylist() == [1, 2]


def test_constant_partition_values() -> None:
    assert constant_array("2024-01-02", pa.date32(), 2, name="d").to_pylist() == [dt.date(2024, 1, 2)] * 2
    assert constant_array(None, pa.int32(), 1, name="d").to_pylist() == [None]
    with pytest.raises(ReadError, match="partition column d"):
        constant_array("2024/01/02", pa.date32(), 1, name="d")


def test_conform_batch_orders_and_fills() -> None:
    batch = pa.record_batch({"b": pa.array([1], pa.int32()), "a": ["x"], "extra": [True]})
    schema = pa.schema([("a", pa.string()), ("b", pa.int64()), ("missing", pa.string())])
    out = conform_batch(batch, schema)
    assert out.schema == schema
    assert out.to_pylist() == [{"a": "x", "b": 1, "missing": None}]


def test_spark_types() -> None:
    nested = pa.struct([("ts", pa.timestamp("ms", tz="UTC")), ("tags", pa.large_list(pa.large_string()))])
    assert spark_type(nested) == pa.struct([("ts", pa.timestamp("us", tz="UTC")), ("tags", pa.list_(pa.string()))])
    assert spark_type(pa.timestamp("ms")) == pa.timestamp("us")
    assert spark_type(pa.binary(16)) == pa.binary()
    assert spark_type(pa.map_(pa.large_string(), pa.large_binary())) == pa.map_(pa.string(), pa.binary())
    assert spark_type(pa.dictionary(pa.int8(), pa.string())) == pa.string()
    assert spark_type(pa.decimal128(15, 2)) == pa.decimal128(15, 2)
