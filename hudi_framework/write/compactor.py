"""Executing a compaction plan: one new base file per operation, then a ``commit`` with ``compacted=true``.

Order on storage: ``T.compaction.inflight``, then per operation its marker and its base file (named
with the compaction instant ``T``), then the completed ``commit`` last. Readers ignore base files of a
pending compaction (the file-system view drops them) and merge the old slice with the new one, so
until the commit exists every query answers as before.

A failure rolls the attempt back before the error propagates: every file the markers name is
deleted, then the markers and the inflight file, leaving ``T.compaction.requested`` so the plan can
run again (as Apache Hudi rolls back an inflight compaction). Executing an instant that is already
inflight (a crashed run) does the same rollback first.

A slice with a corrupt log block that may hold committed rows is refused
(:class:`~hudi_framework.errors.CompactionCorruptLogError`, the same rollback) unless
``services.compaction.skip_corrupt_log_blocks`` is set: readers skip such a block, and a new base
file written without its rows would make their loss permanent. Apache Hudi compacts such slices
silently.

The operations are independent: the driver plans, starts the instant, hands one task per operation
(a :class:`CompactionTask`: the operation and the picklable :class:`CompactionJob`) to a
:class:`~hudi_framework.contracts.task_runner.ServiceTaskRunner` (in process, the local engine's
process pool, or Spark executors: the engine that started the compaction), collects the write
stats and commits. A task's failure fails the whole compaction, with the same rollback.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.arrays import repeated_dictionary
from hudi_framework.contracts.compaction import TOTAL_IO_READ_MB, TOTAL_LOG_FILES_SIZE
from hudi_framework.contracts.indexing.footer import bloom_footer_metadata
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.contracts.storage_paths import join_key
from hudi_framework.contracts.task_runner import ServiceTaskRunner
from hudi_framework.errors import (
    CommitVetoedError,
    CompactionCorruptLogError,
    CompactionExecutionError,
    CompactionPlanError,
    InstantNotFoundError,
)
from hudi_framework.index.bloom_carry import carried_bloom
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.layout.naming import WRITER_IN_LOG_NAME_VERSION, BaseFileName
from hudi_framework.model.schema import META_FIELDS
from hudi_framework.read.merged import merge_file_slice
from hudi_framework.read.merged_plan import instant_validity, record_key_field, table_merger
from hudi_framework.read.merged_task import DEFAULT_MERGE_MEMORY_BYTES, InstantValidity, MergedReadTask
from hudi_framework.read.schema import read_schema
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.compaction_plan import CompactionOperation, CompactionPlan, decode_compaction_plan
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.metadata import CommitMetadata, RuntimeStats, WriteStat
from hudi_framework.timeline.naming import LAYOUT_V1
from hudi_framework.vocabulary import WriteOperationType
from hudi_framework.write.base_file_writer import write_base_file
from hudi_framework.write.compaction_log_stats import LogScanStats, scan_log_stats
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.file_group_task import WriteTaskContext
from hudi_framework.write.markers import IOType, create_marker
from hudi_framework.write.service_execution import (
    ServiceAttempt,
    ServiceResult,
    execute_attempt,
    locked_completion,
    resume_pending,
    rollback_attempt,
    stats_by_partition,
)
from hudi_framework.write.session import WriteSession
from hudi_framework.write.task_pool import LocalTaskRunner
from hudi_framework.write.worker import TaskStorage, WorkerSpec

FILE_NAME_FIELD = META_FIELDS[4]
_LOG = logging.getLogger(__name__)

#: Merges one file slice: ``(storage, slice task) -> merged live rows`` (all meta columns). A
#: runner that leaves the process pickles it: a module-level function.
SliceMerge = Callable[[StorageBackend, MergedReadTask], Iterable[pa.RecordBatch]]

_MB = 1024 * 1024


def merge_slice(storage: StorageBackend, task: MergedReadTask) -> Iterable[pa.RecordBatch]:
    """The reader's merge of one file slice (the rows a snapshot query returns for it)."""
    return merge_file_slice(storage, task)


class CompactionResult(ServiceResult[CompactionPlan]):
    """What one compaction did: the completed ``commit``, the plan, one write stat per new base file."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CompactionJob:
    """What every operation of one compaction shares (picklable: it travels with each task).

    Attributes:
        storage: The table's storage (the driver's in process; rebuilt from the spec elsewhere).
        instant: The compaction instant.
        ctx: File schema, Parquet and bloom options of the new base files.
        validity: Which instants' log blocks count (fixed before the instant went inflight).
        merge_schema: Schema of the merged rows.
        key_field: The record key column.
        max_memory_bytes: Merge memory budget per slice.
        merger: The table's record merger.
        ordering_fields: The table's ordering fields.
        table_version: ``hoodie.table.version``.
        timeline_v8: The timeline layout is 1.x's (write stats carry ``prevBaseFile``, ``numUpdates``).
        merge: Merges one slice.
        skip_corrupt_log_blocks: Compact slices whose corrupt blocks may hold committed rows.
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
    table_version: int
    timeline_v8: bool
    merge: SliceMerge = field(default=merge_slice)
    skip_corrupt_log_blocks: bool = False


@dataclass(frozen=True, slots=True)
class CompactionTask:
    """One operation of a compaction, as a service task.

    Attributes:
        job: What the compaction's operations share.
        op: The file slice to compact.
        index: The operation's position in the plan (names the new base file's write token).
    """

    job: CompactionJob
    op: CompactionOperation
    index: int


def run_compaction_task(task: CompactionTask) -> WriteStat:
    """Compact one operation (a service task: runs where the runner runs it)."""
    return compact_operation(task.job, task.op, task.index)


def pending_compaction(table: HudiTable, instant: str, action: Action = Action.COMPACTION) -> Instant:
    """The pending compaction (or, with ``action`` ``logcompaction``, log compaction) ``instant``.

    Raises:
        CompactionPlanError: No such compaction, or it already completed.
    """
    try:
        found = table.timeline.get(instant, action)
    except InstantNotFoundError:
        raise CompactionPlanError(instant, f"no such {action} on the timeline") from None
    if found.is_completed:
        raise CompactionPlanError(instant, "already completed")
    if found.action is not action:
        raise CompactionPlanError(instant, f"instant is a {found.action}, not a {action}")
    return found


def read_plan(table: HudiTable, instant: Instant) -> CompactionPlan:
    """Decode the plan in ``T.compaction.requested``."""
    key = table.timeline.file_key(instant, State.REQUESTED)
    return decode_compaction_plan(table.storage.read(key), path=key)


def rollback_inflight(table: HudiTable, instant: str, action: Action = Action.COMPACTION) -> list[str]:
    """Undo a failed or crashed attempt: delete its marked files, markers and inflight file.

    The requested plan stays, so the compaction (or log compaction, by ``action``) can be executed again.

    Returns:
        The data file keys deleted.
    """
    return rollback_attempt(table, instant, action)


def _base_keys(
    job: CompactionJob, storage: StorageBackend, file_slice: FileSlice
) -> tuple[pa.Array, Mapping[bytes, bytes] | None]:
    """The base file's record keys and its key/value footer (None without a base file)."""
    key = file_slice.base_file_key
    if key is None:
        return pa.array([], pa.string()), None
    with storage.open_input(key) as f:
        parquet = pq.ParquetFile(f)
        column = parquet.read(columns=[job.key_field]).column(0)
        footer = parquet.metadata.metadata or {}
    return pc.cast(column.combine_chunks(), pa.string()), footer


def _slice_task(job: CompactionJob, file_slice: FileSlice) -> MergedReadTask:
    return MergedReadTask.whole_slice(
        file_slice,
        validity=job.validity,
        merger=job.merger,
        merge_schema=job.merge_schema,
        ordering_fields=job.ordering_fields,
        record_key_field=job.key_field,
        max_memory_bytes=job.max_memory_bytes,
    )


def _count(values: pa.Array, among: pa.Array, *, inside: bool) -> int:
    mask = pc.is_in(values, value_set=among)
    return int(pc.sum(mask if inside else pc.invert(mask)).as_py() or 0)


def _check_corrupt_blocks(
    job: CompactionJob, storage: StorageBackend, op: CompactionOperation, logs: LogScanStats
) -> None:
    """Refuse the slice if a corrupt block may hold committed rows, unless the user accepted the loss."""
    lossy = [c for c in logs.corrupt if c.status.may_lose_rows]
    if not lossy:
        return
    if not job.skip_corrupt_log_blocks:
        first = lossy[0]
        raise CompactionCorruptLogError(
            job.instant,
            str(op.file_group),
            path=storage.uri(first.block.path),
            offset=first.block.offset,
            instant_time=first.instant_time,
            reason=first.block.reason,
            corrupt_blocks=len(lossy),
        )
    for c in lossy:
        _LOG.warning(
            "compaction %s drops corrupt log block in %s at offset %d (%d bytes, instant %s, %s): "
            "services.compaction.skip_corrupt_log_blocks is set",
            job.instant, storage.uri(c.block.path), c.block.offset, c.block.length, c.instant_time or "unknown",
            c.status.value,
        )  # fmt: skip


def compact_operation(job: CompactionJob, op: CompactionOperation, index: int) -> WriteStat:
    """Write the new base file of one operation and return its write stat."""
    storage = job.storage.get()
    file_slice = op.file_slice()
    name = BaseFileName(op.file_id, f"{index}-0-0", job.instant, job.ctx.extension).name
    key = join_key(op.partition_path, name)

    started = time.monotonic()
    logs: LogScanStats = scan_log_stats(
        storage,
        file_slice.log_file_keys,
        job.validity,
        key_field=job.key_field,
        instant_in_file_name=job.table_version >= WRITER_IN_LOG_NAME_VERSION,
    )
    _check_corrupt_blocks(job, storage, op, logs)
    scan_ms = int((time.monotonic() - started) * 1000)
    create_marker(storage, job.instant, op.partition_path, name, IOType.MERGE if op.data_file_name else IOType.CREATE)
    batches = list(job.merge(storage, _slice_task(job, file_slice)))
    rows = pa.Table.from_batches(batches, schema=job.merge_schema) if batches else job.merge_schema.empty_table()
    rows = rows.select([f.name for f in job.ctx.schema if f.name in rows.column_names])
    keys = pc.cast(rows.column(job.key_field).combine_chunks(), pa.string())
    base_keys, base_footer = _base_keys(job, storage, file_slice)
    in_base = pc.is_in(keys, value_set=base_keys)
    if job.ctx.populate_meta_fields:
        names = repeated_dictionary(name, rows.num_rows)
        rows = rows.set_column(rows.schema.get_field_index(FILE_NAME_FIELD), FILE_NAME_FIELD, names)
        live_rows = rows.num_rows

        def footer_of() -> dict[bytes, bytes]:
            # Keys new to the group come from the logs: the base file's filter is carried over
            # with them added while still accurate (hudi_framework.index.bloom_carry).
            added = keys.filter(pc.invert(in_base))
            bloom = carried_bloom(base_footer, job.ctx.bloom, live_rows=live_rows, added=added)
            return bloom_footer_metadata(keys, job.ctx.bloom, bloom=bloom)

        with ThreadPoolExecutor(max_workers=1) as pool:  # the footer is built while Parquet encodes
            footer = pool.submit(footer_of)
            size = write_base_file(
                storage, key, rows, footer=footer.result, options=job.ctx.parquet, schema=job.ctx.schema
            )
    else:
        size = write_base_file(storage, key, rows, options=job.ctx.parquet, schema=job.ctx.schema)
    upsert_ms = int((time.monotonic() - started) * 1000)

    updated = pc.filter(keys, in_base)
    v8 = job.timeline_v8
    return WriteStat(
        file_id=op.file_id,
        path=key,
        prev_commit=op.base_instant_time if op.data_file_name else "null",
        num_writes=rows.num_rows,
        num_deletes=_count(base_keys, keys, inside=False),
        num_update_writes=_count(updated, logs.record_keys, inside=True),
        total_write_bytes=size,
        total_write_errors=0,
        partition_path=op.partition_path,
        total_log_records=logs.total_log_records,
        total_updated_records_compacted=logs.total_updated_records_compacted,
        num_inserts=_count(keys, base_keys, inside=False),
        total_log_blocks=logs.total_log_blocks,
        total_corrupt_log_block=logs.total_corrupt_log_blocks,
        total_rollback_blocks=logs.total_rollback_blocks,
        file_size_in_bytes=size,
        prev_base_file=op.data_file_name if v8 else None,
        runtime_stats=RuntimeStats(total_scan_time=scan_ms, total_create_time=0, total_upsert_time=upsert_ms),
        total_log_files_compacted=len(op.delta_file_names),
        total_log_read_time_ms=scan_ms,
        total_log_size_compacted=int(op.metric(TOTAL_LOG_FILES_SIZE)),
        # Apache Hudi 1.x writes 0 here for compactions; v6 (0.x) has no such field.
        num_updates=0 if v8 else None,
    )


def _work_bytes(plan: CompactionPlan) -> int:
    """Bytes the plan's slices read, from the plan's metrics (whole MB, at least the log files)."""
    return sum(
        max(int(op.metric(TOTAL_IO_READ_MB)) * _MB, int(op.metric(TOTAL_LOG_FILES_SIZE))) for op in plan.operations
    )


def execute_compaction(
    table: HudiTable,
    instant: str,
    settings: HudiSettings | None = None,
    *,
    merge: SliceMerge = merge_slice,
    skip_corrupt_log_blocks: bool = False,
    runner: ServiceTaskRunner | None = None,
) -> CompactionResult:
    """Execute the pending compaction ``instant`` and complete it as a ``commit``.

    Args:
        table: The table.
        instant: The compaction instant (requested, or inflight after a crash).
        settings: Parquet, bloom filter and merge-memory options; defaults otherwise.
        merge: Merges one slice (the reader's merge; tests inject failures here). A runner that
            leaves the process pickles it: a module-level function.
        skip_corrupt_log_blocks: Compact slices whose corrupt log blocks may hold committed rows
            (the compaction service's ``skip_corrupt_log_blocks`` option).
        runner: Runs the operations (one task each); None: the local engine's
            (:class:`~hudi_framework.write.task_pool.LocalTaskRunner`, ``services.execution``).

    Returns:
        The completed instant, plan and write stats.

    Raises:
        CompactionPlanError: No such pending compaction, or its plan cannot be decoded.
        CompactionExecutionError: An operation failed (a task's worker process died included); its
            files were deleted and the plan is requested again.
        CompactionCorruptLogError: A slice has a corrupt log block that may hold committed rows (and
            ``skip_corrupt_log_blocks`` is not set); same cleanup.
        CommitVetoedError: A plugin's ``hudi_pre_commit`` vetoed the compaction; same cleanup.
    """
    settings = settings or HudiSettings()
    found = resume_pending(table, instant, Action.COMPACTION, pending_compaction)
    plan = read_plan(table, found)
    session = WriteSession(table, settings)
    cfg = table.config
    # Schema and validity are fixed before the instant goes inflight: the plan's slices as scheduled.
    merge_schema = read_schema(table)
    job = CompactionJob(
        storage=TaskStorage(WorkerSpec.of(table, settings), table.storage),
        instant=instant,
        ctx=session.task_context(cfg, instant, table.schema()),
        validity=instant_validity(table),
        merge_schema=merge_schema,
        key_field=record_key_field(table),
        max_memory_bytes=settings.merger.max_memory_bytes or DEFAULT_MERGE_MEMORY_BYTES,
        merger=table_merger(table),
        ordering_fields=cfg.ordering_fields,
        table_version=cfg.version,
        timeline_v8=cfg.timeline_layout_version != LAYOUT_V1,
        merge=merge,
        skip_corrupt_log_blocks=skip_corrupt_log_blocks,
    )
    # The plan's metrics are a read-only view, which does not pickle: tasks carry a plain copy.
    tasks = [CompactionTask(job, replace(op, metrics=dict(op.metrics)), i) for i, op in enumerate(plan.operations)]

    def metadata(stats: list[WriteStat]) -> CommitMetadata:
        return CommitMetadata(
            partition_to_write_stats=stats_by_partition(stats),
            compacted=True,
            extra_metadata={"schema": session.schema_json(cfg, table.schema())},
            operation_type=WriteOperationType.COMPACT.value,
        )

    def failure(index: int | None, reason: str) -> CompactionExecutionError:
        failed = str(plan.operations[index].file_group) if index is not None and index < len(tasks) else ""
        return CompactionExecutionError(instant, failed, reason)

    attempt = ServiceAttempt(
        Action.COMPACTION,
        run_compaction_task,
        tasks,
        metadata,
        failure,
        passthrough=(CompactionCorruptLogError, CommitVetoedError),
        work_bytes=_work_bytes(plan),
        complete=locked_completion(WriteConcurrency.from_settings(settings, table)),
    )
    done, stats = execute_attempt(table, found, attempt, runner or LocalTaskRunner(settings.services.execution))
    return CompactionResult(done, plan, tuple(stats))
