"""``merge_with_base``: the copy-on-write rewrite (and the MOR read / compaction merge)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.contracts.merger import IS_DELETED_FIELD, RECORD_KEY_FIELD, MergeContext, RecordMerger
from hudi_framework.contracts.merging import commit_time_deletes
from hudi_framework.errors import MergeError
from hudi_framework.merge import merge_with_base, project_to_schema
from hudi_framework.merge.align import append_rows
from tests.unit.merge.helpers import picked, table

BASE = table([{"key": k, "ts": ts, "name": f"{k}@base"} for k, ts in [("a", 1), ("b", 5), ("c", 1), ("d", 1)]])


def test_base_order_is_kept_updates_in_place_and_inserts_appended(event_time: RecordMerger, ctx: MergeContext) -> None:
    incoming = table(
        [
            {"key": "z", "ts": 0, "name": "z@new"},
            {"key": "c", "ts": 2, "name": "c@new"},
            {"key": "b", "ts": 4, "name": "b@late"},  # lower ordering value: the stored version stays
            {"key": "y", "ts": 0, "name": "y@new"},
            {"key": "d", "ts": 9, "name": "d@gone", IS_DELETED_FIELD: True},
        ]
    )
    result = merge_with_base(BASE, incoming, event_time, replace(ctx, schema=BASE.schema))
    assert picked(result.table) == ["a@base", "b@base", "c@new", "z@new", "y@new"]
    assert list(result.touched) == [False, True, True, True, True]
    assert (result.num_inserts, result.num_updates, result.num_deletes, result.num_unchanged) == (2, 2, 1, 1)
    assert result.table.schema == BASE.schema


def test_duplicate_incoming_keys_are_pre_combined_first(event_time: RecordMerger, ctx: MergeContext) -> None:
    incoming = table([{"key": "a", "ts": 3, "name": "a3"}, {"key": "a", "ts": 2, "name": "a2"}])
    assert picked(merge_with_base(BASE, incoming, event_time, ctx).table)[0] == "a3"
    assert picked(merge_with_base(BASE, incoming, event_time.__class__(), ctx).table)[0] == "a3"


def test_a_key_stored_twice_merges_into_its_first_row_only(event_time: RecordMerger, ctx: MergeContext) -> None:
    # Apache Hudi's key-based record buffer hands a key's record to its first stored row
    # (KeyBasedFileGroupRecordBuffer.hasNextBaseRecord: records.remove(key)); later rows pass through.
    doubled = pa.concat_tables([BASE, table([{"key": "b", "ts": 0, "name": "b@second"}]), BASE.slice(2, 1)])
    incoming = table(
        [{"key": "b", "ts": 7, "name": "b@new"}, {"key": "c", "ts": 9, "name": "c@gone", IS_DELETED_FIELD: True}]
    )
    result = merge_with_base(doubled, incoming, event_time, ctx)
    assert picked(result.table) == ["a@base", "b@new", "d@base", "b@second", "c@base"]
    assert (result.num_inserts, result.num_updates, result.num_deletes, result.num_unchanged) == (0, 1, 1, 4)
    assert list(result.touched) == [False, True, False, False, False]


def test_append_rows_keeps_every_row(event_time: RecordMerger, ctx: MergeContext) -> None:
    incoming = table(
        [
            {"key": "a", "ts": 0, "name": "a@again"},
            {"key": "z", "ts": 0, "name": "z@1"},
            {"key": "z", "ts": 2, "name": "z@2"},
            {"key": "d", "ts": 9, "name": "d@gone", IS_DELETED_FIELD: True},
        ]
    )
    result = append_rows(BASE, incoming, event_time, replace(ctx, schema=BASE.schema))
    assert picked(result.table) == ["a@base", "b@base", "c@base", "d@base", "a@again", "z@1", "z@2"]
    assert list(result.touched) == [False] * 4 + [True] * 3
    assert (result.num_inserts, result.num_updates, result.num_deletes, result.num_unchanged) == (3, 0, 0, 4)
    assert result.table.schema == BASE.schema


def test_missing_or_null_keys_are_an_error(event_time: RecordMerger, ctx: MergeContext) -> None:
    with pytest.raises(MergeError, match="record key column"):
        merge_with_base(BASE, pa.table({"ts": [1]}), event_time, ctx)
    with pytest.raises(MergeError, match="null record key"):
        merge_with_base(BASE, table([{"key": None, "ts": 1}]), event_time, ctx)


def test_empty_sides(event_time: RecordMerger, ctx: MergeContext) -> None:
    only_inserts = merge_with_base(BASE.schema.empty_table(), BASE, event_time, ctx)
    assert only_inserts.table.equals(BASE)
    assert only_inserts.num_inserts == 4
    unchanged = merge_with_base(BASE, BASE.schema.empty_table(), event_time, ctx)
    assert unchanged.table.equals(BASE)
    assert unchanged.num_unchanged == 4
    nothing = merge_with_base(pa.table({}), pa.table({}), event_time, ctx)
    assert nothing.table.num_rows == 0


def test_new_incoming_columns_are_null_for_untouched_rows(commit_time: RecordMerger, ctx: MergeContext) -> None:
    incoming = table([{"key": "a", "ts": 1, "name": "a@new", "extra": 1.5}])
    result = merge_with_base(BASE, incoming, commit_time, ctx)
    assert result.table.column("extra").to_pylist() == [1.5, None, None, None]


def test_widened_types_and_large_string_keys_are_unified(event_time: RecordMerger, ctx: MergeContext) -> None:
    base = BASE.cast(pa.schema([(RECORD_KEY_FIELD, pa.large_string()), ("ts", pa.int32()), ("name", pa.string())]))
    incoming = table([{"key": "b", "ts": 2**40, "name": "b@big"}])
    result = merge_with_base(base, incoming, event_time, ctx)
    assert picked(result.table) == ["a@base", "b@big", "c@base", "d@base"]
    assert result.table.schema.field("ts").type == pa.int64()
    exact = merge_with_base(base, incoming.slice(0, 0), event_time, replace(ctx, schema=base.schema))
    assert exact.table.equals(base)


def test_soft_delete_column_of_the_table_is_kept(event_time: RecordMerger, ctx: MergeContext) -> None:
    base = BASE.append_column(IS_DELETED_FIELD, pa.array([False, None, False, False]))
    result = merge_with_base(base, commit_time_deletes(["a"], ctx), event_time, ctx)
    # Untouched rows are kept exactly as stored (b's null too).
    assert result.table.column(IS_DELETED_FIELD).to_pylist() == [None, False, False]
    assert "_hudi_fw_supersedes_older" not in result.table.column_names


def test_project_to_schema_casts_adds_and_reorders() -> None:
    schema = pa.schema([("name", pa.string()), ("ts", pa.int64()), ("missing", pa.float32())])
    projected = project_to_schema(BASE.cast(BASE.schema.set(1, pa.field("ts", pa.int8()))), schema)
    assert projected.schema == schema
    assert projected.column("missing").null_count == 4
    with pytest.raises(MergeError, match="cannot be cast"):
        project_to_schema(pa.table({"name": [{"x": 1}]}), schema)


def test_many_random_keys_match_a_dict_model(event_time: RecordMerger, ctx: MergeContext) -> None:
    rng = np.random.default_rng(7)
    base_keys = [f"k{i}" for i in rng.permutation(500)]
    base = table(
        [{"key": k, "ts": int(t), "name": f"{k}@base"} for k, t in zip(base_keys, rng.integers(0, 5, 500), strict=True)]
    )
    rows = [
        {"key": f"k{int(k)}", "ts": int(t), "name": f"v{i}", IS_DELETED_FIELD: bool(d)}
        for i, (k, t, d) in enumerate(
            zip(rng.integers(0, 700, 900), rng.integers(0, 5, 900), rng.random(900) < 0.1, strict=True)
        )
    ]
    model = {r[RECORD_KEY_FIELD]: (r["ts"], r["name"], False) for r in base.to_pylist()}
    for row in rows:
        key, ts, name, deleted = row["key"], row["ts"], row["name"], row[IS_DELETED_FIELD]
        if key not in model or ts >= model[key][0]:
            model[key] = (ts, name, deleted)
    result = merge_with_base(base, table(rows), event_time, ctx)
    got = {r[RECORD_KEY_FIELD]: (r["ts"], r["name"], False) for r in result.table.to_pylist()}
    assert got == {k: v for k, v in model.items() if not v[2]}
