"""Column-wise merging of partial rows (hudi_framework.contracts.merging.partial), against a per-record model."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.merger import PRESENT_COLUMNS_FIELD, MergeContext, RecordMerger
from hudi_framework.contracts.merging.flags import drop_flags
from hudi_framework.contracts.merging.partial import mark_partial, merge_pairs, presence_value, present_mask
from hudi_framework.contracts.merging.precombine import reduce_by_key
from hudi_framework.merge import merge_with_base
from hudi_merger_builtin import CommitTimeOrderingMerger, EventTimeOrderingMerger
from tests.hypothesis_budget import examples

KEY = "_hoodie_record_key"
CTX = MergeContext(ordering_fields=("ts",))
DATA = ("a", "b", "c")
SCHEMA = pa.schema([(KEY, pa.string()), ("ts", pa.int64()), ("a", pa.int64()), ("b", pa.int64()), ("c", pa.int64())])


def _rows(rows: list[dict[str, Any]], carried: tuple[str, ...] | None = None) -> pa.Table:
    table = pa.Table.from_pylist(rows, schema=SCHEMA)
    return table if carried is None else mark_partial(table, (KEY, "ts", *carried), CTX)


def test_presence_masks_and_meta_columns() -> None:
    table = mark_partial(_rows([{KEY: "1", "ts": 1, "a": 1}]), ("ts", "a"), CTX)
    assert table.column(PRESENT_COLUMNS_FIELD).to_pylist() == [presence_value(["ts", "a"])]
    assert present_mask(table, "a", CTX).tolist() == [True]
    assert present_mask(table, "b", CTX).tolist() == [False]
    assert present_mask(table, "_hoodie_commit_time", CTX).tolist() == [True]  # meta columns always carried
    assert present_mask(_rows([{KEY: "1"}]), "b", CTX).tolist() == [True]  # full rows carry everything


@pytest.mark.parametrize(
    ("merger", "newer_ts", "expected"),
    [
        (CommitTimeOrderingMerger(), 1, {"ts": 1, "a": 10, "b": 2, "c": 3}),  # newer's columns win
        (EventTimeOrderingMerger(), 9, {"ts": 9, "a": 10, "b": 2, "c": 3}),  # newer wins on event time
        (EventTimeOrderingMerger(), 1, {"ts": 5, "a": 1, "b": 2, "c": 3}),  # older wins: it lacks nothing
    ],
)
def test_partial_newer_over_full_older(merger: RecordMerger, newer_ts: int, expected: dict[str, int]) -> None:
    older = _rows([{KEY: "k", "ts": 5, "a": 1, "b": 2, "c": 3}])
    newer = _rows([{KEY: "k", "ts": newer_ts, "a": 10}], carried=("a",))
    merged = drop_flags(merge_pairs(merger, older, newer, CTX), CTX)  # drops the presence column too
    assert merged.to_pylist() == [{KEY: "k", **expected}]


def test_two_partial_rows_union_their_columns() -> None:
    older = _rows([{KEY: "k", "ts": 5, "b": 2}], carried=("b",))
    newer = _rows([{KEY: "k", "ts": 3, "a": 1, "b": 7}], carried=("a", "b"))
    merged = merge_pairs(EventTimeOrderingMerger(), older, newer, CTX)
    row = merged.to_pylist()[0]
    # The older version wins on event time: its b stays, the newer fills a; c is carried by neither.
    assert (row["ts"], row["a"], row["b"], row["c"]) == (5, 1, 2, None)
    assert present_mask(merged, "c", CTX).tolist() == [False]
    assert present_mask(merged, "a", CTX).tolist() == [True]


def test_a_delete_on_either_side_fills_nothing() -> None:
    older = _rows([{KEY: "k", "ts": 5, "a": 1, "b": 2, "c": 3}])
    deleted = older.append_column("_hoodie_is_deleted", pa.array([True]))
    newer = _rows([{KEY: "k", "ts": 9, "a": 10}], carried=("a",))
    merged = merge_pairs(CommitTimeOrderingMerger(), deleted, newer, CTX).to_pylist()[0]
    assert (merged["a"], merged["b"], merged["_hoodie_is_deleted"]) == (10, None, False)


# ------------------------------------------------------------------------------------------ model
def _model(versions: list[tuple[int, dict[str, int]]], *, event_time: bool) -> dict[str, Any]:
    """Fold ``(ts, carried values)`` versions oldest first, as Apache Hudi's partial merge does."""
    ts, values = versions[0]
    for new_ts, new_values in versions[1:]:
        if not event_time or new_ts >= ts:
            values, ts = {**values, **new_values}, new_ts
        else:
            values = {**new_values, **values}
    return {"ts": ts, **{c: values.get(c) for c in DATA}}


VERSION = st.tuples(
    st.integers(0, 3), st.dictionaries(st.sampled_from(DATA), st.integers(0, 99), min_size=1, max_size=3)
)


@settings(max_examples=examples(150), deadline=None)
@given(base=st.fixed_dictionaries({c: st.integers(0, 99) for c in DATA}), versions=st.lists(VERSION, max_size=5))
def test_commit_time_matches_the_model_whatever_the_grouping(base: dict[str, int], versions: list[Any]) -> None:
    _check(base, versions, event_time=False)


@settings(max_examples=examples(150), deadline=None)
@given(base=st.fixed_dictionaries({c: st.integers(0, 99) for c in DATA}), versions=st.lists(VERSION, max_size=5))
def test_event_time_matches_the_model_for_non_decreasing_event_times(base: dict[str, int], versions: list[Any]) -> None:
    # Event-time partial merging is associative only with non-decreasing event times (a late version
    # fills columns of a later one when the logs fold first: docs/mergers.md, "Partial updates").
    ordered = sorted(versions, key=lambda v: v[0])
    _check(base, [(ts + 1, values) for ts, values in ordered], event_time=True)


def _check(base: dict[str, int], versions: list[tuple[int, dict[str, int]]], *, event_time: bool) -> None:
    merger: RecordMerger = EventTimeOrderingMerger() if event_time else CommitTimeOrderingMerger()
    stored = _rows([{KEY: "k", "ts": 1, **base}])
    parts = [_rows([{KEY: "k", "ts": ts, **values}], carried=tuple(values)) for ts, values in versions]
    expected = _model([(1, base), *versions], event_time=event_time)
    ctx = MergeContext(ordering_fields=("ts",), schema=SCHEMA)
    # The logs pre-combined first (MOR read, compaction), or every version one by one (COW writes).
    if parts:
        combined = reduce_by_key(merger, pa.concat_tables(parts), CTX)
        assert merge_with_base(stored, combined, merger, ctx).table.to_pylist() == [{KEY: "k", **expected}]
    table = stored
    for part in parts:
        table = merge_with_base(table, part, merger, ctx).table
    assert table.to_pylist() == [{KEY: "k", **expected}]


class _KeepStoredValues(CommitTimeOrderingMerger):
    """A merger with its own column-wise rule: a partial update changes only the ordering field."""

    def partial_merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        merged = super().partial_merge(older, newer, ctx)
        for column in DATA:
            index = merged.schema.get_field_index(column)
            merged = merged.set_column(index, merged.field(index), older.column(column))
        return merged


def test_the_kernel_calls_the_mergers_partial_merge_for_partial_rows_only() -> None:
    merger = _KeepStoredValues()
    older = _rows([{KEY: "k", "ts": 5, "a": 1, "b": 2, "c": 3}])
    partial = _rows([{KEY: "k", "ts": 9, "a": 10}], carried=("a",))
    full = _rows([{KEY: "k", "ts": 9, "a": 10, "b": 20, "c": 30}])
    assert drop_flags(merge_pairs(merger, older, partial, CTX), CTX).to_pylist() == [
        {KEY: "k", "ts": 9, "a": 1, "b": 2, "c": 3}
    ]
    assert drop_flags(merge_pairs(merger, older, full, CTX), CTX).to_pylist() == full.to_pylist()
    # The copy-on-write merge with a base file goes through the same hook.
    ctx = MergeContext(ordering_fields=("ts",), partial_columns=(KEY, "ts", "a"), schema=SCHEMA)
    result = merge_with_base(older, _rows([{KEY: "k", "ts": 9, "a": 10}]), merger, ctx)
    assert result.table.select(list(SCHEMA.names)).to_pylist() == [{KEY: "k", "ts": 9, "a": 1, "b": 2, "c": 3}]
