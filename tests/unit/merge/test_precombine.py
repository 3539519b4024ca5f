"""Pre-combine (``reduce_by_key``) and the per-record adapter."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.contracts.merger import (
    IS_DELETED_FIELD,
    RECORD_KEY_FIELD,
    SUPERSEDES_OLDER_FIELD,
    MergeContext,
    PerRecordMerger,
    RecordMerger,
    RecordRow,
)
from hudi_framework.contracts.merging.precombine import has_duplicate_keys, key_codes, reduce_by_key
from hudi_framework.errors import MergeError
from tests.unit.merge.helpers import picked, table
from tests.unit.merge.reference import DeleteOnTieMerger, RecordEventTimeMerger


def test_heavy_duplicates_reduce_in_log_rounds_and_equal_the_fold(event_time: RecordMerger, ctx: MergeContext) -> None:
    rng = np.random.default_rng(1)
    size = 5000
    keys = rng.choice(["hot"] * 20 + [f"k{i}" for i in range(200)], size)
    ts = rng.integers(0, 50, size)
    batch = table(
        [{"key": str(k), "ts": int(t), "name": f"row{i}"} for i, (k, t) in enumerate(zip(keys, ts, strict=True))]
    )
    combined = event_time.combine(batch, ctx)
    expected: dict[str, tuple[int, str]] = {}
    for row in batch.to_pylist():
        key = row[RECORD_KEY_FIELD]
        if key not in expected or row["ts"] >= expected[key][0]:
            expected[key] = (row["ts"], row["name"])
    assert combined.column(RECORD_KEY_FIELD).to_pylist() == list(dict.fromkeys(str(k) for k in keys))
    assert {r[RECORD_KEY_FIELD]: (r["ts"], r["name"]) for r in combined.to_pylist()} == expected
    assert picked(RecordEventTimeMerger().combine(batch, ctx)) == picked(combined)


def test_unique_keys_pass_through_with_flags(event_time: RecordMerger, ctx: MergeContext) -> None:
    batch = table([{"key": "b", "ts": 1}, {"key": "a", "ts": None, IS_DELETED_FIELD: True}])
    combined = event_time.combine(batch, ctx)
    assert combined.column(RECORD_KEY_FIELD).to_pylist() == ["b", "a"]
    assert combined.column(SUPERSEDES_OLDER_FIELD).to_pylist() == [False, True]


def test_key_helpers(ctx: MergeContext) -> None:
    rows = table([{"key": "x"}, {"key": "y"}, {"key": "x"}])
    codes, count = key_codes(rows, ctx)
    assert (list(codes), count) == ([0, 1, 0], 2)
    assert has_duplicate_keys(rows, ctx)
    assert not has_duplicate_keys(rows.slice(0, 2), ctx)
    with pytest.raises(MergeError, match="null record key"):
        key_codes(table([{"key": None}]), ctx)
    with pytest.raises(MergeError, match="no record key column"):
        key_codes(pa.table({"x": [1]}), ctx)


class _KeyChanger(RecordMerger):
    strategy_id = "00000000-0000-0000-0000-000000000001"

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        return newer.set_column(0, RECORD_KEY_FIELD, pa.array(["other"] * newer.num_rows))


class _RowDropper(RecordMerger):
    strategy_id = "00000000-0000-0000-0000-000000000002"

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        return newer.slice(1)


@pytest.mark.parametrize(("merger", "message"), [(_KeyChanger(), "changed the record key"), (_RowDropper(), "rows")])
def test_a_merger_breaking_the_contract_is_reported(merger: RecordMerger, message: str, ctx: MergeContext) -> None:
    with pytest.raises(MergeError, match=message):
        reduce_by_key(merger, table([{"key": "k", "ts": 1}, {"key": "k", "ts": 2}]), ctx)


def test_per_record_none_means_delete_keeping_the_newer_values(ctx: MergeContext) -> None:
    older = table([{"key": "a", "ts": 1, "payload": 7}, {"key": "b", "ts": 1, "payload": 7}])
    newer = table([{"key": "a", "ts": 2, "payload": 7}, {"key": "b", "ts": 2, "payload": 8}])
    merger = DeleteOnTieMerger()
    assert not merger.supports_vectorised
    merged = merger.merge(older, newer, ctx)
    assert merged.column(IS_DELETED_FIELD).to_pylist() == [True, False]
    assert merged.column("ts").to_pylist() == [2, 2]
    assert merged.column(SUPERSEDES_OLDER_FIELD).to_pylist() == [False, False]


class _RekeyRecord(PerRecordMerger):
    strategy_id = "00000000-0000-0000-0000-000000000003"

    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        return {**newer, RECORD_KEY_FIELD: "other"}


class _BadValue(PerRecordMerger):
    strategy_id = "00000000-0000-0000-0000-000000000004"

    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        return {**newer, "ts": "not a number"}


@pytest.mark.parametrize(("merger", "message"), [(_RekeyRecord(), "changed record key"), (_BadValue(), "do not fit")])
def test_per_record_contract_violations(merger: PerRecordMerger, message: str, ctx: MergeContext) -> None:
    rows = table([{"key": "a", "ts": 1}])
    with pytest.raises(MergeError, match=message):
        merger.merge(rows, rows, ctx)


def test_per_record_rows_see_both_flags(ctx: MergeContext) -> None:
    seen: list[tuple[RecordRow, RecordRow]] = []

    class Spy(PerRecordMerger):
        strategy_id = "00000000-0000-0000-0000-000000000005"

        def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
            seen.append((older, newer))
            return newer

    Spy().merge(table([{"key": "a", "ts": 1}]), table([{"key": "a", "ts": None, IS_DELETED_FIELD: True}]), ctx)
    ((older, newer),) = seen
    assert (older[IS_DELETED_FIELD], older[SUPERSEDES_OLDER_FIELD]) == (False, False)
    assert (newer[IS_DELETED_FIELD], newer[SUPERSEDES_OLDER_FIELD]) == (True, True)
    assert (ctx.supersedes_older(newer), ctx.is_delete(newer), ctx.ordering_value(newer)) == (True, True, (None,))


def test_aligned_merge_needs_equal_lengths(event_time: RecordMerger, ctx: MergeContext) -> None:
    with pytest.raises(MergeError, match="equal lengths"):
        event_time.merge(table([{"key": "a", "ts": 1}]), table([{"key": "a", "ts": 1}] * 2), ctx)


def test_unifiable_schemas_only(event_time: RecordMerger, ctx: MergeContext) -> None:
    with pytest.raises(MergeError, match="unify"):
        event_time.merge(table([{"key": "a", "ts": 1}]), table([{"key": "a", "ts": {"x": 1}}]), ctx)
