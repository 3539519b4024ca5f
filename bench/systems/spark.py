"""Spark ``local[2]``: our ``SparkWriteClient`` upsert, and the naive Spark upsert it is held to; our
``format("hudi")`` snapshot reads (held to Apache Hudi's, :mod:`bench.systems.apache_hudi`).

``naive_upsert`` is the floor for any Spark copy-on-write job: read the base parquet files, full
outer join them with the batch on the key, keep the batch's version where there is one, drop the
deleted keys, write every row again as parquet partitioned the same way. It knows nothing of file
groups, event-time ordering, indexes or commits; the session is the worker's (see
:mod:`bench.spark_session`), so start-up is not part of either step.
"""

from __future__ import annotations

import shutil
from typing import Any

from pyspark.sql import DataFrame
from pyspark.sql import functions as sf

from bench import compaction64
from bench.dataset import DELETED, KEY, PARTITION
from bench.step import Step, StepContext
from bench.systems import ours, pyarrow_floor
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.write_engine import SparkWriteClient

#: Marks the batch's side of the join (the batch's own columns may be null).
_IN_BATCH = "_in_batch"


def _changes(ctx: StepContext) -> DataFrame:
    frame: DataFrame = ctx.spark.read.parquet(str(ctx.inputs.changes))
    return frame


def upsert(ctx: StepContext) -> dict[str, Any]:
    """Our Spark engine: updates, inserts and deletes (``_hoodie_is_deleted``) in one commit."""
    table = HudiTable.open(str(ctx.work / "table"))
    result = SparkWriteClient(table, ours.settings(), ctx.spark).upsert(_changes(ctx))
    return {"rows": result.num_writes, "files": len(result.stats), "deletes": result.num_deletes}


def snapshot(ctx: StepContext) -> DataFrame:
    """Our ``format("hudi")`` snapshot of the step's table."""
    frame: DataFrame = ctx.spark.read.format("hudi").load(str(ctx.work / "table"))
    return frame


def snapshot_read(ctx: StepContext) -> dict[str, Any]:
    """Every row and column of the snapshot into Spark's ``noop`` sink: the read alone, no output (a
    ``count()`` would read no column at all)."""
    snapshot(ctx).write.format("noop").mode("overwrite").save()
    return {}


def warm_read(ctx: StepContext) -> dict[str, Any]:
    """Unmeasured: a snapshot read of a copy of the step's table, as a long-lived job has done before
    (Spark's planner processes and code paths up; the copy keeps the measured read's table cold)."""
    copy = ctx.work / "warm_table"
    shutil.copytree(ctx.work / "table", copy)
    ctx.spark.read.format("hudi").load(str(copy)).write.format("noop").mode("overwrite").save()
    return {}


def naive_output(ctx: StepContext) -> str:
    """Where :func:`naive_upsert` writes the new version of the files."""
    return str(ctx.work / "rewritten")


def naive_upsert(ctx: StepContext) -> dict[str, Any]:
    base = ctx.spark.read.parquet(pyarrow_floor.root(ctx))
    batch = _changes(ctx).withColumn(_IN_BATCH, sf.lit(True))
    joined = base.alias("b").join(batch.alias("c"), sf.col(f"b.{KEY}") == sf.col(f"c.{KEY}"), "full_outer")
    from_batch = sf.col(f"c.{_IN_BATCH}").isNotNull()
    merged = joined.where(~(from_batch & sf.col(f"c.{DELETED}"))).select(
        *[sf.when(from_batch, sf.col(f"c.{name}")).otherwise(sf.col(f"b.{name}")).alias(name) for name in base.columns]
    )
    # A table cannot be overwritten while it is read: the new version goes beside it, as a COW commit's would.
    merged.write.mode("overwrite").partitionBy(PARTITION).parquet(naive_output(ctx))
    return {}


STEPS = [
    Step("ours-spark", "cow_upsert", upsert, ours.load_cow, engine="spark"),
    Step("spark-naive", "cow_upsert", naive_upsert, pyarrow_floor.prepare, engine="spark"),
    Step("ours-spark", "cow_read", snapshot_read, ours.load_cow, engine="spark"),
    Step("ours-spark", "cow_read_warm", snapshot_read, ours.load_cow, engine="spark", warm=warm_read),
    # The first read of a session whose planner processes are not started yet (built by hand).
    Step("ours-spark", "cow_read_unprimed", snapshot_read, ours.load_cow, engine="spark", planners=False),
    Step("ours-spark", "mor_read", snapshot_read, ours.upserted_mor, engine="spark"),
    Step("ours-spark", "mor_compaction_64fg", compaction64.spark_executors, compaction64.prepare, engine="spark"),
]
