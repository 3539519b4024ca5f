"""Merging by selection (``RecordMerger.select``) gives exactly what merging the gathered pairs gives."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.contracts.merger import IS_DELETED_FIELD, RECORD_KEY_FIELD, MergeContext, RecordMerger
from hudi_framework.contracts.merging.ordering import BoolMask
from hudi_framework.errors import MergeError
from hudi_framework.merge import merge_with_base
from hudi_framework.read.merged import _merge_part
from tests.unit.merge.test_positional_merge import SCHEMA, _base, _logs, _task


class _Merging(RecordMerger):
    """The same merger without its ``select``: the kernel gathers pairs and calls ``merge``."""

    def __init__(self, inner: RecordMerger) -> None:
        self.inner = inner

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        return self.inner.merge(older, newer, ctx)

    def combine(self, batch: pa.Table, ctx: MergeContext) -> pa.Table:
        return self.inner.combine(batch, ctx)


class _Counting(RecordMerger):
    """Delegates everything, counting ``select`` calls (or returning a broken mask)."""

    def __init__(self, inner: RecordMerger, *, broken: bool = False) -> None:
        self.inner, self.broken, self.selects = inner, broken, 0

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        return self.inner.merge(older, newer, ctx)

    def select(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> BoolMask | None:
        self.selects += 1
        if self.broken:
            return np.ones(older.num_rows + 1, dtype=np.bool_)
        return self.inner.select(older, newer, ctx)


def _incoming(base: pa.Table, seed: int) -> pa.Table:
    """Updates (older and newer by ordering), repeats, deletes with and without ordering, inserts."""
    rng = np.random.default_rng(seed)
    logs = _logs(base.column(RECORD_KEY_FIELD).to_pylist(), rng, 400)
    ts = logs.column("ts").to_numpy(zero_copy_only=False).astype(object)
    ts[rng.random(len(ts)) < 0.05] = None  # commit-time deletes / rows without ordering
    logs = logs.set_column(logs.schema.get_field_index("ts"), "ts", pa.array(list(ts), pa.int64()))
    return logs.select([*SCHEMA.names, IS_DELETED_FIELD])


def _same(a: Any, b: Any) -> None:
    assert a.table.equals(b.table)
    assert list(a.touched) == list(b.touched)
    assert (a.num_inserts, a.num_updates, a.num_deletes, a.num_unchanged) == (
        b.num_inserts, b.num_updates, b.num_deletes, b.num_unchanged
    )  # fmt: skip


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("name", ["event_time", "commit_time"])
def test_merge_with_base_selects_as_it_merges(
    seed: int, name: str, event_time: RecordMerger, commit_time: RecordMerger
) -> None:
    merger = {"event_time": event_time, "commit_time": commit_time}[name]
    ctx = MergeContext(ordering_fields=("ts",), schema=SCHEMA)
    base = _base(1500, np.random.default_rng(seed))
    incoming = _incoming(base, seed + 10)
    selected = merge_with_base(base, incoming, merger, ctx)
    merged = merge_with_base(base, incoming, _Merging(merger), ctx)
    _same(selected, merged)
    assert min(selected.num_updates, selected.num_deletes, selected.num_inserts) > 0  # every case occurs


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", ["event_time", "commit_time"])
def test_merged_read_selects_as_it_merges(
    seed: int, name: str, event_time: RecordMerger, commit_time: RecordMerger
) -> None:
    merger = {"event_time": event_time, "commit_time": commit_time}[name]
    rng = np.random.default_rng(seed)
    base = _base(2000, rng)
    logs = _logs(base.column(RECORD_KEY_FIELD).to_pylist(), rng, 700)
    batches = base.to_batches(max_chunksize=600)

    def read(m: RecordMerger) -> pa.Table:
        task = _task(m)
        return pa.Table.from_batches(list(_merge_part(batches, logs, task, task.merge_context, 600)), schema=SCHEMA)

    # The same rows (a pair the stored version wins stays in place when selected, and joins the merge
    # results when merged: row order is no contract).
    assert read(merger).sort_by(RECORD_KEY_FIELD).equals(read(_Merging(merger)).sort_by(RECORD_KEY_FIELD))


def test_selection_is_skipped_where_merge_would_differ(event_time: RecordMerger) -> None:
    ctx = MergeContext(ordering_fields=("ts",), schema=SCHEMA)
    base = _base(200, np.random.default_rng(5))
    incoming = _incoming(base, 6)
    counting = _Counting(event_time)
    merge_with_base(base, incoming, counting, ctx)
    assert counting.selects == 1
    # An is-deleted column with nulls (unique keys, so no pre-combine rewrites it): merge writes false
    # where a copied row would keep null.
    _, first = np.unique(incoming.column(RECORD_KEY_FIELD).to_numpy(zero_copy_only=False), return_index=True)
    incoming = incoming.take(pa.array(np.sort(first)))
    flags = incoming.column(IS_DELETED_FIELD).to_pylist()
    with_nulls = incoming.set_column(
        incoming.schema.get_field_index(IS_DELETED_FIELD), IS_DELETED_FIELD,
        pa.array([f or None for f in flags], pa.bool_()),
    )  # fmt: skip
    counting = _Counting(event_time)
    expected = merge_with_base(base, with_nulls, _Merging(event_time), ctx)
    _same(merge_with_base(base, with_nulls, counting, ctx), expected)
    assert counting.selects == 0


def test_a_mask_of_the_wrong_length_is_a_merge_error(event_time: RecordMerger) -> None:
    ctx = MergeContext(ordering_fields=("ts",), schema=SCHEMA)
    base = _base(50, np.random.default_rng(7))
    with pytest.raises(MergeError, match="select returned"):
        merge_with_base(base, _incoming(base, 8), _Counting(event_time, broken=True), ctx)


class _NoDictionaries(_Merging):
    """``_Merging`` that fails on a dictionary column: mergers are given plain columns."""

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        assert not any(pa.types.is_dictionary(t) for t in [*older.schema.types, *newer.schema.types])
        return super().merge(older, newer, ctx)

    def select(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> BoolMask | None:
        assert not any(pa.types.is_dictionary(t) for t in [*older.schema.types, *newer.schema.types])
        return self.inner.select(older, newer, ctx)


@pytest.mark.parametrize("selects", [True, False])
def test_dictionary_base_columns_merge_by_their_indices(selects: bool, event_time: RecordMerger) -> None:
    """A base file's column read as a dictionary (the rewrite's commit time) merges like its plain
    values and stays a dictionary when ``ctx.schema`` says so; incoming plain values are encoded."""
    plain_ctx = MergeContext(ordering_fields=("ts",), schema=SCHEMA)
    dictionary = pa.dictionary(pa.int32(), pa.string())
    at = SCHEMA.get_field_index("_hoodie_commit_time")
    ctx = MergeContext(ordering_fields=("ts",), schema=SCHEMA.set(at, SCHEMA.field(at).with_type(dictionary)))
    base = _base(1500, np.random.default_rng(5))
    incoming = _incoming(base, 15)
    expected = merge_with_base(base, incoming, event_time, plain_ctx)
    merger = _NoDictionaries(event_time) if selects else _Merging(_NoDictionaries(event_time))
    merged = merge_with_base(base.cast(ctx.schema), incoming, merger, ctx)
    assert merged.table.schema == ctx.schema
    assert merged.table.cast(SCHEMA).equals(expected.table)
    assert (merged.num_inserts, merged.num_updates, merged.num_deletes) == (
        expected.num_inserts, expected.num_updates, expected.num_deletes
    )  # fmt: skip
