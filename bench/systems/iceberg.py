"""pyiceberg: append, upsert (its join-based upsert) plus delete, scan; a SQLite catalog per table."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import In
from pyiceberg.table import Table

from bench.dataset import KEY, PARTITION, split_changes
from bench.step import Step, StepContext


def _catalog(ctx: StepContext) -> SqlCatalog:
    warehouse = ctx.work / "warehouse"
    warehouse.mkdir(parents=True, exist_ok=True)
    return SqlCatalog("bench", uri=f"sqlite:///{ctx.work / 'catalog.db'}", warehouse=f"file://{warehouse}")


def _table(ctx: StepContext) -> Table:
    return _catalog(ctx).load_table("bench.t")


def append(ctx: StepContext) -> dict[str, Any]:
    base = ctx.inputs.read_base()
    catalog = _catalog(ctx)
    catalog.create_namespace_if_not_exists("bench")
    table = catalog.create_table("bench.t", schema=base.schema)
    with table.update_spec() as spec:
        spec.add_identity(PARTITION)
    table.append(base)
    return {"rows": base.num_rows}


def upsert(ctx: StepContext) -> dict[str, Any]:
    upserts, deletes = split_changes(ctx.inputs.read_changes())
    table = _table(ctx)
    result = table.upsert(
        upserts.cast(pa.schema([table.schema().as_arrow().field(n) for n in upserts.column_names])), join_cols=[KEY]
    )
    table.delete(In(term=KEY, literals=deletes.column(KEY).to_pylist()))
    return {"rows": result.rows_updated + result.rows_inserted}


def scan(ctx: StepContext) -> dict[str, Any]:
    return {"rows": _table(ctx).scan().to_arrow().num_rows}


STEPS = [
    Step("pyiceberg", "bulk_insert", append),
    Step("pyiceberg", "cow_upsert", upsert, append, relocatable=False),
    Step("pyiceberg", "cow_read", scan, append, relocatable=False),
]
