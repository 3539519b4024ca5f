"""Ordering-value comparison: one total preorder, vectorised and per record alike."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.merging import compare_ordering_values, newer_wins
from hudi_framework.errors import MergeError, OrderingTypeError
from hudi_framework.testing.merger_contract import ORDERING_TYPES

UTC = dt.UTC


def _wins(older: list[Any], newer: list[Any], arrow_type: pa.DataType) -> list[bool]:
    old_col = pa.chunked_array([pa.array(older, type=arrow_type)])
    new_col = pa.chunked_array([pa.array(newer, type=arrow_type)])
    return [bool(b) for b in newer_wins([old_col], [new_col], ["ts"], num_rows=len(older))]


@pytest.mark.parametrize(
    ("arrow_type", "low", "high"),
    [
        (pa.int8(), -5, 3),
        (pa.int64(), 2**40, 2**41),
        (pa.uint64(), 1, 2**63 + 1),
        (pa.float32(), -1.5, 0.25),
        (pa.float64(), -math.inf, math.inf),
        (pa.string(), "a", "ab"),
        (pa.large_string(), "Z", "a"),
        (pa.string(), "\uffff", "\U0001f600"),  # code point order (Java's UTF-16 order would differ)
        (pa.binary(), b"\x00", b"\xff"),
        (pa.decimal128(10, 2), Decimal("-0.01"), Decimal("0.00")),
        (pa.decimal256(40, 0), Decimal(10**38), Decimal(10**39)),
        (pa.date32(), dt.date(2024, 2, 29), dt.date(2024, 3, 1)),
        (pa.timestamp("ms"), dt.datetime(2024, 1, 1), dt.datetime(2024, 1, 1, 0, 0, 0, 1000)),
        (pa.timestamp("us", tz="UTC"), dt.datetime(2024, 1, 1, tzinfo=UTC), dt.datetime(2024, 1, 2, tzinfo=UTC)),
        (pa.time64("us"), dt.time(1), dt.time(2)),
        (pa.bool_(), False, True),
    ],
)
def test_natural_order_ties_to_newer_and_null_lowest(arrow_type: pa.DataType, low: Any, high: Any) -> None:
    older = [low, high, low, None, None, low]
    newer = [high, low, low, low, None, None]
    assert _wins(older, newer, arrow_type) == [True, False, True, True, True, False]
    for o, n, expected in zip(older, newer, [True, False, True, True, True, False], strict=True):
        assert (compare_ordering_values((n,), (o,)) >= 0) is expected


def test_nan_is_the_highest_float_and_equal_to_itself() -> None:
    older = [math.nan, math.nan, math.inf, math.nan, None]
    newer = [math.inf, math.nan, math.nan, None, math.nan]
    assert _wins(older, newer, pa.float64()) == [False, True, True, False, True]
    assert compare_ordering_values((math.nan,), (math.inf,)) > 0
    assert compare_ordering_values((math.nan,), (math.nan,)) == 0


def test_several_fields_compare_lexicographically() -> None:
    older = [pa.chunked_array([pa.array([1, 1, 1, None])]), pa.chunked_array([pa.array(["b", "b", None, "z"])])]
    newer = [pa.chunked_array([pa.array([2, 1, 1, 0])]), pa.chunked_array([pa.array(["a", "a", "a", "a"])])]
    assert list(newer_wins(older, newer, ["major", "minor"], num_rows=4)) == [True, False, True, True]
    assert compare_ordering_values((1, None), (1, "a")) < 0
    assert compare_ordering_values((2, "a"), (1, "z")) > 0


def test_dictionary_columns_compare_by_value() -> None:
    older = pa.chunked_array([pa.array(["b", "a"]).dictionary_encode()])
    newer = pa.chunked_array([pa.array(["a", "b"]).dictionary_encode()])
    assert list(newer_wins([older], [newer], ["ts"], num_rows=2)) == [False, True]


def test_no_ordering_fields_means_every_row_ties() -> None:
    assert list(newer_wins([], [], [], num_rows=3)) == [True, True, True]


def test_nested_ordering_fields_are_rejected() -> None:
    column = pa.chunked_array([pa.array([{"a": 1}])])
    with pytest.raises(OrderingTypeError) as info:
        newer_wins([column], [column], ["ts"], num_rows=1)
    assert isinstance(info.value, MergeError)
    assert info.value.field == "ts"


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_vectorised_and_per_record_comparisons_agree(data: st.DataObject) -> None:
    names = data.draw(st.lists(st.sampled_from(sorted(ORDERING_TYPES)), min_size=1, max_size=3))
    size = data.draw(st.integers(1, 8))
    older_cols, newer_cols, older_rows, newer_rows = [], [], [[] for _ in range(size)], [[] for _ in range(size)]
    for name in names:
        arrow_type, domain = ORDERING_TYPES[name]
        values = st.lists(st.none() | st.sampled_from(domain), min_size=size, max_size=size)
        old, new = data.draw(values), data.draw(values)
        older_cols.append(pa.chunked_array([pa.array(old, type=arrow_type)]))
        newer_cols.append(pa.chunked_array([pa.array(new, type=arrow_type)]))
        for i in range(size):
            older_rows[i].append(old[i])
            newer_rows[i].append(new[i])
    vectorised = list(newer_wins(older_cols, newer_cols, names, num_rows=size))
    per_record = [compare_ordering_values(n, o) >= 0 for o, n in zip(older_rows, newer_rows, strict=True)]
    assert vectorised == per_record


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.none() | st.sampled_from(ORDERING_TYPES["float64"][1]), min_size=3, max_size=3))
def test_the_order_is_total_and_transitive(values: list[float | None]) -> None:
    a, b, c = ((v,) for v in values)
    assert compare_ordering_values(a, b) == -compare_ordering_values(b, a)
    if compare_ordering_values(a, b) <= 0 and compare_ordering_values(b, c) <= 0:
        assert compare_ordering_values(a, c) <= 0
