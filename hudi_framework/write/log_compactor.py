"""Log compaction: merge a file slice's log blocks into one new log file of the same slice.

Apache Hudi's ``logcompaction`` action (merge-on-read, table versions 6 to 9): no base file is
rewritten. The plan, ``T.logcompaction.requested``, is a ``HoodieCompactionPlan`` whose operations
name the slices and their log files (strategy ``LogCompactionExecutionHelper``,
``preserveHoodieMetadata`` true); a slice qualifies when a merged read would apply at least
``services.log_compaction.blocks_threshold`` of its log blocks (``hoodie.log.compaction.blocks.threshold``,
Java's ``HoodieLogCompactionPlanGenerator``). Execution reads each slice's valid log blocks, exactly
as the merged read does, and merges them by the table's merger (records and deletes, one per key):
the live records go into a data block, the deletes into a DELETE block, each with the
COMPACTED_BLOCK_TIMES header listing the instants of the blocks merged, in a new log file of the
slice (v8+: ``.<fileId>_<T>.log.1_<token>``; v6: the slice's next log version). Records keep their
meta columns (commit time, sequence number), as Java's log compaction keeps them. The instant
completes as a ``deltacommit``; from then on every reader skips the replaced blocks
(:mod:`hudi_framework.read.log_records`). Until then the new file's blocks are of an instant that
has not completed, so readers ignore them.

A failure or a crashed attempt is rolled back like a compaction's: the marked log files, markers and
the inflight file are deleted, and the requested plan can run again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.compaction import TOTAL_LOG_FILES_SIZE
from hudi_framework.contracts.merger import PRESENT_COLUMNS_FIELD, MergeContext, RecordMerger
from hudi_framework.contracts.merging.flags import delete_mask
from hudi_framework.errors import CommitVetoedError, CompactionExecutionError
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.log.blocks import CommandBlock, CommandType, DataBlock, DeleteBlock, HeaderKey, compacted_instants
from hudi_framework.log.reader import read_log_file
from hudi_framework.read.log_records import LogRecordBuffer, collect_log_records, log_schema
from hudi_framework.read.merged_plan import instant_validity, record_key_field, table_merger
from hudi_framework.read.merged_task import DEFAULT_MERGE_MEMORY_BYTES, InstantValidity, MergedReadTask
from hudi_framework.read.schema import read_schema
from hudi_framework.services.compaction_plan import CompactionOperation, CompactionPlan
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.metadata import CommitMetadata, WriteStat
from hudi_framework.vocabulary import WriteOperationType
from hudi_framework.write.compaction_scheduler import schedule_compaction
from hudi_framework.write.compactor import pending_compaction, read_plan
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.file_group_task import RECORD_KEY, FileGroupWrite, WriteTaskContext
from hudi_framework.write.log_task import LogPart, data_parts, delete_part, write_log_parts
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

if TYPE_CHECKING:
    from hudi_framework.contracts.compaction import CandidateT
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.contracts.task_runner import ServiceTaskRunner
    from hudi_framework.runtime.table import HudiTable

__all__ = [
    "DEFAULT_BLOCKS_THRESHOLD",
    "LOG_COMPACTION_EXECUTOR",
    "LogCompactionJob",
    "LogCompactionResult",
    "LogCompactionTask",
    "applied_log_blocks",
    "execute_log_compaction",
    "pending_log_compactions",
    "rollback_log_compaction",
    "run_log_compaction_task",
    "schedule_log_compaction",
]

#: ``strategy.compactorClassName`` of Java's log compaction plans.
LOG_COMPACTION_EXECUTOR: Final = "org.apache.hudi.table.action.compact.LogCompactionExecutionHelper"
#: Default of ``hoodie.log.compaction.blocks.threshold``.
DEFAULT_BLOCKS_THRESHOLD: Final = 5


class LogCompactionResult(ServiceResult[CompactionPlan]):
    """What one log compaction did: the completed ``deltacommit``, the plan, one write stat per new log file."""

    __slots__ = ()


def applied_log_blocks(storage: StorageBackend, log_file_keys: Sequence[str], validity: InstantValidity) -> int:
    """How many data and delete blocks of a slice's log files a merged read applies: committed,
    not rolled back, not replaced by a log compaction's blocks (Java counts these to decide whether
    a slice is worth log-compacting)."""
    blocks: list[tuple[int, str, list[str]]] = []
    rolled_back: dict[str, int] = {}
    seq = 0
    for key in log_file_keys:
        for block in read_log_file(storage, key):
            seq += 1
            if isinstance(block, CommandBlock) and block.command_type is CommandType.ROLLBACK:
                rolled_back[block.target_instant_time] = seq
            elif isinstance(block, DataBlock | DeleteBlock) and validity.is_valid(block.instant_time):
                blocks.append((seq, block.instant_time or "", compacted_instants(block)))
    valid = [(inst, replaces) for s, inst, replaces in blocks if s >= rolled_back.get(inst, -1)]
    replaced = {i for _, replaces in valid for i in replaces}
    return sum(1 for inst, _ in valid if inst not in replaced)


@dataclass(frozen=True, slots=True)
class _EnoughBlocks:
    """The plan's selector: every candidate slice with at least ``threshold`` applied log blocks."""

    storage: StorageBackend
    validity: InstantValidity
    threshold: int

    def filter_partitions(self, partitions: Sequence[str]) -> list[str]:
        return list(partitions)

    def order_and_filter(self, operations: Sequence[CandidateT]) -> list[CandidateT]:
        def enough(op: CandidateT) -> bool:
            assert isinstance(op, CompactionOperation)
            keys = op.file_slice().log_file_keys
            return applied_log_blocks(self.storage, keys, self.validity) >= self.threshold

        return [op for op in operations if enough(op)]


def _as_log_compaction(plan: CompactionPlan) -> CompactionPlan:
    return CompactionPlan(
        operations=plan.operations,
        extra_metadata=plan.extra_metadata,
        version=plan.version,
        preserve_hoodie_metadata=True,
        compactor_class_name=LOG_COMPACTION_EXECUTOR,
    )


def schedule_log_compaction(
    table: HudiTable, *, blocks_threshold: int = DEFAULT_BLOCKS_THRESHOLD, instant_time: str | None = None
) -> str | None:
    """Plan a log compaction of the slices with at least ``blocks_threshold`` applied log blocks.

    Candidates are the latest slices with log files whose file group has no pending compaction,
    log compaction or clustering, as for a compaction.

    Returns:
        The ``logcompaction`` instant, or None when no slice qualifies (nothing is written).

    Raises:
        CompactionPlanError: The table is copy-on-write, a v6 write is in flight, or a write
            completed while planning.
    """
    table.reload()
    selector = _EnoughBlocks(table.storage, instant_validity(table), blocks_threshold)
    return schedule_compaction(
        table, selector, instant_time=instant_time, action=Action.LOG_COMPACTION, finish=_as_log_compaction
    )


def rollback_log_compaction(table: HudiTable, instant: str) -> list[str]:
    """Undo a failed or crashed log compaction attempt (its new log files, markers and inflight
    file); the plan stays requested. Returns the log files deleted."""
    return rollback_attempt(table, instant, Action.LOG_COMPACTION)


@dataclass(frozen=True, slots=True)
class LogCompactionJob:
    """What every slice of one log compaction shares (picklable: it travels with each task).

    Attributes:
        storage: The table's storage (the driver's in process; rebuilt from the spec elsewhere).
        ctx: The new log files' schema, block and file options (its ``instant`` is the log compaction's).
        validity: Which instants' log blocks count (fixed before the instant went inflight).
        merger: The table's record merger.
        merge_schema: Schema of the merged rows.
        key_field: The record key column.
        max_memory_bytes: Merge memory budget per slice.
        ordering_fields: The table's ordering fields.
    """

    storage: TaskStorage
    ctx: WriteTaskContext
    validity: InstantValidity
    merger: RecordMerger
    merge_schema: pa.Schema
    key_field: str
    max_memory_bytes: int
    ordering_fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LogCompactionTask:
    """One slice of a log compaction, as a service task.

    Attributes:
        job: What the log compaction's slices share.
        op: The slice whose log blocks are merged.
        index: The operation's position in the plan (names the new log file's write token).
    """

    job: LogCompactionJob
    op: CompactionOperation
    index: int


def run_log_compaction_task(task: LogCompactionTask) -> list[WriteStat]:
    """Log-compact one slice (a service task: runs where the runner runs it).

    Raises:
        CompactionExecutionError: The slice cannot be log-compacted or writing failed (naming its file group).
    """
    try:
        return _compact_logs(task.job, task.op, task.index)
    except CompactionExecutionError:
        raise
    except Exception as e:
        raise CompactionExecutionError(task.job.ctx.instant, str(task.op.file_group), f"{type(e).__name__}: {e}") from e


def _merged_logs(job: LogCompactionJob, op: CompactionOperation) -> tuple[pa.Table, list[str]]:
    """The slice's log records merged to one per key (deletes included), and the instants merged."""
    whole = op.file_slice()
    logs_only = FileSlice.create(whole.file_group_id, whole.base_instant_time, None, whole.log_files)
    task = MergedReadTask.whole_slice(
        logs_only,
        validity=job.validity,
        merger=job.merger,
        merge_schema=job.merge_schema,
        ordering_fields=job.ordering_fields,
        record_key_field=job.key_field,
        max_memory_bytes=job.max_memory_bytes,
    )
    ctx = task.merge_context
    with LogRecordBuffer(
        log_schema(job.merge_schema), job.key_field, max_memory_bytes=job.max_memory_bytes, label=op.file_id
    ) as buffer:
        corrupt = collect_log_records(job.storage.get(), task, buffer)
        if corrupt:
            # A compacted block would replace the damaged block's instant for good.
            raise CompactionExecutionError(
                job.ctx.instant, str(op.file_group), f"corrupt log block in {corrupt[0].path} at {corrupt[0].offset}"
            )
        if buffer.spill is None:
            logs = buffer.in_memory()
        else:  # keys never span partitions: combining their concatenation is combining each
            logs = pa.concat_tables(buffer.partition(p) for p in range(buffer.num_partitions))
        instants = buffer.valid_instants()
    merged = job.merger.mark_deletes(job.merger.combine(logs, ctx), ctx)
    if merged.num_rows and merged.column(PRESENT_COLUMNS_FIELD).null_count < merged.num_rows:
        raise CompactionExecutionError(
            job.ctx.instant, str(op.file_group), "partial updates cannot be log-compacted (their rows are not whole)"
        )
    return merged, instants


def _by_ordering_kind(deletes: pa.Table, ordering_fields: Sequence[str]) -> list[pa.Table]:
    """Deletes without an ordering value (commit-time deletes, ``IntWrapper(0)``), then those with one:
    one DELETE block each, as the appends that wrote them did (hudi-rs refuses a block mixing the two)."""
    if not deletes.num_rows:
        return []
    fields = [f for f in ordering_fields if f in deletes.column_names]
    if not fields or len(fields) != len(ordering_fields):
        return [deletes]
    unordered = pc.is_null(deletes.column(fields[0]))
    for name in fields[1:]:
        unordered = pc.and_(unordered, pc.is_null(deletes.column(name)))
    parts = [deletes.filter(unordered), deletes.filter(pc.invert(unordered))]
    return [p for p in parts if p.num_rows]


def _compact_logs(job: LogCompactionJob, op: CompactionOperation, index: int) -> list[WriteStat]:
    merged, instants = _merged_logs(job, op)
    if not instants:
        return []  # every block was rolled back: nothing to replace
    ctx = job.ctx
    header = {HeaderKey.COMPACTED_BLOCK_TIMES: ",".join(instants)}
    target = FileGroupWrite(
        partition=op.partition_path,
        file_id=op.file_id,
        base_instant=op.base_instant_time,
        append=True,
        slice_instant=op.base_instant_time,
        slice_base_file=op.data_file_name or "",
        slice_log_files=op.delta_file_names,
    )
    deleted = delete_mask(merged, MergeContext(ordering_fields=ctx.ordering_fields))
    keys = merged.column(job.key_field).cast(pa.string())
    if job.key_field != RECORD_KEY:
        merged = merged.append_column(RECORD_KEY, keys)
    live = merged.filter(pa.array(~deleted))
    gone = merged.filter(pa.array(deleted))
    parts: list[LogPart] = []
    if live.num_rows:
        records = live.select(ctx.schema.names).cast(ctx.schema)
        new = np.zeros(live.num_rows, dtype=np.bool_)
        parts += data_parts(ctx, target, records, live.column(RECORD_KEY), None, new, header)
    for deletes in _by_ordering_kind(gone, ctx.ordering_fields):
        parts.append(delete_part(ctx, target, deletes, None, header))
    if not parts:
        return []
    return write_log_parts(job.storage.get(), ctx, target, parts, write_token=f"{index}-0-0")


def _pending_log_compaction(table: HudiTable, instant: str) -> Instant:
    return pending_compaction(table, instant, Action.LOG_COMPACTION)


def execute_log_compaction(
    table: HudiTable, instant: str, settings: HudiSettings | None = None, *, runner: ServiceTaskRunner | None = None
) -> LogCompactionResult:
    """Execute the pending log compaction ``instant`` and complete it as a ``deltacommit``.

    Args:
        table: The table.
        instant: The log compaction instant (requested, or inflight after a crash).
        settings: Log block, merge-memory and execution options; defaults otherwise.
        runner: Runs the slices (one task each); None: the local engine's
            (:class:`~hudi_framework.write.task_pool.LocalTaskRunner`, ``services.execution``).

    Raises:
        CompactionPlanError: No such pending log compaction, or its plan cannot be decoded.
        CompactionExecutionError: A slice failed (a corrupt block, partial updates, a write error);
            the attempt was rolled back and the plan is requested again.
        CommitVetoedError: A plugin's ``hudi_pre_commit`` vetoed it; same rollback.
    """
    settings = settings or HudiSettings()
    found = resume_pending(table, instant, Action.LOG_COMPACTION, _pending_log_compaction)
    plan = read_plan(table, found)
    session = WriteSession(table, settings)
    cfg = table.config
    job = LogCompactionJob(
        storage=TaskStorage(WorkerSpec.of(table, settings), table.storage),
        ctx=session.task_context(cfg, instant, table.schema()),
        validity=instant_validity(table),
        merger=table_merger(table),
        merge_schema=read_schema(table),
        key_field=record_key_field(table),
        max_memory_bytes=settings.merger.max_memory_bytes or DEFAULT_MERGE_MEMORY_BYTES,
        ordering_fields=cfg.ordering_fields,
    )
    # The plan's metrics are a read-only view, which does not pickle: tasks carry a plain copy.
    ops = [replace(op, metrics=dict(op.metrics)) for op in plan.operations]

    def metadata(per_slice: list[list[WriteStat]]) -> CommitMetadata:
        return CommitMetadata(
            partition_to_write_stats=stats_by_partition(stat for stats in per_slice for stat in stats),
            compacted=False,
            extra_metadata={"schema": session.schema_json(cfg, table.schema())},
            operation_type=WriteOperationType.LOG_COMPACT.value,
        )

    def failure(index: int | None, reason: str) -> CompactionExecutionError:
        failed = str(ops[index].file_group) if index is not None and index < len(ops) else ""
        return CompactionExecutionError(instant, failed, reason)

    attempt = ServiceAttempt(
        Action.LOG_COMPACTION,
        run_log_compaction_task,
        [LogCompactionTask(job, op, index) for index, op in enumerate(ops)],
        metadata,
        failure,
        passthrough=(CompactionExecutionError, CommitVetoedError),
        work_bytes=sum(int(op.metric(TOTAL_LOG_FILES_SIZE)) for op in ops),
        complete=locked_completion(WriteConcurrency.from_settings(settings, table)),
    )
    done, per_slice = execute_attempt(table, found, attempt, runner or LocalTaskRunner(settings.services.execution))
    return LogCompactionResult(done, plan, tuple(stat for stats in per_slice for stat in stats))


def pending_log_compactions(table: HudiTable) -> list[str]:
    """Instants of the log compactions planned but not completed, oldest first."""
    return sorted(i.requested_time for i in table.timeline.pending() if i.action is Action.LOG_COMPACTION)
