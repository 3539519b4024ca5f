"""Data skipping: a file or row group is left out only when no row of it can pass the filters."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.read.filters import normalize_filters, to_expression
from hudi_framework.read.parquet_stats import ParquetFooterStats, row_group_ranges
from hudi_framework.read.skipping import ColumnRange, column_ranges, may_match, widen
from tests.hypothesis_budget import examples

READ_SCHEMA = pa.schema([("i", pa.int64()), ("f", pa.float64()), ("s", pa.string())])


class MemoryStorage:
    """Just enough of a storage backend for footer reads: files kept in memory."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.opened: list[str] = []

    def open_input(self, key: str) -> pa.NativeFile:
        self.opened.append(key)
        return pa.BufferReader(self.files[key])

    def uri(self, key: str) -> str:
        return f"memory://{key}"


def _parquet(table: pa.Table, row_group_size: int = 3) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, row_group_size=max(1, row_group_size))
    return sink.getvalue()


def _matching_rows(table: pa.Table, filters: Any) -> int:
    expression = to_expression(normalize_filters(filters), READ_SCHEMA)
    assert expression is not None
    widened = pa.table({f.name: table.column(f.name).cast(f.type) for f in READ_SCHEMA})
    return widened.filter(expression).num_rows


def _stats_for(files: dict[str, bytes]) -> dict[str, ColumnRange]:
    names = sorted(files)
    source = ParquetFooterStats(MemoryStorage(files))  # type: ignore[arg-type]
    stats = source.column_stats([("", n) for n in names], READ_SCHEMA.names)
    assert stats is not None
    return column_ranges(stats, [("", n) for n in names], READ_SCHEMA)


# --- targeted cases -------------------------------------------------------------------------------------------


def _one_file(**columns: pa.Array) -> dict[str, ColumnRange]:
    data = {"i": pa.nulls(0, pa.int64()), "f": pa.nulls(0, pa.float64()), "s": pa.nulls(0, pa.string())}
    data |= columns
    n = max(len(a) for a in data.values())
    table = pa.table({k: (v if len(v) == n else pa.nulls(n, v.type)) for k, v in data.items()})
    return _stats_for({"a.parquet": _parquet(table, 100)})


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ([("i", "=", 5)], True),
        ([("i", "=", 11)], False),
        ([("i", "<", 1)], False),
        ([("i", "<=", 1)], True),
        ([("i", ">", 10)], False),
        ([("i", ">=", 10)], True),
        ([("i", "!=", 1)], True),
        ([("i", "in", [0, 20])], False),
        ([("i", "in", [0, 7])], True),
        ([("i", "not in", [1, 10])], True),
        ([("i", "is null")], True),
        ([("i", "is not null")], True),
        ([[("i", "<", 0)], [("i", ">", 100)]], False),
        ([[("i", "<", 0)], [("i", ">", 9)]], True),
        ([("i", ">", 2), ("i", "<", 1)], False),
        ([("i", ">", 2), ("i", "<", 2)], True),  # each may hold; statistics cannot see the conflict
    ],
)
def test_integer_ranges(filters: Any, expected: bool) -> None:
    ranges = _one_file(i=pa.array([1, 10, None], pa.int64()))
    assert may_match(normalize_filters(filters), ranges, READ_SCHEMA, 1).tolist() == [expected]


def test_single_value_file_skips_not_equal_and_not_in() -> None:
    ranges = _one_file(i=pa.array([4, 4, None], pa.int64()))
    assert may_match(normalize_filters([("i", "!=", 4)]), ranges, READ_SCHEMA, 1).tolist() == [False]
    assert may_match(normalize_filters([("i", "not in", [3, 4])]), ranges, READ_SCHEMA, 1).tolist() == [False]


def test_all_null_column_matches_only_is_null() -> None:
    ranges = _one_file(i=pa.array([None, None], pa.int64()))
    assert may_match(normalize_filters([("i", "is null")]), ranges, READ_SCHEMA, 1).tolist() == [True]
    for filters in ([("i", "=", 1)], [("i", "!=", 1)], [("i", "is not null")], [("i", "in", [1])]):
        assert may_match(normalize_filters(filters), ranges, READ_SCHEMA, 1).tolist() == [False], filters


def test_nan_rows_keep_not_equal_on_floats() -> None:
    ranges = _one_file(f=pa.array([1.0, float("nan")]))
    assert may_match(normalize_filters([("f", "!=", 1.0)]), ranges, READ_SCHEMA, 1).tolist() == [True]
    assert may_match(normalize_filters([("f", "in", [float("nan")])]), ranges, READ_SCHEMA, 1).tolist() == [True]
    assert may_match(normalize_filters([("f", ">", 1.0)]), ranges, READ_SCHEMA, 1).tolist() == [False]


def test_string_prefix_and_byte_order() -> None:
    ranges = _one_file(s=pa.array(["apple", "banana", "é"]))

    def kept(filters: Any) -> bool:
        return bool(may_match(normalize_filters(filters), ranges, READ_SCHEMA, 1)[0])

    assert kept([("s", "starts with", "ban")])
    assert kept([("s", "starts with", "é")])
    assert kept([("s", "starts with", "c")])  # between "apple" and "é": only the statistics are known
    assert not kept([("s", "starts with", "\U0001f600")])  # 4-byte UTF-8 sorts after "é"
    assert not kept([("s", "starts with", "a\x00")])  # below "apple" whatever follows
    assert not kept([("s", "<", "apple")])
    assert kept([("s", ">", "z")])  # "é" (0xC3 0xA9) is above every ASCII byte


def test_missing_statistics_keep_the_file() -> None:
    stats = pa.table({"fileName": ["a"], "columnName": ["other"], "minValue": [1], "maxValue": [1]})
    ranges = column_ranges(stats, [("", "a"), ("", "b")], READ_SCHEMA)
    assert may_match(normalize_filters([("i", "=", 99)]), ranges, READ_SCHEMA, 2).tolist() == [True, True]


def test_deleted_rows_and_partitions_in_hudi_shape() -> None:
    stats = pa.table(
        {
            "partition": ["p1", "p2", "p2"],
            "fileName": ["a", "a", "b"],
            "columnName": ["i", "i", "i"],
            "minValue": [1, 50, 1],
            "maxValue": [2, 60, 2],
            "nullCount": [0, 0, 0],
            "valueCount": [3, 3, 3],
            "isDeleted": [False, False, True],
        }
    )
    files = [("p1", "a"), ("p2", "a"), ("p2", "b")]
    ranges = column_ranges(stats, files, READ_SCHEMA)
    assert may_match(normalize_filters([("i", "=", 55)]), ranges, READ_SCHEMA, 3).tolist() == [False, True, True]


def test_non_partitioned_files_named_as_the_metadata_table_does() -> None:
    stats = pa.table({"partition": [".", ""], "fileName": ["a", "b"], "columnName": ["i", "i"],
                      "minValue": [1, 50], "maxValue": [2, 60]})  # fmt: skip
    ranges = column_ranges(stats, [("", "a"), ("", "b")], READ_SCHEMA)
    assert may_match(normalize_filters([("i", "=", 55)]), ranges, READ_SCHEMA, 2).tolist() == [False, True]


def test_promoted_types_widen_only_when_order_is_kept() -> None:
    assert widen(pa.array([1, 2], pa.int32()), pa.int64()).type == pa.int64()
    assert widen(pa.array([1, 2], pa.int32()), pa.float64()).type == pa.float64()
    assert widen(pa.array([9, 10], pa.int32()), pa.string()) is None  # "10" < "9"
    assert widen(pa.array([1], pa.uint64()), pa.int64()) is None
    # A dense union of value wrappers (int in an old file, long in a new one) resolves per row.
    union = pa.UnionArray.from_dense(
        pa.array([0, 1], pa.int8()), pa.array([0, 0], pa.int32()), [pa.array([5], pa.int32()), pa.array([70])]
    )
    stats = pa.table({"fileName": ["a", "b"], "columnName": ["i", "i"], "minValue": union, "maxValue": union})
    ranges = column_ranges(stats, [("", "a"), ("", "b")], READ_SCHEMA)
    assert may_match(normalize_filters([("i", "=", 70)]), ranges, READ_SCHEMA, 2).tolist() == [False, True]


def test_string_statistics_of_a_promoted_int_column_are_unknown() -> None:
    schema = pa.schema([("i", pa.string())])
    stats = pa.table({"fileName": ["a"], "columnName": ["i"], "minValue": [9], "maxValue": [10]})
    ranges = column_ranges(stats, [("", "a")], schema)
    assert may_match(normalize_filters([("i", "=", "95")]), ranges, schema, 1).tolist() == [True]


# --- property: skipping never drops a unit holding a matching row ------------------------------------------


# Small domains, so that filter values often equal stored values and bounds.
_INTS = st.one_of(st.none(), st.integers(-2, 2))
_FLOATS = st.one_of(st.none(), st.sampled_from([float("nan"), -0.0, 0.0, 1.5, float("inf")]))
_TEXTS = st.one_of(st.none(), st.sampled_from(["", "a", "ab", "é", "éa", "\U0001f600"]))
_VALUES = {"i": st.integers(-3, 3), "f": st.sampled_from([float("nan"), 0.0, -0.0, 1.5, 3.0]),
           "s": st.sampled_from(["", "a", "ab", "b", "é", "\U0001f600"])}  # fmt: skip
_OPS = ["=", "!=", "<", "<=", ">", ">=", "in", "not in", "is null", "is not null", "starts with"]


@st.composite
def _predicates(draw: st.DrawFn) -> tuple[Any, ...]:
    column = draw(st.sampled_from(["i", "f", "s"]))
    ops = _OPS if column == "s" else _OPS[:-1]
    op = draw(st.sampled_from(ops))
    if op in ("is null", "is not null"):
        return (column, op)
    if op in ("in", "not in"):
        return (column, op, draw(st.lists(_VALUES[column], max_size=3)))
    if op == "starts with":
        return (column, op, draw(st.sampled_from(["", "a", "é", "b", "\U0001f600"])))
    return (column, op, draw(_VALUES[column]))


@st.composite
def _files(draw: st.DrawFn) -> list[pa.Table]:
    out = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(0, 8))
        int_type = draw(st.sampled_from([pa.int32(), pa.int64()]))  # promoted column: old files hold int32
        ints = draw(st.lists(_INTS, min_size=n, max_size=n))
        floats = draw(st.lists(_FLOATS, min_size=n, max_size=n))
        texts = draw(st.lists(_TEXTS, min_size=n, max_size=n))
        out.append(pa.table({"i": pa.array(ints, int_type), "f": pa.array(floats, pa.float64()),
                             "s": pa.array(texts, pa.string())}))  # fmt: skip
    return out


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=_files(),
    filters=st.lists(st.lists(_predicates(), min_size=1, max_size=3), min_size=1, max_size=2),
    row_group_size=st.integers(1, 4),
)
def test_skipping_never_drops_a_matching_file_or_row_group(
    files: list[pa.Table], filters: list[list[tuple[Any, ...]]], row_group_size: int
) -> None:
    blobs = {f"f{k}.parquet": _parquet(t, row_group_size) for k, t in enumerate(files)}
    normalized = normalize_filters(filters)
    file_keep = may_match(normalized, _stats_for(blobs), READ_SCHEMA, len(files))
    for k, table in enumerate(files):
        matches = _matching_rows(table, filters)
        if matches:
            assert file_keep[k], f"file {k} holds {matches} matching rows"
        parquet = pq.ParquetFile(pa.BufferReader(blobs[f"f{k}.parquet"]))
        metadata = parquet.metadata
        groups = may_match(
            normalized, row_group_ranges(metadata, parquet.schema_arrow, READ_SCHEMA), READ_SCHEMA,
            metadata.num_row_groups,
        )  # fmt: skip
        for g in range(metadata.num_row_groups):
            if _matching_rows(parquet.read_row_group(g), filters):
                assert groups[g], f"row group {g} of file {k} holds matching rows"


def test_may_match_is_vectorised_over_many_files() -> None:
    n = 20_000
    lows = np.arange(n, dtype=np.int64) * 10
    ranges = {"i": ColumnRange(pa.array(lows), pa.array(lows + 9), pa.array(np.zeros(n, np.int64)),
                               pa.array(np.full(n, 10, np.int64)))}  # fmt: skip
    keep = may_match(normalize_filters([("i", "in", [15, 99_999])]), ranges, READ_SCHEMA, n)
    assert np.flatnonzero(keep).tolist() == [1, 9_999]
    assert pc.sum(pa.array(keep)).as_py() == 2


# --- row-group pruning inside a base-file read ---------------------------------------------------------------


def test_base_file_read_decodes_only_row_groups_that_may_match(monkeypatch: pytest.MonkeyPatch) -> None:
    from hudi_framework.read.base_file import read_task
    from hudi_framework.read.plan import ReadTask

    rows = pa.table({"i": pa.array(range(100), pa.int64()), "s": [f"v{n:03d}" for n in range(100)]})
    storage = MemoryStorage({"f.parquet": _parquet(rows, 10)})
    schema = pa.schema([("i", pa.int64()), ("s", pa.string())])
    requested: list[Any] = []
    original = pq.ParquetFile.iter_batches

    def recording(self: pq.ParquetFile, *args: Any, **kwargs: Any) -> Any:
        requested.append(kwargs.get("row_groups"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", recording)

    def read(filters: Any) -> list[int]:
        task = ReadTask("f.parquet", "", (), schema, row_filter=normalize_filters(filters), filter_schema=schema)
        batches = list(read_task(task, storage))  # type: ignore[arg-type]
        return pa.Table.from_batches(batches, schema=schema).column("i").to_pylist() if batches else []

    assert read([[("i", "=", 15)], [("s", ">=", "v091")]]) == [15, *range(91, 100)]
    assert requested[-1] == [1, 9]
    assert read([("i", ">", 200)]) == []
    assert len(requested) == 1  # nothing decoded: no row group may match
    assert read([("i", "!=", -1)]) == list(range(100))
    assert requested[-1] is None  # every row group may match: the plain read
