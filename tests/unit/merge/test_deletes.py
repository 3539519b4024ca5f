"""Deletes (hudi-format.md 6.2): commit-time deletes, ordered deletes, soft-delete columns."""

from __future__ import annotations

from dataclasses import replace

import pyarrow as pa
import pytest

from hudi_framework.contracts.merger import IS_DELETED_FIELD, SUPERSEDES_OLDER_FIELD, MergeContext, RecordMerger
from hudi_framework.contracts.merging import commit_time_deletes, delete_mask, supersedes_mask, with_flags
from hudi_framework.merge import merge_with_base
from tests.unit.merge.helpers import picked, table

STORED = table([{"key": "k", "ts": 5, "name": "stored"}])


def _incoming(ts: int | None, *, deleted: bool = True, name: str = "incoming") -> pa.Table:
    return table([{"key": "k", "ts": ts, "name": name, IS_DELETED_FIELD: deleted}])


@pytest.mark.parametrize(
    ("ts", "deleted"),
    [(4, False), (5, True), (6, True), (None, True)],
    ids=["older-greater-ignores", "tie-deletes", "newer-greater-deletes", "no-ordering-value-always-deletes"],
)
def test_event_time_delete_needs_an_ordering_value_at_least_the_stored_one(
    event_time: RecordMerger, ctx: MergeContext, ts: int | None, deleted: bool
) -> None:
    merged = event_time.merge(STORED, _incoming(ts), ctx)
    assert merged.column(IS_DELETED_FIELD).to_pylist() == [deleted]
    assert merged.column(SUPERSEDES_OLDER_FIELD).to_pylist() == [ts is None]
    assert merge_with_base(STORED, _incoming(ts), event_time, ctx).table.num_rows == (0 if deleted else 1)


@pytest.mark.parametrize("ts", [4, 5, 6, None])
def test_commit_time_deletes_always(commit_time: RecordMerger, ctx: MergeContext, ts: int | None) -> None:
    assert commit_time.merge(STORED, _incoming(ts), ctx).column(IS_DELETED_FIELD).to_pylist() == [True]


def test_commit_time_deletes_helper_removes_whatever_the_stored_ordering(
    event_time: RecordMerger, ctx: MergeContext
) -> None:
    stored = table([{"key": k, "ts": ts, "name": k} for k, ts in [("a", 10**9), ("b", None), ("c", -1)]])
    deletes = commit_time_deletes(pa.array(["a", "b"]), ctx, partition_paths=["p", "p"])
    result = merge_with_base(stored, deletes, event_time, ctx)
    assert picked(result.table) == ["c"]
    assert (result.num_deletes, result.num_unchanged, result.num_inserts) == (2, 1, 0)
    # Without a table schema the columns are unified (the deletes brought a partition column) ...
    assert result.table.column_names == [*stored.column_names, "_hoodie_partition_path"]
    # ... with one, the output has exactly the table's columns (and never the flags).
    with_schema = merge_with_base(stored, deletes, event_time, replace(ctx, schema=stored.schema))
    assert with_schema.table.equals(stored.slice(2))


def test_a_write_after_a_commit_time_delete_wins_even_with_a_lower_ordering_value(
    event_time: RecordMerger, ctx: MergeContext
) -> None:
    later = _incoming(1, deleted=False, name="reinserted")
    # one by one (a MOR file slice: base, delete block, data block) ...
    state = event_time.merge(event_time.merge(STORED, commit_time_deletes(["k"], ctx), ctx), later, ctx)
    # ... or pre-combined first (delete and reinsert in one batch), which must not lose the delete
    batch = pa.concat_tables([commit_time_deletes(["k"], ctx), later], promote_options="default")
    combined = event_time.combine(batch, ctx)
    assert combined.column(SUPERSEDES_OLDER_FIELD).to_pylist() == [True]
    assert picked(state) == picked(event_time.merge(STORED, combined, ctx)) == ["reinserted"]
    assert picked(merge_with_base(STORED, batch, event_time, ctx).table) == ["reinserted"]


def test_an_ordered_delete_after_a_commit_time_delete_keeps_its_ordering(
    event_time: RecordMerger, ctx: MergeContext
) -> None:
    # Java's BufferedRecord path: after D(commit-time), E(delete, ts=7) wins; a later F(ts=3) loses to E.
    rows = [commit_time_deletes(["k"], ctx), _incoming(7), _incoming(3, deleted=False)]
    state = STORED
    for row in rows:
        state = event_time.merge(state, row, ctx)
    assert state.column(IS_DELETED_FIELD).to_pylist() == [True]
    assert state.column("ts").to_pylist() == [7]


def test_operation_column_d_is_a_delete(event_time: RecordMerger, ctx: MergeContext) -> None:
    incoming = table([{"key": "k", "ts": 9, "name": "cdc", "_hoodie_operation": "D"}])
    assert event_time.merge(STORED, incoming, ctx).column(IS_DELETED_FIELD).to_pylist() == [True]
    cdc_update = table([{"key": "k", "ts": 9, "name": "cdc", "_hoodie_operation": "U"}])
    assert picked(merge_with_base(STORED, cdc_update, event_time, ctx).table) == ["cdc"]


def test_null_soft_delete_flag_is_not_a_delete(ctx: MergeContext) -> None:
    rows = table([{"key": "k", "ts": 1, IS_DELETED_FIELD: None}, {"key": "j", "ts": None, IS_DELETED_FIELD: True}])
    assert list(delete_mask(rows, ctx)) == [False, True]
    assert list(supersedes_mask(rows, ctx)) == [False, True]
    flagged = with_flags(rows, ctx)
    assert flagged.column(IS_DELETED_FIELD).null_count == 0
    assert with_flags(flagged, ctx).equals(flagged)


def test_without_ordering_fields_every_delete_is_commit_time(event_time: RecordMerger) -> None:
    ctx = MergeContext()
    merged = event_time.merge(STORED, _incoming(1), ctx)
    assert merged.column(SUPERSEDES_OLDER_FIELD).to_pylist() == [True]
    assert merged.column(IS_DELETED_FIELD).to_pylist() == [True]
    # and event time without ordering fields is commit time, as in Apache Hudi
    assert picked(event_time.merge(STORED, _incoming(1, deleted=False), ctx)) == ["incoming"]


def test_deletes_survive_pre_combine(event_time: RecordMerger, ctx: MergeContext) -> None:
    batch = table([{"key": "k", "ts": 6, "name": "x"}, {"key": "k", "ts": 6, "name": "gone", IS_DELETED_FIELD: True}])
    combined = event_time.combine(batch, ctx)
    assert combined.num_rows == 1
    assert combined.column(IS_DELETED_FIELD).to_pylist() == [True]
    assert merge_with_base(STORED, batch, event_time, ctx).table.num_rows == 0


def test_incoming_delete_of_an_unknown_key_writes_nothing(event_time: RecordMerger, ctx: MergeContext) -> None:
    result = merge_with_base(STORED, commit_time_deletes(["nope"], ctx), event_time, ctx)
    assert picked(result.table) == ["stored"]
    assert (result.num_inserts, result.num_deletes, result.num_unchanged) == (0, 0, 1)
