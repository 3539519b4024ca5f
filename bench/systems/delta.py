"""deltalake (delta-rs): write, MERGE upsert with deletes, read."""

from __future__ import annotations

from typing import Any

from deltalake import DeltaTable, write_deltalake

from bench.dataset import DELETED, PARTITION
from bench.step import Step, StepContext


def _path(ctx: StepContext) -> str:
    return str(ctx.work / "delta")


def write(ctx: StepContext) -> dict[str, Any]:
    base = ctx.inputs.read_base()
    write_deltalake(_path(ctx), base, partition_by=[PARTITION])
    return {"rows": base.num_rows}


def merge(ctx: StepContext) -> dict[str, Any]:
    changes = ctx.inputs.read_changes()
    columns = [c for c in changes.column_names if c != DELETED]
    metrics = (
        DeltaTable(_path(ctx))
        .merge(changes, predicate="t.id = s.id AND t.region = s.region", source_alias="s", target_alias="t")
        .when_matched_delete(predicate=f"s.{DELETED}")
        .when_matched_update(updates={c: f"s.{c}" for c in columns})
        .when_not_matched_insert(updates={c: f"s.{c}" for c in columns}, predicate=f"NOT s.{DELETED}")
        .execute()
    )
    return {"rows": int(metrics.get("num_output_rows", 0))}


def read(ctx: StepContext) -> dict[str, Any]:
    return {"rows": DeltaTable(_path(ctx)).to_pyarrow_table().num_rows}


STEPS = [
    Step("deltalake", "bulk_insert", write),
    Step("deltalake", "cow_upsert", merge, write),
    Step("deltalake", "cow_read", read, write),
]
