"""The merged read's positional merge (one hash pass, merger on aligned pairs, one gather) against the
reference it replaced: per base batch, ``merge_with_base`` on the log rows whose keys the batch holds."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.contracts.merger import IS_DELETED_FIELD, RECORD_KEY_FIELD, MergeContext, RecordMerger
from hudi_framework.contracts.merging.ordering import as_mask
from hudi_framework.errors import MergeError
from hudi_framework.merge import merge_with_base
from hudi_framework.merge.align import gather
from hudi_framework.read.log_records import log_schema
from hudi_framework.read.merged import _merge_part
from hudi_framework.read.merged_task import InstantValidity, MergedReadTask
from tests.unit.merge.reference import RecordEventTimeMerger

SCHEMA = pa.schema(
    [
        pa.field("_hoodie_commit_time", pa.string()),
        pa.field(RECORD_KEY_FIELD, pa.string()),
        pa.field("ts", pa.int64()),
        pa.field("name", pa.string()),
        pa.field("score", pa.float64()),
    ]
)


def _task(merger: RecordMerger) -> MergedReadTask:
    return MergedReadTask(
        base_file_key=None, log_file_keys=(), validity=InstantValidity(frozenset()), merger=merger,
        merge_schema=SCHEMA, schema=SCHEMA, partition_path="p", ordering_fields=("ts",),
    )  # fmt: skip


def _base(n: int, rng: np.random.Generator) -> pa.Table:
    keys = [f"k{i:05d}" for i in rng.permutation(n)]
    return pa.table(
        {
            "_hoodie_commit_time": ["001"] * n,
            RECORD_KEY_FIELD: keys,
            "ts": rng.integers(0, 100, n),
            "name": [f"base-{k}" for k in keys],
            "score": rng.random(n),
        },
        schema=SCHEMA,
    )


def _logs(base_keys: list[str], rng: np.random.Generator, n: int) -> pa.Table:
    """Updates of stored keys (some older by ordering), repeated keys, deletes, inserts and deletes
    of unknown keys, in the log schema."""
    stored = [base_keys[i] for i in rng.integers(0, len(base_keys), n)]
    new = [f"new{i:04d}" for i in rng.integers(0, n // 4, n // 3)]
    keys = stored + new
    m = len(keys)
    table = pa.table(
        {
            "_hoodie_commit_time": ["002"] * m,
            RECORD_KEY_FIELD: keys,
            "ts": rng.integers(0, 120, m),
            "name": [f"log-{i}" for i in range(m)],
            "score": rng.random(m),
            IS_DELETED_FIELD: rng.random(m) < 0.15,
        }
    )
    schema = log_schema(SCHEMA)
    columns = [table.column(f.name) if f.name in table.column_names else pa.nulls(m, f.type) for f in schema]
    return pa.Table.from_arrays(columns, schema=pa.schema([f.with_nullable(True) for f in schema]))


def _reference(
    batches: Iterable[pa.RecordBatch], logs: pa.Table, task: MergedReadTask, ctx: MergeContext
) -> Iterator[pa.Table]:
    """The merge before the positional one: ``is_in`` to find the batch's keys, then ``merge_with_base``."""
    combined = task.merger.combine(logs, ctx)
    keys = combined.column(ctx.record_key_field)
    matched = np.zeros(combined.num_rows, dtype=np.bool_)
    for batch in batches:
        base = pa.Table.from_batches([batch])
        at = np.flatnonzero(as_mask(pc.is_in(keys, value_set=base.column(ctx.record_key_field))))
        if not len(at):
            yield base
            continue
        matched[at] = True
        yield merge_with_base(base, combined.take(pa.array(at)), task.merger, ctx).table
    rest = np.flatnonzero(~matched)
    yield merge_with_base(SCHEMA.empty_table(), combined.take(pa.array(rest)), task.merger, ctx).table


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("merger_name", ["event_time", "commit_time", "per_record"])
def test_positional_merge_matches_merge_with_base(
    seed: int, merger_name: str, event_time: RecordMerger, commit_time: RecordMerger
) -> None:
    merger = {"event_time": event_time, "commit_time": commit_time, "per_record": RecordEventTimeMerger()}[merger_name]
    task = _task(merger)
    ctx = task.merge_context
    rng = np.random.default_rng(seed)
    base = _base(3000, rng)
    logs = _logs(base.column(RECORD_KEY_FIELD).to_pylist(), rng, 900)
    batches = base.to_batches(max_chunksize=700)  # several base batches, one slice
    out = pa.Table.from_batches(list(_merge_part(batches, logs, task, ctx, 700)), schema=SCHEMA)
    expected = pa.concat_tables(_reference(batches, logs, task, ctx))
    assert out.num_rows == expected.num_rows
    # The same rows; the order differs by design: per batch, the stored rows no log row replaced
    # come first, in file order.
    assert out.sort_by(RECORD_KEY_FIELD).equals(expected.sort_by(RECORD_KEY_FIELD))
    untouched = set(base.column(RECORD_KEY_FIELD).to_pylist()) - set(logs.column(RECORD_KEY_FIELD).to_pylist())
    in_first = set(batches[0].column(RECORD_KEY_FIELD).to_pylist())
    first = [k for k in out.column(RECORD_KEY_FIELD).to_pylist() if k in in_first]  # the first batch's rows
    stored_first = [k for k in batches[0].column(RECORD_KEY_FIELD).to_pylist() if k in untouched]
    assert [k for k in first if k in untouched] == stored_first
    if merger_name == "commit_time":  # every log row wins: the stored part is exactly the untouched rows
        assert first[: len(stored_first)] == stored_first


def test_a_batch_no_log_key_hits_passes_through_unchecked(event_time: RecordMerger) -> None:
    task = _task(event_time)
    stored = _base(10, np.random.default_rng(3))
    duplicated = pa.concat_tables([stored, stored])  # no log key hits it: streamed as is, as before
    logs = _logs(["zzz"], np.random.default_rng(4), 4).filter(pc.equal(pc.field(RECORD_KEY_FIELD), "zzz"))
    out = list(_merge_part(duplicated.to_batches(), logs, task, task.merge_context, 100))
    assert sum(b.num_rows for b in out) >= duplicated.num_rows


@pytest.mark.parametrize("batch_rows", [100, 3, 1])
def test_duplicate_base_keys_take_a_log_row_into_their_first_row(event_time: RecordMerger, batch_rows: int) -> None:
    # KeyBasedFileGroupRecordBuffer.hasNextBaseRecord: records.remove(key), so a log row merges into
    # the first stored row of its key, in whichever batch it is; the key's later rows pass through.
    task = _task(event_time)
    stored = _base(10, np.random.default_rng(5))
    duplicated = pa.concat_tables([stored, stored]).combine_chunks()
    logs = _logs(stored.column(RECORD_KEY_FIELD).to_pylist(), np.random.default_rng(6), 4)
    out = pa.Table.from_batches(
        list(_merge_part(duplicated.to_batches(max_chunksize=batch_rows), logs, task, task.merge_context, 100))
    )
    first = pa.Table.from_batches(list(_merge_part(stored.to_batches(), logs, task, task.merge_context, 100)))
    expected = pa.concat_tables([first, stored])  # the second copies: untouched
    assert sorted(map(str, out.to_pylist())) == sorted(map(str, expected.to_pylist()))


def test_null_base_key_hit_batch_raises(event_time: RecordMerger) -> None:
    task = _task(event_time)
    stored = _base(10, np.random.default_rng(7))
    keys = stored.column(RECORD_KEY_FIELD).to_pylist()
    with_null = stored.set_column(1, SCHEMA.field(RECORD_KEY_FIELD), pa.array([None, *keys[1:]], pa.string()))
    logs = _logs(keys[1:], np.random.default_rng(8), 4)
    with pytest.raises(MergeError, match="null record key"):
        list(_merge_part(with_null.to_batches(), logs, task, task.merge_context, 100))


def test_gather_is_take() -> None:
    rows = pa.concat_tables([_base(50, np.random.default_rng(9)), _base(30, np.random.default_rng(10))])
    at = np.random.default_rng(11).integers(0, rows.num_rows, 120)
    assert gather(rows, at).equals(rows.take(pa.array(at)))
    assert gather(rows, np.zeros(0, dtype=np.int64)).num_rows == 0
