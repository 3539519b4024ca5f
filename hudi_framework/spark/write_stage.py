"""Routing and writing on Spark: executors route rows and rewrite file groups; the driver commits.

* **Summary** (one ``mapInArrow`` + a Spark ``groupBy``): each task summarises its rows with the
  kernel's :func:`~hudi_framework.write.planner.routing_summary`; the driver collects only the
  sums (partitions seen, inserts per partition, rows per located file group) and plans with
  :func:`~hudi_framework.write.planner.plan_targets`.
* **Routing** (one ``mapInArrow``): the plan is broadcast and every batch is routed with
  :func:`~hudi_framework.write.planner.route_rows`: updates by their location, inserts by
  ``xxhash64(record key)`` against the buckets' capacities (Apache Hudi's rule, so no task needs to
  see the other tasks' rows), plus a delete copy of each key that moves partitions.
* **Write** (``repartition`` by target + ``sortWithinPartitions(target, arrival)`` + one
  ``mapInArrow``): every target lands in its own partition (:mod:`~hudi_framework.spark.placement`),
  so each task writes its file group once with
  :func:`~hudi_framework.write.target_task.write_target` (a new base file, or a merge-on-read log
  append), the function the local engine calls, reading the base file with pyarrow inside the task. Its write token is
  ``<partition id>-<stage id>-<attempt number>``, so files of duplicate attempts never collide,
  and it returns its write stat as a JSON row.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, Final

import numpy as np
import pyarrow as pa
from pyspark.sql import functions as F  # noqa: N812 - the conventional alias

from hudi_framework.contracts.index import LOCATION_COLUMNS
from hudi_framework.errors import CommitError
from hudi_framework.metadata.key_changes import FileKeyChanges
from hudi_framework.spark.arrow_types import SparkSchema, collect_arrow, to_spark_batches
from hudi_framework.spark.job_group import isolated_job
from hudi_framework.spark.keys_stage import SEQ
from hudi_framework.spark.placement import partition_slots
from hudi_framework.spark.task_errors import carrying_errors
from hudi_framework.spark.worker import WorkerSpec, worker_components
from hudi_framework.timeline.metadata import WriteStat
from hudi_framework.write.planner import (
    INSERTED,
    IS_DELETED,
    SUMMARY_SCHEMA,
    TARGET,
    TargetPlan,
    apply_routing,
    merge_summaries,
    route_rows,
    routing_summary,
)
from hudi_framework.write.prepare import PARTITION_PATH, RECORD_KEY
from hudi_framework.write.target_task import write_target

if TYPE_CHECKING:
    from pyspark import Broadcast
    from pyspark.sql import DataFrame, SparkSession

    from hudi_framework.write.file_group_task import WriteTaskContext

__all__ = ["STAT_SCHEMA", "summarize", "write_file_groups"]

#: What a write task returns per file group: the target, the task's write token, the stat JSON,
#: when the record index asks for them, the keys the file group gained and lost, and when
#: column_stats asks for them, a log file's column statistics (Arrow IPC of a few rows per column;
#: empty: a log without records) (null otherwise).
STAT_SCHEMA: Final = pa.schema(
    [
        pa.field("target", pa.int64()),
        pa.field("token", pa.string()),
        pa.field("stat", pa.string()),
        pa.field("inserted", pa.list_(pa.string())),
        pa.field("deleted", pa.list_(pa.string())),
        pa.field("log_stats", pa.binary()),
    ]
)
_SLOT: Final = "_hudi_fw_slot"
_HASH: Final = "_hudi_fw_key_hash"


def _summary_task(out: pa.Schema, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    summaries = [routing_summary(b) for b in batches if b.num_rows]
    yield from to_spark_batches(merge_summaries(summaries), out)


def summarize(rows: DataFrame, *, few_groups: bool = False) -> pa.Table:
    """The routing summary of ``rows`` (one small table on the driver).

    Args:
        rows: The staged rows.
        few_groups: The rows can only be located in few file groups (narrow tagging): each task's
            sums are collected and added up on the driver, without a shuffle and its job. Otherwise
            Spark sums them by group first.
    """
    needed = [c for c in (PARTITION_PATH, IS_DELETED, *LOCATION_COLUMNS) if c in rows.columns]
    schema = SparkSchema.of_arrow(SUMMARY_SCHEMA)
    partial_sums = rows.select(*needed).mapInArrow(partial(_summary_task, schema.arrow), schema.struct)
    if few_groups:
        return merge_summaries([collect_arrow(partial_sums)])
    summed = partial_sums.groupBy("kind", "partition", "file_id").agg(F.sum("rows").alias("rows"))
    return collect_arrow(summed)


@carrying_errors
def _route_task(
    plan: Broadcast[TargetPlan], slots: tuple[int, ...], out: pa.Schema, batches: Iterable[pa.RecordBatch]
) -> Iterator[pa.RecordBatch]:
    slot_of = np.asarray(slots, dtype=np.int32)
    for batch in batches:
        if not batch.num_rows:
            continue
        rows = pa.Table.from_batches([batch])
        hashes = np.asarray(rows.column(_HASH).to_numpy(), dtype=np.int64)
        rows = rows.drop_columns([_HASH])
        routed = apply_routing(rows, route_rows(rows, plan.value, key_hashes=hashes))
        targets = routed.column(TARGET).to_numpy()
        routed = routed.append_column(_SLOT, pa.array(slot_of[targets % len(slot_of)], pa.int32()))
        yield from to_spark_batches(routed, out)


def _token() -> str:
    from pyspark import TaskContext

    ctx = TaskContext.get()
    if ctx is None:
        return "0-0-0"
    return f"{ctx.partitionId()}-{ctx.stageId()}-{ctx.attemptNumber()}"


@carrying_errors
def _write_task(
    spec: WorkerSpec,
    plan: Broadcast[TargetPlan],
    ctx: WriteTaskContext,
    out: pa.Schema,
    key_changes: bool,
    log_stats: bool,
    batches: Iterable[pa.RecordBatch],
) -> Iterator[pa.RecordBatch]:
    components = worker_components(spec)
    targets = plan.value.targets
    token = _token()

    def flush(target: int, parts: list[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        incoming = pa.Table.from_batches(parts).drop_columns([TARGET, _SLOT, SEQ])
        changes: dict[str, FileKeyChanges] | None = {} if key_changes else None
        stats_of_logs: dict[str, pa.Table | None] | None = {} if log_stats else None
        stats = write_target(
            components.storage,
            components.write.merger,
            ctx,
            targets[target],
            incoming,
            task_partition_id=target,
            write_token=token,
            keygen=components.write.keygen,
            key_changes=changes,
            log_stats=stats_of_logs,
        )
        # Only the keys a file group gained or lost travel to the driver, never its rows; one row
        # per file written (a log append that rolls over writes several).
        for stat in stats:
            change = changes.get(stat.path or "") if changes else None
            row = {
                "target": pa.array([target], pa.int64()),
                "token": pa.array([token], pa.string()),
                "stat": pa.array([json.dumps(stat.model_dump(by_alias=True))], pa.string()),
                "inserted": _key_list(change.inserted if change else None),
                "deleted": _key_list(change.deleted if change else None),
                "log_stats": pa.array([_ipc(stats_of_logs, stat.path or "")], pa.binary()),
            }
            yield from to_spark_batches(pa.table(row), out)

    current = -1
    pending: list[pa.RecordBatch] = []
    for batch in batches:
        if not batch.num_rows:
            continue
        column = batch.column(TARGET).to_numpy()
        cuts = np.flatnonzero(np.diff(column)) + 1
        for start, end in zip(np.r_[0, cuts], np.r_[cuts, len(column)], strict=True):
            target = int(column[start])
            if target != current and pending:
                yield from flush(current, pending)
                pending = []
            current = target
            pending.append(batch.slice(int(start), int(end - start)))
    if pending:
        yield from flush(current, pending)


def _ipc(stats: dict[str, pa.Table | None] | None, path: str) -> bytes | None:
    """A log file's column statistics as Arrow IPC (b"": none), None when the task did not tell."""
    if stats is None or path not in stats:
        return None
    table = stats[path]
    if table is None:
        return b""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def _key_list(keys: pa.Array | None) -> pa.Array:
    """One list cell of ``keys`` (null: the task did not tell)."""
    if keys is None:
        return pa.nulls(1, pa.list_(pa.string()))
    values = keys.cast(pa.string())
    return pa.ListArray.from_arrays(pa.array([0, len(values)], pa.int32()), values)


def _parse_stats(
    table: pa.Table,
    plan: TargetPlan,
    key_changes: dict[str, FileKeyChanges] | None = None,
    log_stats: dict[str, pa.Table | None] | None = None,
) -> list[WriteStat]:
    stats: dict[int, list[WriteStat]] = {}
    reporter: dict[int, str] = {}
    targets = table.column("target").to_pylist()
    tokens = table.column("token").to_pylist()
    texts = table.column("stat").to_pylist()
    for i, (target, token, text) in enumerate(zip(targets, tokens, texts, strict=True)):
        # One task reports each target (a file per row); a second task reporting it is a retry's duplicate.
        if reporter.setdefault(target, token) != token or not 0 <= target < len(plan.targets):
            raise CommitError(f"file group target {target} was reported twice or is unknown")
        stat = WriteStat.model_validate_json(text)
        stats.setdefault(target, []).append(stat)
        inserted, deleted = table.column("inserted")[i], table.column("deleted")[i]
        if key_changes is not None and stat.path and inserted.is_valid and deleted.is_valid:
            key_changes[stat.path] = FileKeyChanges(inserted.values, deleted.values)
        handed = table.column("log_stats")[i].as_py()
        if log_stats is not None and stat.path and handed is not None:
            log_stats[stat.path] = pa.ipc.open_stream(handed).read_all() if handed else None
    return [stat for t in sorted(stats) for stat in stats[t]]


def write_file_groups(
    spark: SparkSession,
    spec: WorkerSpec,
    rows: DataFrame,
    plan: TargetPlan,
    ctx: WriteTaskContext,
    *,
    max_tasks: int | None = None,
    key_changes: dict[str, FileKeyChanges] | None = None,
    log_stats: dict[str, pa.Table | None] | None = None,
) -> list[WriteStat]:
    """Route ``rows`` by ``plan``, rewrite every file group once in executors, return the stats.

    Args:
        spark: The session.
        spec: How tasks rebuild the components.
        rows: The staged (keyed, combined, tagged) rows, with the arrival column.
        plan: The driver's plan.
        ctx: What every file-group task shares (instant, file schema...).
        max_tasks: At most this many write tasks (None: one per file group).
        key_changes: When given, filled with the keys each written file's group gained and lost
            (the executors return those keys only).
        log_stats: When given, filled with each written log file's column statistics (the
            executors return those only).

    Returns:
        One stat per file written, by target.

    Raises:
        CommitError: A target was reported twice.
        TimeoutError: Tasks outlived the job (nothing may be committed then).
    """
    num_targets = len(plan.targets)
    tasks = max(1, min(num_targets, max_tasks or num_targets))
    sc = spark.sparkContext
    broadcast: Broadcast[Any] = sc.broadcast(plan)
    try:
        fields = [f for f in SparkSchema.of_frame(rows).arrow if f.name not in LOCATION_COLUMNS]
        if plan.log_inserts:  # routing tells the log appends which rows are inserts
            fields.append(pa.field(INSERTED, pa.bool_()))
        routed_schema = SparkSchema.of_arrow(
            pa.schema([*fields, pa.field(TARGET, pa.int64()), pa.field(_SLOT, pa.int32())])
        )
        stat_schema = SparkSchema.of_arrow(STAT_SCHEMA)
        routed = rows.withColumn(_HASH, F.xxhash64(F.col(RECORD_KEY))).mapInArrow(
            partial(_route_task, broadcast, partition_slots(tasks), routed_schema.arrow), routed_schema.struct
        )
        written = (
            routed.repartition(tasks, _SLOT)
            .sortWithinPartitions(TARGET, SEQ)
            .mapInArrow(
                partial(
                    _write_task, spec, broadcast, ctx, stat_schema.arrow, key_changes is not None, log_stats is not None
                ),
                stat_schema.struct,
            )
        )
        with isolated_job(sc, f"hudi write {ctx.instant}"):
            table = collect_arrow(written)
        return _parse_stats(table, plan, key_changes, log_stats)
    finally:
        broadcast.destroy()
