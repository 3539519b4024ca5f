"""Stacking per-file statistics tables (``concat_stats``) and building bound unions (``union_of``)
keep every row's bound with its type, whatever the mix of types and however the inputs' unions
are coded."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.metadata_writer.file_column_stats import STATS_COLUMNS, concat_stats, union_of
from hudi_framework.read.skipping import MAX_VALUE, MIN_VALUE

_VALUES = st.one_of(
    st.tuples(st.just(pa.int32()), st.one_of(st.none(), st.integers(-(1 << 31), (1 << 31) - 1))),
    st.tuples(st.just(pa.int64()), st.one_of(st.none(), st.integers(-(1 << 63), (1 << 63) - 1))),
    st.tuples(st.just(pa.string()), st.one_of(st.none(), st.text(max_size=8))),
    st.tuples(st.just(pa.float64()), st.floats(allow_nan=False)),
)


def _typed(union: pa.UnionArray) -> list[tuple[pa.DataType, Any]]:
    out = []
    for i in range(len(union)):
        code = union.type_codes[i].as_py()
        child = union.field(union.type.type_codes.index(code))
        out.append((child.type, child[union.offsets[i].as_py()].as_py()))
    return out


def _table(rows: list[tuple[pa.DataType, Any]]) -> pa.Table:
    bounds = union_of([pa.array([v], t) for t, v in rows])
    n = len(rows)
    columns: dict[str, Any] = {c: pa.array([f"{c}{i}" for i in range(n)], pa.string()) for c in STATS_COLUMNS[:3]}
    columns[MIN_VALUE] = bounds
    columns[MAX_VALUE] = bounds
    for c in STATS_COLUMNS[5:9]:
        columns[c] = pa.array(range(n), pa.int64())
    columns[STATS_COLUMNS[9]] = pa.array([False] * n)
    return pa.table(columns)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(_VALUES, min_size=1, max_size=6), min_size=1, max_size=5))
def test_stacked_tables_keep_each_bound_and_its_type(groups: list[list[tuple[pa.DataType, Any]]]) -> None:
    tables = [_table(rows) for rows in groups]
    for table, rows in zip(tables, groups, strict=True):
        assert _typed(table.column(MIN_VALUE).combine_chunks()) == rows
    stacked = concat_stats(tables)
    expected = [r for rows in groups for r in rows]
    assert stacked.column_names == list(STATS_COLUMNS)
    assert _typed(stacked.column(MIN_VALUE).combine_chunks()) == expected
    assert _typed(stacked.column(MAX_VALUE).combine_chunks()) == expected
    assert stacked.column(STATS_COLUMNS[5]).to_pylist() == [i for rows in groups for i in range(len(rows))]
