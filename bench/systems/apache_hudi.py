"""Apache Hudi 1.2.0 on Spark ``local[2]`` (its Spark 3.5 bundle): the anchor of our Spark engine.

The same inputs and write settings as ours (``hoodie.index.type=BLOOM``, small-file handling off for
merge-on-read upserts so the batch goes to log files, the rest at its defaults) with Apache Hudi's
options for the same keys. One difference on purpose: ``hoodie.metadata.enable=false``. We keep no
metadata table, and maintaining one is extra work (a second commit into the metadata table per
write), so Apache Hudi does the same work as ours, and the anchor is the faster of its two setups.

Every step starts from a table Apache Hudi wrote itself (prepared in a session of its own, unmeasured)
and runs in a fresh session (:mod:`bench.apache_hudi_session`) whose start-up is reported apart, as
our Spark steps' is.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from bench import apache_hudi_session
from bench.dataset import EVENT_TIME, KEY, PARTITION
from bench.step import Step, StepContext
from bench.systems import ours

SYSTEM = "apache-hudi"
ENGINE = "apache-hudi"
#: Apache Hudi's compaction trigger counts delta commits (5 by default): the prepared table has two
#: (the bulk insert and the upsert), and one is enough to compact it, as ours does.
COMPACTION_OPTIONS = "hoodie.compact.inline.max.delta.commits=1"


def table_path(ctx: StepContext) -> Path:
    return ctx.work / "table"


def write_options(table_type: str) -> dict[str, str]:
    """Apache Hudi's options for the bench table: the keys of ours, our settings, no metadata table."""
    options = {
        "hoodie.table.name": "bench",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": KEY,
        "hoodie.datasource.write.partitionpath.field": PARTITION,
        "hoodie.datasource.write.precombine.field": EVENT_TIME,
        "hoodie.metadata.enable": "false",
        **ours.SETTINGS,
    }
    if table_type == "MERGE_ON_READ":
        options |= ours.MOR_SETTINGS
    return options


#: The snapshot read's options (no metadata table to look for).
READ_OPTIONS = {"hoodie.metadata.enable": "false"}


def write_request(ctx: StepContext, data: Path, table_type: str, operation: str) -> dict[str, Any]:
    """The driver's ``write`` request: the input parquet file as it is, as our Spark step reads it."""
    return {
        "op": "write",
        "path": str(table_path(ctx)),
        "options": write_options(table_type),
        "operation": operation,
        "data": str(data),
        "mode": "append",
    }


def scan_request(ctx: StepContext) -> dict[str, Any]:
    """The driver's ``scan`` request: a snapshot read of every row and column into Spark's noop sink."""
    return {"op": "scan", "path": str(table_path(ctx)), "options": READ_OPTIONS}


def compaction_query(ctx: StepContext) -> str:
    return (
        f"CALL run_compaction(op => 'scheduleAndExecute', path => '{table_path(ctx)}', "
        f"options => '{COMPACTION_OPTIONS}')"
    )


def _load(table_type: str, *, upserted: bool = False) -> Any:
    def prepare(ctx: StepContext) -> None:
        with apache_hudi_session.session() as client:
            client.call(write_request(ctx, ctx.inputs.base, table_type, "bulk_insert"))
            if upserted:
                client.call(write_request(ctx, ctx.inputs.changes, table_type, "upsert"))

    return prepare


#: The states Apache Hudi's steps start from (one object each: prepared once per size, then copied).
load_cow = _load("COPY_ON_WRITE")
load_mor = _load("MERGE_ON_READ")
upserted_mor = _load("MERGE_ON_READ", upserted=True)


def bulk_insert(ctx: StepContext) -> dict[str, Any]:
    ctx.apache_hudi.call(write_request(ctx, ctx.inputs.base, "COPY_ON_WRITE", "bulk_insert"))
    return {}


def _upsert(table_type: str) -> Any:
    def run(ctx: StepContext) -> dict[str, Any]:
        """Updates, inserts and deletes (``_hoodie_is_deleted`` rows) in one commit."""
        ctx.apache_hudi.call(write_request(ctx, ctx.inputs.changes, table_type, "upsert"))
        return {}

    return run


def compaction(ctx: StepContext) -> dict[str, Any]:
    rows = ctx.apache_hudi.sql(compaction_query(ctx))
    if [row.get("state") for row in rows] != ["COMPLETED"]:
        raise RuntimeError(f"Apache Hudi did not complete one compaction: {rows}")
    return {"instant": rows[0].get("timestamp")}


def snapshot_read(ctx: StepContext) -> dict[str, Any]:
    ctx.apache_hudi.call(scan_request(ctx))
    return {}


def warm_read(ctx: StepContext) -> dict[str, Any]:
    """Unmeasured: a snapshot read of a copy of the step's table, as a long-lived job has done before."""
    copy = ctx.work / "warm_table"
    shutil.copytree(table_path(ctx), copy)
    ctx.apache_hudi.call({"op": "scan", "path": str(copy), "options": READ_OPTIONS})
    return {}


def _step(name: str, run: Any, prepare: Any = None, warm: Any = None) -> Step:
    return Step(SYSTEM, name, run, prepare, engine=ENGINE, requires=apache_hudi_session.unavailable, warm=warm)


STEPS = [
    _step("bulk_insert", bulk_insert),
    _step("cow_upsert", _upsert("COPY_ON_WRITE"), load_cow),
    _step("mor_upsert", _upsert("MERGE_ON_READ"), load_mor),
    _step("mor_compaction", compaction, upserted_mor),
    _step("cow_read", snapshot_read, load_cow),
    _step("cow_read_warm", snapshot_read, load_cow, warm=warm_read),
    _step("mor_read", snapshot_read, upserted_mor),
]
