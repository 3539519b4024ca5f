"""Sort orders for layout optimization: linear, z-order and Hilbert (layout/space_curves.py).

Properties: linear is pyarrow's sort with nulls first (NaN last, as Spark); a curve over one column
is that column's linear order; a z-order position never decreases in one column while the others
stay fixed; the Hilbert position is a bijection on a grid whose consecutive positions are grid
neighbours (2 and 3 dimensions); every supported type and nulls; typed errors; determinism.
"""

from __future__ import annotations

import datetime
import decimal
import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.errors import (
    HudiError,
    LayoutOptimizationError,
    UnknownLayoutStrategyError,
    UnknownSortColumnError,
    UnsupportedSortColumnTypeError,
)
from hudi_framework.layout.curve_bits import order_of_words
from hudi_framework.layout.curve_keys import sample_coordinates
from hudi_framework.layout.space_curves import curve_order, curve_positions, layout_strategy
from tests.hypothesis_budget import examples

CURVES = ("z-order", "hilbert")
STRATEGIES = ("linear", *CURVES)
METHODS = ("direct", "sample")

_UTC = datetime.UTC


def _decimals(texts: list[str | None], kind: pa.DataType) -> pa.Array:
    return pa.array([None if t is None else decimal.Decimal(t) for t in texts], kind)


_DATES = [
    datetime.date(2020, 1, 1),
    datetime.date(1960, 5, 1),
    None,
    datetime.date(1970, 1, 1),
    datetime.date(1, 1, 1),
    datetime.date(9999, 12, 31),
    datetime.date(2020, 1, 2),
    datetime.date(2020, 1, 1),
]

#: One column of every supported type, with nulls, several rows per value range.
TYPED_COLUMNS: dict[str, pa.Array] = {
    "int8": pa.array([3, -1, None, 5, -128, 127, 0, 3], pa.int8()),
    "int16": pa.array([300, -1, None, 5, -32768, 32767, 0, 300], pa.int16()),
    "int32": pa.array([3, -1, None, 5, -(2**31), 2**31 - 1, 0, 3], pa.int32()),
    "int64": pa.array([3, -1, None, 5, -(2**63), 2**63 - 1, 0, 3], pa.int64()),
    "uint8": pa.array([3, 1, None, 5, 0, 255, 0, 3], pa.uint8()),
    "uint32": pa.array([3, 1, None, 5, 0, 2**32 - 1, 0, 3], pa.uint32()),
    "uint64": pa.array([3, 1, None, 5, 0, 2**64 - 1, 0, 3], pa.uint64()),
    "float16": pa.array([1.5, -2.0, None, 0.0, -0.5, 65504.0, 0.25, 1.5], pa.float32()).cast(pa.float16()),
    "float32": pa.array([1.5, -2.0, None, 0.0, -1e30, 3e38, 0.25, 1.5], pa.float32()),
    "float64": pa.array([1.5, -2.0, None, -0.0, -math.inf, math.inf, 1e-300, 1.5], pa.float64()),
    "decimal128": _decimals(["1.25", "-2.50", None, "0", "-99.99", "99.99", "1.24", "1.25"], pa.decimal128(4, 2)),
    "decimal128_wide": _decimals(["1e30", "-1e30", None, "0", "-5.5", "5.5", "1e20", "1e30"], pa.decimal128(38, 2)),
    "decimal256": _decimals(["1.5", "-2", None, "0", "-1e60", "1e60", "0.5", "1.5"], pa.decimal256(70, 2)),
    "string": pa.array(["b", "ab", None, "", "abcdefghij", "abcdefghi", "é", "b"]),
    "large_string": pa.array(["b", "ab", None, "", "abcdefghij", "abcdefghi", "é", "b"], pa.large_string()),
    "binary": pa.array([b"\xff", b"a", None, b"", b"\x00\x00", b"\x00", b"\x80x", b"\xff"]),
    "large_binary": pa.array([b"\xff", b"a", None, b"", b"\x00\x00", b"\x00", b"\x80x", b"\xff"], pa.large_binary()),
    "fixed_binary": pa.array([b"ab", b"aa", None, b"zz", b"\x00\x00", b"\xff\xff", b"b\x00", b"ab"], pa.binary(2)),
    "date32": pa.array(_DATES),
    "date64": pa.array(_DATES).cast(pa.date64()),
    "timestamp_us": pa.array([5_000, -3_000, None, 0, -(2**62), 2**62, 1_000, 5_000], pa.timestamp("us")),
    "timestamp_ns_utc": pa.array(
        [5_000_000, -3_000_000, None, 0, -(2**62), 2**62, 10**6, 5_000_000], pa.timestamp("ns", tz="UTC")
    ),
    "timestamp_s": pa.array([5, -3, None, 0, -(2**40), 2**40, 1, 5], pa.timestamp("s")),
    "timestamp_ms": pa.array([5, -3, None, 0, -(2**50), 2**50, 1, 5], pa.timestamp("ms", tz="Asia/Tokyo")),
    "boolean": pa.array([True, False, None, True, False, True, False, True]),
    "dictionary": pa.array(["x", "a", None, "x", "b", "zz", "a", "x"]).dictionary_encode(),
    "string_view": pa.array(["b", "ab", None, "", "abcdefghij", "abcdefghi", "é", "b"], pa.string_view()),
    "binary_view": pa.array([b"\xff", b"a", None, b"", b"\x00\x00", b"\x00", b"\x80x", b"\xff"], pa.binary_view()),
}


_BYTE_LIKE = {
    "string",
    "large_string",
    "binary",
    "large_binary",
    "fixed_binary",
    "dictionary",
    "string_view",
    "binary_view",
}


def _positions(words: list[npt.NDArray[np.uint64]]) -> list[int]:
    """Each row's curve position as one Python integer."""
    result = [0] * len(words[0])
    for word in words:
        result = [(p << 64) | int(w) for p, w in zip(result, word.tolist(), strict=True)]
    return result


def _linear_reference(table: pa.Table, columns: list[str]) -> list[int]:
    """pyarrow's stable sort, ascending, nulls first."""
    keys = [(name, "ascending", "at_start") for name in columns]
    return list(pc.sort_indices(table, sort_keys=keys).to_pylist())


def _sort_key(value: Any) -> tuple[int, Any]:
    """Nulls before every value (Python's None does not compare)."""
    return (0, 0) if value is None else (1, value)


# ---------------------------------------------------------------- linear


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
            st.one_of(st.none(), st.text(max_size=12)),
            st.one_of(st.none(), st.floats(allow_nan=False)),
        ),
        max_size=40,
    ),
    st.permutations(["i", "s", "f"]),
)
def test_linear_is_pyarrow_sort_indices_nulls_first(rows: list[tuple[Any, Any, Any]], columns: list[str]) -> None:
    table = pa.table(
        {
            "i": pa.array([r[0] for r in rows], pa.int64()),
            "s": pa.array([r[1] for r in rows], pa.string()),
            "f": pa.array([r[2] for r in rows], pa.float64()),
        }
    )
    got = curve_order(table, columns, "linear")
    assert got.type == pa.uint64()
    assert got.to_pylist() == _linear_reference(table, columns)


def test_linear_puts_nulls_first_and_nan_after_every_number_as_spark() -> None:
    table = pa.table({"f": pa.array([1.0, None, math.nan, -math.inf, None, math.inf, -1.0])})
    order = curve_order(table, ["f"], "linear").to_pylist()
    assert order == [1, 4, 3, 6, 0, 5, 2]


def test_linear_sorts_by_later_columns_within_ties() -> None:
    table = pa.table({"a": [2, 1, 2, 1, None], "b": ["y", "z", "x", None, "q"]})
    assert curve_order(table, ["a", "b"], "linear").to_pylist() == [4, 3, 1, 2, 0]


# ---------------------------------------------------------------- one column: a curve is the linear order


@pytest.mark.parametrize("strategy", CURVES)
@pytest.mark.parametrize("name", sorted(TYPED_COLUMNS))
def test_a_curve_over_one_column_is_its_linear_order(strategy: str, name: str) -> None:
    table = pa.table({name: TYPED_COLUMNS[name]})
    linear = curve_order(table, [name], "linear").to_pylist()
    assert curve_order(table, [name], strategy).to_pylist() == linear
    assert curve_order(table, [name], strategy, build_method="sample").to_pylist() == linear


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)), max_size=50), st.sampled_from(METHODS))
def test_z_order_with_the_other_column_constant_is_the_linear_order(values: list[int | None], method: str) -> None:
    # On a Z-order curve a constant column adds the same bits to every position: the order is
    # the varying column's, nulls first, ties in input order (a stable sort).
    table = pa.table({"a": pa.array(values, pa.int64()), "b": pa.array([7] * len(values), pa.int64())})
    got = curve_order(table, ["a", "b"], "z-order", build_method=method).to_pylist()
    assert got == _linear_reference(table, ["a"])


# ---------------------------------------------------------------- z-order is monotone in each column


_VALUE_STRATEGIES: dict[str, tuple[pa.DataType, st.SearchStrategy[Any]]] = {
    "int64": (pa.int64(), st.integers(-(2**63), 2**63 - 1)),
    "int32": (pa.int32(), st.integers(-(2**31), 2**31 - 1)),
    "int8": (pa.int8(), st.integers(-128, 127)),
    "uint64": (pa.uint64(), st.integers(0, 2**64 - 1)),
    "float64": (pa.float64(), st.floats(allow_nan=False)),
    "float32": (pa.float32(), st.floats(allow_nan=False, width=32)),
    "string": (pa.string(), st.text(max_size=12)),
    "binary": (pa.binary(), st.binary(max_size=12)),
    "decimal": (pa.decimal128(38, 3), st.decimals(min_value=-(10**34), max_value=10**34, places=3)),
    "date32": (pa.date32(), st.dates()),
    "timestamp": (pa.timestamp("us", tz="UTC"), st.datetimes(timezones=st.just(_UTC))),
    "boolean": (pa.bool_(), st.booleans()),
}


@st.composite
def _two_column_tables(draw: st.DrawFn) -> tuple[pa.Table, str]:
    kind_a = draw(st.sampled_from(sorted(_VALUE_STRATEGIES)))
    kind_b = draw(st.sampled_from(sorted(_VALUE_STRATEGIES)))
    type_a, values_a = _VALUE_STRATEGIES[kind_a]
    type_b, values_b = _VALUE_STRATEGIES[kind_b]
    n = draw(st.integers(1, 25))
    a = draw(st.lists(st.one_of(st.none(), values_a), min_size=n, max_size=n))
    # Few distinct values of b, so that many pairs of rows share one.
    b_values = draw(st.lists(st.one_of(st.none(), values_b), min_size=1, max_size=3))
    b = draw(st.lists(st.sampled_from(b_values), min_size=n, max_size=n))
    method = draw(st.sampled_from(METHODS))
    return pa.table({"a": pa.array(a, type_a), "b": pa.array(b, type_b)}), method


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_two_column_tables(), st.booleans())
def test_z_order_position_never_decreases_in_a_column_while_the_other_is_fixed(
    drawn: tuple[pa.Table, str], swap: bool
) -> None:
    table, method = drawn
    columns = ["b", "a"] if swap else ["a", "b"]
    positions = _positions(curve_positions(table, columns, "z-order", build_method=method))
    a = table.column("a").to_pylist()
    b = table.column("b").to_pylist()
    for i, j in itertools.permutations(range(table.num_rows), 2):
        if b[i] == b[j] and _sort_key(a[i]) < _sort_key(a[j]):
            assert positions[i] <= positions[j], (a[i], a[j], b[i])


def test_z_order_position_is_the_bits_interleaved_first_column_first() -> None:
    # Apache Hudi's BinaryUtil.interleaving: most significant bits first, the first column's bit first.
    grid = list(itertools.product(range(8), repeat=2))
    table = pa.table({"x": [p[0] for p in grid], "y": [p[1] for p in grid]})
    positions = _positions(curve_positions(table, ["x", "y"], "z-order"))

    def morton(x: int, y: int) -> int:
        return sum((((x >> s) & 1) << (2 * s + 1)) | (((y >> s) & 1) << (2 * s)) for s in range(3))

    assert positions == [morton(x, y) for x, y in grid]


# ---------------------------------------------------------------- Hilbert: bijection, neighbours


@pytest.mark.parametrize(("dimensions", "bits"), [(2, 1), (2, 2), (2, 4), (3, 1), (3, 2), (3, 3)])
def test_hilbert_is_a_bijection_on_the_grid_and_steps_to_a_neighbour(dimensions: int, bits: int) -> None:
    side = 1 << bits
    grid = list(itertools.product(range(side), repeat=dimensions))
    shuffled = np.random.default_rng(dimensions * 10 + bits).permutation(len(grid))
    points = [grid[i] for i in shuffled]
    names = [f"c{j}" for j in range(dimensions)]
    table = pa.table({name: pa.array([p[j] for p in points], pa.int32()) for j, name in enumerate(names)})

    positions = _positions(curve_positions(table, names, "hilbert"))
    assert sorted(positions) == list(range(side**dimensions))

    order = curve_order(table, names, "hilbert").to_pylist()
    walk = [points[i] for i in order]
    assert walk[0] == (0,) * dimensions  # the curve starts at the origin
    for here, there in itertools.pairwise(walk):
        assert sum(abs(p - q) for p, q in zip(here, there, strict=True)) == 1, (here, there)


@settings(max_examples=60, deadline=None)
@given(st.sets(st.tuples(st.integers(-(2**63), 2**63 - 1), st.integers(-(2**31), 2**31 - 1)), max_size=40))
def test_distinct_points_get_distinct_positions_on_both_curves(points: set[tuple[int, int]]) -> None:
    a = pa.array([p[0] for p in points], pa.int64())
    table = pa.table({"a": a, "b": pa.array([p[1] for p in points], pa.int32())})
    for strategy in CURVES:
        positions = _positions(curve_positions(table, ["a", "b"], strategy))
        assert len(set(positions)) == len(points)


# ---------------------------------------------------------------- every type, nulls


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_supported_type_sorts_as_a_permutation(strategy: str, method: str) -> None:
    table = pa.table(TYPED_COLUMNS)
    for name in TYPED_COLUMNS:
        order = curve_order(table, [name, "int32"], strategy, build_method=method).to_pylist()
        assert sorted(order) == list(range(table.num_rows)), name
    everything = curve_order(table, list(TYPED_COLUMNS), strategy, build_method=method).to_pylist()
    assert sorted(everything) == list(range(table.num_rows))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", sorted(TYPED_COLUMNS))
def test_z_order_keeps_each_type_in_order_along_its_axis(name: str, method: str) -> None:
    # The other column constant: rows come out in the column's own order (nulls first), which
    # checks the mapping of every type to its coordinate (sign bits, IEEE order, byte prefixes...).
    column = TYPED_COLUMNS[name]
    table = pa.table({"v": column, "k": pa.array([1] * len(column), pa.int64())})
    order = curve_order(table, ["v", "k"], "z-order", build_method=method)
    if name in ("string_view", "binary_view"):  # pyarrow cannot take from views
        column = column.cast(pa.large_string() if name == "string_view" else pa.large_binary())
    ordered = column.take(order)
    plain = ordered.cast(column.type.value_type) if pa.types.is_dictionary(column.type) else ordered
    if pa.types.is_float16(column.type):
        plain = plain.cast(pa.float32())
    if pa.types.is_timestamp(column.type):  # beyond Python's datetime range: compare the integers
        plain = plain.cast(pa.int64())
    values = plain.to_pylist()
    if name in _BYTE_LIKE:
        # Strings and binaries map by their first 8 bytes: longer values tie on that prefix.
        def prefix(v: str | bytes | None) -> tuple[int, Any]:
            raw = v.encode() if isinstance(v, str) else v
            return _sort_key(None if raw is None else raw[:8].ljust(8, b"\0"))

        assert values == sorted(values, key=prefix), name
    else:
        assert values == sorted(values, key=_sort_key), name


def test_nulls_come_first_on_every_curve_axis() -> None:
    table = pa.table({"a": pa.array([5, None, -(2**63), 7, None], pa.int64()), "b": pa.array([1] * 5, pa.int64())})
    for strategy in CURVES:
        for method in METHODS:
            order = curve_order(table, ["a", "b"], strategy, build_method=method).to_pylist()
            assert order[:2] == [1, 4], (strategy, method)


def test_all_null_and_null_typed_columns_sort() -> None:
    table = pa.table({"n": pa.nulls(4), "m": pa.array([None] * 4, pa.int64()), "x": [3, 1, 2, 0]})
    for strategy in STRATEGIES:
        for method in METHODS:
            assert curve_order(table, ["n", "m", "x"], strategy, build_method=method).to_pylist() == [3, 1, 2, 0]


# ---------------------------------------------------------------- determinism, chunks, sizes


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_order_is_deterministic_and_independent_of_chunking(strategy: str, method: str) -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(-1000, 1000, 3000)
    b = rng.choice(["x", "y", "zz", "é", ""], 3000)
    table = pa.table({"a": a, "b": b})
    chunked = pa.concat_tables([table.slice(0, 1000), table.slice(1000, 1500), table.slice(2500)])
    first = curve_order(table, ["a", "b"], strategy, build_method=method, sample_size=50)
    assert curve_order(table, ["a", "b"], strategy, build_method=method, sample_size=50).equals(first)
    assert curve_order(chunked, ["a", "b"], strategy, build_method=method, sample_size=50).equals(first)


def test_sliced_arrays_map_their_own_values() -> None:
    # Arrays with an offset into their buffers (slices) must read their own rows' bytes.
    base = pa.table(
        {
            "s": pa.array(["zz", "a", "b", "c", "d"]),
            "d": _decimals(["9", "1", "3", "2", "0"], pa.decimal128(5, 0)),
            "f": pa.array([b"zz", b"aa", b"cc", b"bb", b"dd"], pa.binary(2)),
        }
    )
    sliced = base.slice(1).combine_chunks()
    for name in ("s", "d", "f"):
        table = pa.table({"v": sliced.column(name), "k": pa.array([0] * 4)})
        ordered = table.column("v").take(curve_order(table, ["v", "k"], "z-order")).to_pylist()
        assert ordered == sorted(ordered), name


def test_empty_table_and_no_columns() -> None:
    empty = pa.table({"a": pa.array([], pa.int64()), "b": pa.array([], pa.string())})
    for strategy in STRATEGIES:
        assert curve_order(empty, ["a", "b"], strategy).to_pylist() == []
    table = pa.table({"a": [3, 1, 2]})
    assert curve_order(table, [], "z-order").to_pylist() == [0, 1, 2]


def test_the_sample_build_method_balances_columns_of_different_ranges() -> None:
    # direct: a column spanning 2**40 values owns the curve's first 33 levels over one spanning
    # 2**7, so files cut from the order are narrow in the wide column only; sample ranks both.
    rng = np.random.default_rng(3)
    n = 20_000
    table = pa.table({"wide": rng.integers(0, 2**40, n), "narrow": rng.integers(0, 128, n)})

    def mean_narrow_span(method: str) -> float:
        ordered = table.take(curve_order(table, ["wide", "narrow"], "z-order", build_method=method))
        spans = [
            pc.max(chunk).as_py() - pc.min(chunk).as_py()
            for chunk in (ordered.column("narrow").slice(i, n // 16) for i in range(0, n, n // 16))
        ]
        return float(np.mean(spans))

    assert mean_narrow_span("direct") > 120
    assert mean_narrow_span("sample") < 0.5 * mean_narrow_span("direct")


# ---------------------------------------------------------------- errors


def test_unknown_strategy_names_the_option() -> None:
    table = pa.table({"a": [1, 2]})
    with pytest.raises(UnknownLayoutStrategyError) as info:
        curve_order(table, ["a"], "peano")
    err = info.value
    assert isinstance(err, LayoutOptimizationError)
    assert isinstance(err, HudiError)
    assert isinstance(err, ValueError)
    assert err.option == "hoodie.layout.optimize.strategy"
    assert err.value == "peano"
    assert "hoodie.layout.optimize.strategy" in str(err)
    assert "z-order" in str(err)


def test_unknown_build_method_and_bad_sample_size_name_their_options() -> None:
    table = pa.table({"a": [1, 2], "b": [2, 1]})
    with pytest.raises(UnknownLayoutStrategyError, match=r"hoodie\.layout\.optimize\.curve\.build\.method"):
        curve_order(table, ["a", "b"], "z-order", build_method="guess")
    for size in (0, -5, True):
        with pytest.raises(UnknownLayoutStrategyError, match=r"hoodie\.layout\.optimize\.build\.curve\.sample\.size"):
            curve_order(table, ["a", "b"], "hilbert", build_method="sample", sample_size=size)


def test_linear_has_no_curve_positions() -> None:
    with pytest.raises(UnknownLayoutStrategyError, match="z-order, hilbert"):
        curve_positions(pa.table({"a": [1]}), ["a"], "linear")


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_missing_column_is_named(strategy: str) -> None:
    table = pa.table({"a": [1, 2], "b": [3, 4]})
    with pytest.raises(UnknownSortColumnError) as info:
        curve_order(table, ["a", "rider"], strategy)
    assert info.value.column == "rider"
    assert info.value.available == ("a", "b")
    assert isinstance(info.value, KeyError)
    assert "'rider'" in str(info.value)


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(
    "column",
    [
        pa.array([{"x": 1}, {"x": 2}]),
        pa.array([[1], [2, 3]]),
        pa.array([[("k", 1)], [("k", 2)]], pa.map_(pa.string(), pa.int64())),
    ],
    ids=["struct", "list", "map"],
)
def test_unsupported_types_are_refused_naming_the_column(strategy: str, column: pa.Array) -> None:
    table = pa.table({"nested": column, "a": [1, 2]})
    with pytest.raises(UnsupportedSortColumnTypeError) as info:
        curve_order(table, ["a", "nested"], strategy)
    assert info.value.column == "nested"
    assert info.value.strategy == strategy
    assert isinstance(info.value, TypeError)
    assert "'nested'" in str(info.value)


@pytest.mark.parametrize(
    "column",
    [pa.array([2, None, 1, 0], pa.time64("us")), pa.array([5, None, 3, -9], pa.duration("ms"))],
    ids=["time", "duration"],
)
def test_time_of_day_and_durations_sort_by_their_integers(column: pa.Array) -> None:
    table = pa.table({"v": column, "k": pa.array([0] * 4)})
    for strategy in STRATEGIES:
        for method in METHODS:
            assert curve_order(table, ["v", "k"], strategy, build_method=method).to_pylist() == [1, 3, 2, 0]


def test_strategy_spellings_are_apache_hudis() -> None:
    # HoodieClusteringConfig.resolveLayoutOptimizationStrategy: "z-order" or an upper-cased enum name.
    assert layout_strategy("z-order") == "z-order"
    assert layout_strategy("ZORDER") == "z-order"
    assert layout_strategy("Hilbert") == "hilbert"
    assert layout_strategy("LINEAR") == "linear"
    table = pa.table({"a": [2, 1, 3], "b": [1, 1, 1]})
    assert curve_order(table, ["a", "b"], "HILBERT").to_pylist() == [1, 0, 2]
    with pytest.raises(UnknownLayoutStrategyError):
        layout_strategy(3)  # type: ignore[arg-type]


def test_sample_coordinates_are_ranks_among_equal_weight_boundaries() -> None:
    # 100 rows, sample size 5: every row sampled (20 per boundary asked), boundaries at every 20th
    # value, so a value's rank is value // 20; a column of two values has ranks 0 and 1, spread by
    # the ratio of the widest rank (4) so both axes span the same range.
    values = pa.array(np.arange(100))
    flags = pa.array(np.arange(100) % 2 == 1)
    wide, narrow = sample_coordinates([values, flags], sample_size=5)
    assert wide.tolist() == [v // 20 for v in range(100)]
    assert narrow.tolist() == [4 * (v % 2) for v in range(100)]
    with_nulls = pa.array([None if v % 10 == 0 else v for v in range(100)], pa.int64())
    (ranked,) = sample_coordinates([with_nulls], sample_size=5)
    assert [r for v, r in zip(with_nulls.to_pylist(), ranked.tolist(), strict=True) if v is None] == [0] * 10
    assert min(r for v, r in zip(with_nulls.to_pylist(), ranked.tolist(), strict=True) if v is not None) == 1


@settings(max_examples=80, deadline=None)
@given(st.data(), st.integers(1, 200), st.integers(1, 3))
def test_sorting_by_words_is_a_stable_lexicographic_sort(data: st.DataObject, bits: int, rows: int) -> None:
    # The leading 64 bits decide first and only their ties are sorted by the whole position: the
    # result must be numpy's stable lexicographic sort of the words, with heavy ties drawn too.
    n_words = -(-bits // 64)
    used = bits - 64 * (n_words - 1)
    small = data.draw(st.booleans())
    n = data.draw(st.integers(0, 40 * rows))

    def word(top: int) -> npt.NDArray[np.uint64]:
        values = data.draw(st.lists(st.integers(0, min(2, top - 1) if small else top - 1), min_size=n, max_size=n))
        return np.array(values, dtype=np.uint64)

    words = [word(1 << used), *(word(1 << 64) for _ in range(n_words - 1))]
    expected = np.lexsort(list(reversed(words))) if n else np.zeros(0, dtype=np.int64)
    assert order_of_words(words, bits).tolist() == expected.tolist()


@pytest.mark.parametrize("offset", [1 << 20, -(1 << 40), 3 << 61])
def test_hilbert_steps_to_a_neighbour_on_a_grid_away_from_the_origin(offset: int) -> None:
    # Coordinates share their leading bits (dropped before the transform): an aligned grid far from
    # zero, negative numbers included, is still walked cell to neighbouring cell.
    grid = list(itertools.product(range(8), repeat=2))
    table = pa.table({"a": pa.array([offset + p[0] for p in grid]), "b": pa.array([offset + p[1] for p in grid])})
    walk = [grid[i] for i in curve_order(table, ["a", "b"], "hilbert").to_pylist()]
    assert sorted(walk) == sorted(grid)
    for here, there in itertools.pairwise(walk):
        assert abs(here[0] - there[0]) + abs(here[1] - there[1]) == 1, (here, there)


def _java_z_value(values: list[int], widths: list[int]) -> int:
    """Apache Hudi's direct Z-value of one row, spelled out bit by bit as ``SpaceCurveSortingHelper``
    builds it: ``intTo8Byte`` / ``longTo8Byte`` (sign bit flipped, an int in the low 4 bytes), then
    ``BinaryUtil.interleaving(bytes, 8)``: bit 0 (most significant) of each column, then bit 1..."""
    keys = [
        (v ^ (1 << 31)) & 0xFFFFFFFF if width == 32 else (v ^ (1 << 63)) & ((1 << 64) - 1)
        for v, width in zip(values, widths, strict=True)
    ]
    z = 0
    for bit in range(64):
        for key in keys:
            z = (z << 1) | ((key >> (63 - bit)) & 1)
    return z


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from([32, 64]), min_size=2, max_size=3), st.data())
def test_z_order_of_integers_is_apache_hudis_direct_z_order(widths: list[int], data: st.DataObject) -> None:
    n = data.draw(st.integers(0, 40))
    columns = {
        f"c{j}": data.draw(
            st.lists(st.integers(-(2 ** (w - 1)), 2 ** (w - 1) - 1) | st.integers(-8, 8), min_size=n, max_size=n)
        )
        for j, w in enumerate(widths)
    }
    table = pa.table(
        {
            name: pa.array(v, pa.int32() if w == 32 else pa.int64())
            for (name, v), w in zip(columns.items(), widths, strict=True)
        }
    )
    rows = list(zip(*columns.values(), strict=True)) if n else []
    expected = sorted(range(n), key=lambda i: _java_z_value(list(rows[i]), widths))
    assert curve_order(table, list(columns), "z-order").to_pylist() == expected
