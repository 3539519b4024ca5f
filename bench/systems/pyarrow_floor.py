"""Plain pyarrow: what writing, reading and rewriting the same files costs with no table format.

``rewrite`` is the floor for any copy-on-write upsert: read every file, apply the batch with an
Arrow join (drop changed and deleted keys, append the new versions), write every file again.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from bench.dataset import KEY, PARTITION, split_changes
from bench.step import Step, StepContext


def root(ctx: StepContext) -> str:
    """The hive-partitioned parquet files (``region=.../``), shared with the naive Spark upsert."""
    return str(ctx.work / "files")


def _write(table: pa.Table, root: str) -> None:
    pq.write_to_dataset(table, root, partition_cols=[PARTITION], existing_data_behavior="delete_matching")


def write(ctx: StepContext) -> dict[str, Any]:
    base = ctx.inputs.read_base()
    _write(base, root(ctx))
    return {"rows": base.num_rows}


def read(ctx: StepContext) -> dict[str, Any]:
    return {"rows": pq.read_table(root(ctx)).num_rows}


def rewrite(ctx: StepContext) -> dict[str, Any]:
    stored = pq.read_table(root(ctx))
    upserts, deletes = split_changes(ctx.inputs.read_changes())
    touched = pa.concat_arrays([upserts.column(KEY).combine_chunks(), deletes.column(KEY).combine_chunks()])
    kept = stored.filter(pc.invert(pc.is_in(stored.column(KEY), value_set=touched)))
    merged = pa.concat_tables([kept, upserts.select(kept.column_names).cast(kept.schema)])
    _write(merged, root(ctx))
    return {"rows": merged.num_rows}


def prepare(ctx: StepContext) -> None:
    _write(ctx.inputs.read_base(), root(ctx))


STEPS = [
    Step("pyarrow", "bulk_insert", write),
    Step("pyarrow", "cow_read", read, prepare),
    Step("pyarrow", "cow_upsert", rewrite, prepare),
]
