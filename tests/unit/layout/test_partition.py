"""Partition-path encoding: Java's escaping, hive style, default partition, scalar = vectorised."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.contracts.partition_path import (
    DEFAULT_PARTITION_PATH,
    PartitionPathError,
    PartitionPathFormat,
    check_partition_path,
    escape_path_name,
    render_partition_value,
    unescape_path_name,
)
from hudi_framework.contracts.reserved_paths import segment_problem
from hudi_framework.errors import UnsafePartitionPathError

ESCAPED = "\x00\x01\x1f\"#%'*/:=?\\\x7f{[]^"


def test_escape_matches_java_escape_set() -> None:
    assert escape_path_name("a b") == "a b"
    assert escape_path_name("2024/01/15") == "2024%2F01%2F15"
    assert escape_path_name("100%") == "100%25"
    assert escape_path_name("x=1:y") == "x%3D1%3Ay"
    assert escape_path_name("\x00\x1f\x7f") == "%00%1F%7F"
    assert escape_path_name("é{}") == "é%7B}"  # '}' and non-ASCII are not escaped
    for ch in ESCAPED:
        assert escape_path_name(ch) == f"%{ord(ch):02X}"
    for code in range(0x20, 0x7F):
        if chr(code) not in ESCAPED:
            assert escape_path_name(chr(code)) == chr(code)


def test_unescape_mirrors_java_quirks() -> None:
    assert unescape_path_name("2024%2F01%2f15") == "2024/01/15"
    assert unescape_path_name("100%") == "100%"  # too short: kept
    assert unescape_path_name("100%2") == "100%2"
    assert unescape_path_name("%zz") == "%zz"
    assert unescape_path_name("%+1") == "\x01"  # Integer.parseInt("+1", 16)
    assert unescape_path_name("%-0") == "\x00"
    assert unescape_path_name("%-1x") == "%-1x"  # negative: kept
    assert unescape_path_name("% 1") == "% 1"


@given(st.text())
def test_escape_round_trip(value: str) -> None:
    assert unescape_path_name(escape_path_name(value)) == value


def test_render_values() -> None:
    assert render_partition_value(None) is None
    assert render_partition_value("") is None
    assert render_partition_value(True) == "true"
    assert render_partition_value(10) == "10"
    assert render_partition_value(dt.date(2024, 1, 5)) == "2024-01-05"
    with pytest.raises(PartitionPathError, match="float"):
        render_partition_value(1.5)
    with pytest.raises(PartitionPathError, match="datetime"):
        render_partition_value(dt.datetime(2024, 1, 1))


@pytest.mark.parametrize(
    ("fmt", "values", "path"),
    [
        (
            PartitionPathFormat(("byteField", "shortField"), hive_style=True),
            (10, 300),
            "byteField=10/shortField=300",
        ),
        (PartitionPathFormat(("city",), hive_style=True), ("chennai",), "city=chennai"),
        (PartitionPathFormat(("byteField",)), (30,), "30"),
        (PartitionPathFormat(("ts",)), ("2024/01/15/11",), "2024/01/15/11"),
        (PartitionPathFormat(("ts",), url_encode=True), ("2024/01/15",), "2024%2F01%2F15"),
        (
            PartitionPathFormat(("a", "b"), hive_style=True),
            (None, ""),
            f"a={DEFAULT_PARTITION_PATH}/b={DEFAULT_PARTITION_PATH}",
        ),
        (PartitionPathFormat(("a",), url_encode=True), (None,), DEFAULT_PARTITION_PATH),
        (PartitionPathFormat(), (), ""),
    ],
)
def test_encode_examples(fmt: PartitionPathFormat, values: tuple[object, ...], path: str) -> None:
    assert fmt.encode(values) == path
    decoded = fmt.decode(path)
    assert decoded == tuple(render_partition_value(v) for v in values)


def test_decode_hive_style_with_slashes_in_values() -> None:
    fmt = PartitionPathFormat(("ts", "region"), hive_style=True)
    assert fmt.decode("ts=2024/01/15/region=eu") == ("2024/01/15", "eu")
    assert fmt.decode("ts=x/region=a/b") == ("x", "a/b")
    with pytest.raises(PartitionPathError):
        fmt.decode("region=eu/ts=1")
    with pytest.raises(PartitionPathError):
        fmt.decode("ts=1")


def test_decode_errors() -> None:
    with pytest.raises(PartitionPathError):
        PartitionPathFormat(("a", "b")).decode("only-one")
    with pytest.raises(PartitionPathError):
        PartitionPathFormat().decode("x")
    assert PartitionPathFormat(("a",)).decode("%2F") == ("%2F",)  # not url-encoded: kept


def test_encode_rejects_bad_input() -> None:
    fmt = PartitionPathFormat(("a",))
    with pytest.raises(PartitionPathError, match="expected 1 values"):
        fmt.encode((1, 2))
    for bad in ("..", "x/../y", "/x", "x/", ".", "a//b"):
        with pytest.raises(PartitionPathError, match="segment"):
            fmt.encode((bad,))
        with pytest.raises(PartitionPathError, match="segment"):
            fmt.encode_arrays([pa.array(["ok", bad])])
    # url-encoding neutralises slashes, but a whole ".." value is still a traversal.
    assert PartitionPathFormat(("a",), url_encode=True).encode(("x/../y",)) == "x%2F..%2Fy"
    with pytest.raises(PartitionPathError):
        PartitionPathFormat(("a",), url_encode=True).encode(("..",))
    assert check_partition_path("a/b..c") == "a/b..c"


def test_encode_arrays_types_and_chunks() -> None:
    fmt = PartitionPathFormat(("s", "i", "b", "d"), hive_style=True, url_encode=True)
    cols = [
        pa.chunked_array([pa.array(["a/b", None]), pa.array(["", "x"])]),
        pa.chunked_array([pa.array([1, 2], pa.int8()), pa.array([None, -4], pa.int8())]),
        pa.chunked_array([pa.array([True, False, None, True])]),
        pa.chunked_array([pa.array([dt.date(2024, 1, 2)] * 4)]),
    ]
    out = fmt.encode_arrays(cols)
    rows = list(zip(*(c.to_pylist() for c in cols), strict=True))
    assert out.to_pylist() == [fmt.encode(r) for r in rows]
    assert out.to_pylist()[0] == "s=a%2Fb/i=1/b=true/d=2024-01-02"
    dictionary = pa.array(["eu", "us", "eu"]).dictionary_encode()
    assert PartitionPathFormat(("r",)).encode_arrays([dictionary]).to_pylist() == ["eu", "us", "eu"]
    with pytest.raises(PartitionPathError, match="double"):
        PartitionPathFormat(("f",)).encode_arrays([pa.array([1.5])])
    with pytest.raises(PartitionPathError, match="columns"):
        fmt.encode_arrays(cols[:1])
    with pytest.raises(PartitionPathError):
        PartitionPathFormat().encode_arrays([])


values = st.one_of(st.none(), st.text(max_size=12), st.integers(-(2**40), 2**40), st.booleans())


@given(
    rows=st.lists(st.tuples(values, values), min_size=1, max_size=30),
    hive_style=st.booleans(),
)
def test_vectorised_equals_scalar_with_url_encoding(rows: list[tuple[object, object]], hive_style: bool) -> None:
    fmt = PartitionPathFormat(("p", "q"), hive_style=hive_style, url_encode=True)
    # One column per field, each of one type (Arrow arrays are typed): render to strings first.
    cols = [pa.array([render_partition_value(r[i]) for r in rows], pa.string()) for i in range(2)]
    scalar: list[str | None] = []
    for row in rows:
        try:
            scalar.append(fmt.encode(row))
        except PartitionPathError:
            scalar.append(None)
    if None in scalar:
        with pytest.raises(PartitionPathError):
            fmt.encode_arrays(cols)
    else:
        assert fmt.encode_arrays(cols).to_pylist() == scalar


@given(
    parts=st.lists(st.one_of(st.none(), st.text(max_size=12)), min_size=1, max_size=4),
    hive_style=st.booleans(),
)
def test_url_encoded_round_trip(parts: list[str | None], hive_style: bool) -> None:
    fields = tuple(f"f{i}" for i in range(len(parts)))
    fmt = PartitionPathFormat(fields, hive_style=hive_style, url_encode=True)
    try:
        path = fmt.encode(parts)
    except PartitionPathError:
        # Escaped values hold no "/": only a whole value can be a refused segment, never behind "f=".
        assert not hive_style
        assert any(p and segment_problem(p) is not None for p in parts)
        return
    expected = tuple(None if p in (None, "", DEFAULT_PARTITION_PATH) else p for p in parts)
    assert fmt.decode(path) == expected


@given(
    parts=st.lists(
        st.from_regex(r"[A-Za-z0-9_ ,.-]{1,10}", fullmatch=True).filter(lambda s: segment_problem(s) is None),
        min_size=1,
        max_size=4,
    ),
    hive_style=st.booleans(),
)
def test_plain_round_trip(parts: list[str], hive_style: bool) -> None:
    fields = tuple(f"f{i}" for i in range(len(parts)))
    fmt = PartitionPathFormat(fields, hive_style=hive_style)
    assert fmt.decode(fmt.encode(parts)) == tuple(parts)


def test_encode_arrays_high_and_low_cardinality_paths_agree() -> None:
    n = 10_000
    fmt = PartitionPathFormat(("id", "region"), hive_style=True, url_encode=True)
    ids = pa.array([f"k/{i}" if i % 7 else None for i in range(n)])  # mostly distinct: direct path
    regions = pa.array(["eu", "us/x", "", None][i % 4] for i in range(n))  # few distinct: dictionary path
    out = fmt.encode_arrays([ids, regions]).to_pylist()
    for i in (0, 1, 2, 3, 4999, 9999):
        assert out[i] == fmt.encode((ids[i].as_py(), regions[i].as_py()))
    with pytest.raises(PartitionPathError, match="segment"):
        PartitionPathFormat(("id",)).encode_arrays([pa.array([f"{i}/" for i in range(n)])])


@pytest.mark.parametrize("hive_style", [False, True])
@pytest.mark.parametrize(
    ("value", "segment"),
    [
        (".hoodie", ".hoodie"),
        ("x/.hoodie/y", ".hoodie"),
        (".hoodie_partition_metadata", ".hoodie_partition_metadata"),
        ("a/.hoodie_partition_metadata.parquet", ".hoodie_partition_metadata.parquet"),
        ("a/../b", ".."),
        ("a//b", ""),
    ],
)
def test_reserved_segments_name_the_field_and_value(value: str, segment: str, hive_style: bool) -> None:
    fmt = PartitionPathFormat(("city", "p"), hive_style=hive_style)
    if hive_style and "/" not in value:
        assert fmt.encode((value, "x")) == f"city={value}/p=x"  # behind "city=": a plain segment
        return
    for attempt in (
        lambda: fmt.encode(("ok", value)),
        lambda: fmt.encode_arrays([pa.array(["ok"]), pa.array([value])]),
    ):
        with pytest.raises(UnsafePartitionPathError) as info:
            attempt()
        err = info.value
        assert (err.field, err.value, err.segment) == ("p", value, segment)
        assert err.path == (f"p={value}" if hive_style else value)
        assert "hoodie.datasource.write.hive_style_partitioning=true" in str(err)


def test_hidden_names_that_are_not_reserved_are_kept() -> None:
    fmt = PartitionPathFormat(("p",))
    for value in (".net", "x/.y", ".hoodiex", ".hoodie_partition_metadataX", "_hoodie", "..."):
        assert fmt.encode((value,)) == value
        assert fmt.encode_arrays([pa.array([value])]).to_pylist() == [value]
    assert check_partition_path(".net/x") == ".net/x"
    with pytest.raises(PartitionPathError, match="metadata folder"):
        check_partition_path("a/.hoodie")
