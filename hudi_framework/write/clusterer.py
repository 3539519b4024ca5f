"""Executing a clustering plan: each input group's rows rewritten into new file groups, then a ``replacecommit``.

Order on storage: ``T.clustering.inflight`` (``T.replacecommit.inflight`` on layout 1), then per
group its markers and new base files (fresh file ids, named with the clustering instant ``T``),
then the completed ``replacecommit`` last, whose ``partitionToReplaceFileIds`` names every input
file group. Until it exists readers see the input file groups only: the new files belong to a
pending instant.

Each group is one call of :func:`cluster_group` taking the group (its slices resolved) and the
:class:`ClusteringJob` every group shares, and returning the write stats: the unit of work an
engine can run anywhere. A group's rows are the merged read of its slices (log files applied, as a
snapshot query returns them), optionally ordered by the plan's sort columns (``linear``: column by
column; ``z-order`` / ``hilbert``: a space-filling curve over them), split into the plan's
``numOutputFileGroups`` contiguous runs, one base file each. With ``preserveHoodieMetadata`` (the
default, as Apache Hudi's ``hoodie.clustering.preserve.commit.metadata``) rows keep their commit
time and sequence number, so incremental queries do not see the rewrite as new data.

A failure rolls the attempt back before the error propagates: the marked files are deleted, then
the markers and the inflight file, leaving the plan requested so it can run again. Executing an
instant that is already inflight (a crashed run) does the same rollback first. Apache Hudi does not
roll back a pending clustering on its own either; a writer never touches it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.arrays import repeated_dictionary
from hudi_framework.contracts.indexing.footer import bloom_footer_metadata
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.contracts.storage_paths import join_key
from hudi_framework.contracts.task_runner import ServiceTaskRunner
from hudi_framework.errors import (
    ClusteringExecutionError,
    ClusteringPlanError,
    CommitVetoedError,
    InstantNotFoundError,
    WriteConflictError,
)
from hudi_framework.layout.file_group import FileGroupId, FileSlice
from hudi_framework.layout.naming import BaseFileName, new_file_id, new_file_id_prefix
from hudi_framework.layout.space_curves import DEFAULT_SAMPLE_SIZE, curve_order
from hudi_framework.lock import table_lock
from hudi_framework.model.schema import META_FIELDS
from hudi_framework.read.merged import merge_file_slice
from hudi_framework.read.merged_plan import instant_validity, record_key_field, table_merger
from hudi_framework.read.merged_task import DEFAULT_MERGE_MEMORY_BYTES, InstantValidity, MergedReadTask
from hudi_framework.read.schema import read_schema
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clustering_plan import ClusteringPlan, SliceInfo, decode_clustering_plan
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.metadata import CommitMetadata, ReplaceCommitMetadata, RuntimeStats, WriteStat
from hudi_framework.timeline.naming import LAYOUT_V1
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import WriteOperationType
from hudi_framework.write.base_file_writer import write_base_file
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.conflicts import check_write_conflicts, file_groups_of_write
from hudi_framework.write.file_group_task import WriteTaskContext, stamp_incoming
from hudi_framework.write.markers import IOType, create_marker
from hudi_framework.write.service_execution import (
    ServiceAttempt,
    ServiceResult,
    execute_attempt,
    resume_pending,
    rollback_attempt,
    stats_by_partition,
)
from hudi_framework.write.session import WriteSession
from hudi_framework.write.task_pool import LocalTaskRunner
from hudi_framework.write.worker import TaskStorage, WorkerSpec

__all__ = [
    "ClusteringJob",
    "ClusteringResult",
    "ClusteringTask",
    "ResolvedGroup",
    "check_layout_strategy",
    "cluster_group",
    "execute_clustering",
    "pending_clustering",
    "read_clustering_plan",
    "rollback_clustering",
    "row_order",
    "run_clustering_task",
]

FILE_NAME_FIELD = META_FIELDS[4]
#: The row orders a plan may name (``hoodie.layout.optimize.strategy``).
LAYOUT_STRATEGIES = frozenset({"linear", "z-order", "hilbert"})


class ClusteringResult(ServiceResult[ClusteringPlan]):
    """What one clustering did: the completed ``replacecommit``, the plan, one write stat per new base file."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ClusteringJob:
    """What every group of one clustering shares (picklable: it travels with each task).

    Attributes:
        storage: The table's storage (the driver's in process; rebuilt from the spec elsewhere).
        instant: The clustering instant.
        ctx: Base file schema, Parquet and bloom filter options.
        validity: Which instants' log blocks count (fixed before the instant went inflight).
        merge_schema: Schema of merged rows.
        key_field: The record key column.
        max_memory_bytes: Merge memory budget per slice.
        merger: The table's record merger.
        ordering_fields: The table's ordering fields.
        sort_columns: Columns rows are ordered by (none: read order).
        layout_strategy: ``linear``, ``z-order`` or ``hilbert``.
        build_method: How the curves build coordinates (``hoodie.layout.optimize.curve.build.method``).
        sample_size: Rows sampled for ``sample`` coordinates (``hoodie.layout.optimize.build.curve.sample.size``).
        preserve_metadata: Keep rows' commit time and sequence number.
        v8: Table version 8 or later (layout 2 write stats).
        file_id_seed: Drawn once per run: a group's new file ids derive from it and the group's
            index, so a retried task (Spark retries a lost executor's) rewrites the same files.
    """

    storage: TaskStorage
    instant: str
    ctx: WriteTaskContext
    validity: InstantValidity
    merge_schema: pa.Schema
    key_field: str
    max_memory_bytes: int
    merger: RecordMerger
    ordering_fields: tuple[str, ...]
    sort_columns: tuple[str, ...] = ()
    layout_strategy: str = "linear"
    build_method: str = "direct"
    sample_size: int = DEFAULT_SAMPLE_SIZE
    preserve_metadata: bool = True
    v8: bool = True
    file_id_seed: str = field(default_factory=new_file_id_prefix)


@dataclass(frozen=True, slots=True)
class ResolvedGroup:
    """One input group with its slices as the file-system view lists them.

    Attributes:
        index: The group's position in the plan (names its write tokens).
        partition_path: The group's partition.
        slices: The slices, restricted to the files the plan names.
        num_output_file_groups: New file groups to write.
    """

    index: int
    partition_path: str
    slices: tuple[FileSlice, ...]
    num_output_file_groups: int


@dataclass(frozen=True, slots=True)
class ClusteringTask:
    """One input group of a clustering, as a service task.

    Attributes:
        job: What the clustering's groups share.
        group: The group, its slices resolved.
    """

    job: ClusteringJob
    group: ResolvedGroup


def run_clustering_task(task: ClusteringTask) -> list[WriteStat]:
    """Cluster one group (a service task: runs where the runner runs it)."""
    return cluster_group(task.group, task.job)


def row_order(
    rows: pa.Table,
    columns: Sequence[str],
    strategy: str,
    *,
    build_method: str = "direct",
    sample_size: int = DEFAULT_SAMPLE_SIZE,
) -> pa.Array:
    """Indices that order ``rows`` by ``columns`` as ``strategy`` says
    (:func:`~hudi_framework.layout.space_curves.curve_order`: ``linear`` column by column, ascending,
    nulls first and NaN last as Spark sorts; ``z-order`` and ``hilbert`` along their curves, with
    coordinates built ``build_method``).

    Raises:
        ClusteringPlanError: A column is not in the rows, or the strategy is unknown.
    """
    missing = [c for c in columns if c not in rows.column_names]
    if missing:
        raise ClusteringPlanError("", f"sort column(s) {missing} not in the table's schema")
    if strategy not in LAYOUT_STRATEGIES:
        raise ClusteringPlanError("", f"unknown layout optimization strategy {strategy!r}")
    return curve_order(
        rows.select(list(columns)), list(columns), strategy, build_method=build_method, sample_size=sample_size
    )


def check_layout_strategy(instant: str, plan: ClusteringPlan) -> None:
    """Refuse a plan whose row order cannot be produced here, before anything is written.

    Raises:
        ClusteringPlanError: The strategy is unknown.
    """
    strategy = plan.layout_strategy
    if plan.sort_columns and strategy not in LAYOUT_STRATEGIES:
        raise ClusteringPlanError(instant, f"unknown layout optimization strategy {strategy!r}")


def pending_clustering(table: HudiTable, instant: str) -> Instant:
    """The pending clustering ``instant``.

    Raises:
        ClusteringPlanError: No such clustering, or it already completed.
    """
    timeline = table.timeline
    try:
        found = timeline.get(instant, Action.CLUSTERING)
    except InstantNotFoundError:
        raise ClusteringPlanError(instant, "no such clustering on the timeline") from None
    if found.is_completed:
        raise ClusteringPlanError(instant, "already completed")
    if found not in timeline.pending_clustering_plans():
        raise ClusteringPlanError(instant, f"instant is a {found.action} without a clustering plan")
    return found


def read_clustering_plan(table: HudiTable, instant: Instant) -> ClusteringPlan:
    """Decode the plan in the clustering's requested file."""
    key = table.timeline.file_key(instant, State.REQUESTED)
    plan = decode_clustering_plan(table.storage.read(key), path=key)
    return plan


def rollback_clustering(table: HudiTable, instant: str) -> list[str]:
    """Undo a failed or crashed attempt: delete its marked files, markers and inflight file.

    The requested plan stays, so the clustering can be executed again.

    Returns:
        The data file keys deleted.
    """
    return rollback_attempt(table, instant, Action.CLUSTERING)


def _group_rows(job: ClusteringJob, group: ResolvedGroup) -> pa.Table:
    storage = job.storage.get()
    parts: list[pa.RecordBatch] = []
    for file_slice in group.slices:
        task = MergedReadTask.whole_slice(
            file_slice,
            validity=job.validity,
            merger=job.merger,
            merge_schema=job.merge_schema,
            ordering_fields=job.ordering_fields,
            record_key_field=job.key_field,
            max_memory_bytes=job.max_memory_bytes,
        )
        parts.extend(merge_file_slice(storage, task))
    rows = pa.Table.from_batches(parts, schema=job.merge_schema) if parts else job.merge_schema.empty_table()
    return rows.select([f.name for f in job.ctx.schema if f.name in rows.column_names])


def _runs(num_rows: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous (offset, length) runs of nearly equal length covering ``num_rows`` rows."""
    parts = max(1, min(parts, num_rows))
    base, extra = divmod(num_rows, parts)
    out, offset = [], 0
    for i in range(parts):
        length = base + (1 if i < extra else 0)
        out.append((offset, length))
        offset += length
    return out


def cluster_group(group: ResolvedGroup, job: ClusteringJob) -> list[WriteStat]:
    """Rewrite one input group into new file groups; return one write stat per new base file.

    The unit of work of a clustering: it reads the group's slices, writes the new files (each
    marked first) and touches nothing else, so an engine may run groups anywhere and in any order.
    """
    started = time.monotonic()
    rows = _group_rows(job, group)
    if job.sort_columns and rows.num_rows > 1:
        order = row_order(
            rows, job.sort_columns, job.layout_strategy, build_method=job.build_method, sample_size=job.sample_size
        )
        rows = rows.take(order)
    if not job.preserve_metadata and rows.num_rows:
        rows = stamp_incoming(rows, job.instant, group.index)
    scan_ms = int((time.monotonic() - started) * 1000)
    storage = job.storage.get()
    stats = []
    prefix = str(uuid.uuid5(uuid.UUID(job.file_id_seed), str(group.index)))
    for n, (offset, length) in enumerate(_runs(rows.num_rows, group.num_output_file_groups)):
        chunk = rows.slice(offset, length)
        file_id = new_file_id(prefix, n)
        name = BaseFileName(file_id, f"{group.index}-{n}-0", job.instant, job.ctx.extension).name
        key = join_key(group.partition_path, name)
        create_marker(storage, job.instant, group.partition_path, name, IOType.CREATE)
        write_started = time.monotonic()
        if job.ctx.populate_meta_fields:
            index = chunk.schema.get_field_index(FILE_NAME_FIELD)
            chunk = chunk.set_column(index, FILE_NAME_FIELD, repeated_dictionary(name, chunk.num_rows))
            keys = pc.cast(chunk.column(job.key_field).combine_chunks(), pa.string())
            footer = bloom_footer_metadata(keys, job.ctx.bloom)
            size = write_base_file(storage, key, chunk, footer=footer, options=job.ctx.parquet, schema=job.ctx.schema)
        else:
            size = write_base_file(storage, key, chunk, options=job.ctx.parquet, schema=job.ctx.schema)
        create_ms = int((time.monotonic() - write_started) * 1000)
        stats.append(
            WriteStat(
                file_id=file_id,
                path=key,
                prev_commit="null",
                num_writes=chunk.num_rows,
                num_deletes=0,
                num_update_writes=0,
                num_inserts=chunk.num_rows,
                total_write_bytes=size,
                total_write_errors=0,
                partition_path=group.partition_path,
                file_size_in_bytes=size,
                runtime_stats=RuntimeStats(total_scan_time=scan_ms, total_create_time=create_ms, total_upsert_time=0),
                # Java's counters of a create handle: zero, not absent.
                total_log_records=0,
                total_updated_records_compacted=0,
                total_log_blocks=0,
                total_corrupt_log_block=0,
                total_rollback_blocks=0,
                total_log_files_compacted=0,
                total_log_read_time_ms=0,
                total_log_size_compacted=0,
                # Apache Hudi 1.x writes 0 here; v6 (0.x) has no such field.
                num_updates=0 if job.v8 else None,
            )
        )
    return stats


def _resolve(table: HudiTable, instant: str, plan: ClusteringPlan) -> list[ResolvedGroup]:
    """Each group's slices from the file-system view, restricted to the files the plan names.

    Raises:
        ClusteringPlanError: A file the plan names is no longer there (cleaned or lost).
    """
    partitions = sorted({g.partition_path for g in plan.input_groups})
    view = table.file_system_view(partitions=partitions, check_files=True)
    groups = []
    for index, group in enumerate(plan.input_groups):
        slices = tuple(_resolve_slice(view.file_slices(info.file_group), info, instant) for info in group.slices)
        view.check_files(slices)
        groups.append(ResolvedGroup(index, group.partition_path, slices, group.num_output_file_groups))
    return groups


def _resolve_slice(candidates: Sequence[FileSlice], info: SliceInfo, instant: str) -> FileSlice:
    names = info.file_names
    for file_slice in candidates:
        held = {n for n in (file_slice.base_file_name, *file_slice.log_file_names) if n}
        if names and names <= held:
            logs = [log for log in file_slice.log_files if log.name in names]
            base = file_slice.base_file if file_slice.base_file_name in names else None
            return FileSlice.create(file_slice.file_group_id, file_slice.base_instant_time, base, logs)
    raise ClusteringPlanError(instant, f"the files of file group {info.file_group} named by the plan are gone")


def _completer(concurrency: WriteConcurrency) -> Callable[[TimelineWriter, Instant, CommitMetadata], Instant]:
    """Writes the completed replacecommit; holding the lock under OCC (after the conflict check) or
    serialized commits."""

    def complete(writer: TimelineWriter, inflight: Instant, metadata: CommitMetadata) -> Instant:
        if not (concurrency.locks and concurrency.open_lock is not None):
            return writer.complete(inflight, metadata)
        replaced = metadata.partition_to_replace_file_ids if isinstance(metadata, ReplaceCommitMetadata) else None
        groups = file_groups_of_write(metadata.write_stats(), replaced)
        with table_lock(concurrency.open_lock(), table=concurrency.table, policy=concurrency.lock_policy) as held:
            held.ensure_held()
            if concurrency.optimistic:
                # A write completed since the clustering was planned may have changed a slice it rewrites.
                check_write_conflicts(writer.timeline(), inflight.requested_time, groups)
            return writer.complete(inflight, metadata)

    return complete


def execute_clustering(
    table: HudiTable, instant: str, settings: HudiSettings | None = None, *, runner: ServiceTaskRunner | None = None
) -> ClusteringResult:
    """Execute the pending clustering ``instant`` and complete it as a ``replacecommit``.

    Args:
        table: The table.
        instant: The clustering instant (requested, or inflight after a crash).
        settings: Parquet, bloom filter, merge-memory and lock options; defaults otherwise.
        runner: Runs the groups (one task each); None: the local engine's
            (:class:`~hudi_framework.write.task_pool.LocalTaskRunner`, ``services.execution``).

    Returns:
        The completed instant, plan and write stats.

    Raises:
        ClusteringPlanError: No such pending clustering, its plan cannot be decoded, or its files are gone.
        ClusteringExecutionError: A group failed; its files were deleted and the plan is requested again.
        WriteConflictError: Under optimistic concurrency control, a write completed since the
            clustering was scheduled touched one of its file groups; same cleanup.
        CommitVetoedError: A plugin's ``hudi_pre_commit`` vetoed the clustering; same cleanup.
    """
    settings = settings or HudiSettings()
    found = resume_pending(table, instant, Action.CLUSTERING, pending_clustering)
    plan = read_clustering_plan(table, found)
    check_layout_strategy(instant, plan)
    groups = _resolve(table, instant, plan)
    session = WriteSession(table, settings)
    cfg = table.config
    job = ClusteringJob(
        storage=TaskStorage(WorkerSpec.of(table, settings), table.storage),
        instant=instant,
        ctx=session.task_context(cfg, instant, table.schema()),
        validity=instant_validity(table),
        merge_schema=read_schema(table),
        key_field=record_key_field(table),
        max_memory_bytes=settings.merger.max_memory_bytes or DEFAULT_MERGE_MEMORY_BYTES,
        merger=table_merger(table),
        ordering_fields=cfg.ordering_fields,
        sort_columns=plan.sort_columns,
        layout_strategy=plan.layout_strategy,
        build_method=settings.services.clustering.layout_optimize_build_method.value,
        sample_size=settings.services.clustering.layout_optimize_sample_size,
        preserve_metadata=plan.preserve_hoodie_metadata,
        v8=cfg.timeline_layout_version != LAYOUT_V1,
    )

    def metadata(per_group: list[list[WriteStat]]) -> CommitMetadata:
        return _metadata(table, session, plan, [stat for group_stats in per_group for stat in group_stats])

    def failure(index: int | None, reason: str) -> ClusteringExecutionError:
        failed = groups[index].index if index is not None and index < len(groups) else -1
        return ClusteringExecutionError(instant, failed, reason)

    attempt = ServiceAttempt(
        Action.CLUSTERING,
        run_clustering_task,
        [ClusteringTask(job, group) for group in groups],
        metadata,
        failure,
        passthrough=(CommitVetoedError, WriteConflictError, ClusteringPlanError),
        work_bytes=sum(f.base_file.size or 0 for g in groups for f in g.slices if f.base_file is not None),
        complete=_completer(WriteConcurrency.from_settings(settings, table)),
    )
    done, per_group = execute_attempt(table, found, attempt, runner or LocalTaskRunner(settings.services.execution))
    return ClusteringResult(done, plan, tuple(stat for group_stats in per_group for stat in group_stats))


def _metadata(
    table: HudiTable, session: WriteSession, plan: ClusteringPlan, stats: list[WriteStat]
) -> ReplaceCommitMetadata:
    replaced: dict[str, list[str]] = {}
    for fg in _input_groups(plan):
        replaced.setdefault(fg.partition_path, []).append(fg.file_id)
    return ReplaceCommitMetadata(
        partition_to_write_stats=stats_by_partition(stats),
        partition_to_replace_file_ids=replaced,
        compacted=False,
        extra_metadata={"schema": session.schema_json(table.config, table.schema())},
        operation_type=WriteOperationType.CLUSTER.value,
    )


def _input_groups(plan: ClusteringPlan) -> list[FileGroupId]:
    seen: dict[FileGroupId, None] = {}
    for group in plan.input_groups:
        for info in group.slices:
            seen.setdefault(info.file_group, None)
    return list(seen)
