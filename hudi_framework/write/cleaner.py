"""Executing a clean plan: ``T.clean.inflight``, the deletes, then the completed ``clean``.

The inflight file repeats the plan on layout 1 (Apache Hudi 0.x writes it there) and is empty on
layout 2 (1.x). Deleting is idempotent: a file already gone counts as deleted, so a clean that
crashed half way is simply executed again from its inflight state. Under optimistic concurrency
control the completed instant is written while holding the table lock (fenced), like a commit.

Deletes are cheap: a plan of fewer than :data:`CLEAN_TASKS_MIN_FILES` files deletes them in the
calling process; a bigger one hands one task per partition to the service runner (Spark executors
when Spark started the clean, else the local engine's process pool).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Final

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.task_runner import InProcessRunner, ServiceTaskRunner
from hudi_framework.errors import CleanError, InstantNotFoundError, StorageError
from hudi_framework.lock import table_lock
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clean_plan import CleanerPlan, CleanFileInfo, decode_cleaner_plan, encode_cleaner_plan
from hudi_framework.timeline.clean_metadata import CleanMetadata, CleanPartitionMetadata, encode_clean_metadata
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.naming import LAYOUT_V1
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.task_pool import LocalTaskRunner
from hudi_framework.write.transaction import timeline_writer
from hudi_framework.write.worker import TaskStorage, WorkerSpec

__all__ = [
    "CLEAN_TASKS_MIN_FILES",
    "CleanPartitionTask",
    "CleanResult",
    "execute_clean",
    "pending_clean",
    "read_clean_plan",
]

#: Planned files below which a clean deletes them in the calling process: a delete is one storage
#: call, far cheaper than starting a worker process or a Spark job.
CLEAN_TASKS_MIN_FILES: Final = 1000


@dataclass(frozen=True, slots=True)
class CleanResult:
    """What one clean did.

    Attributes:
        instant: The completed ``clean`` instant.
        plan: The plan executed.
        metadata: The metadata written.
    """

    instant: Instant
    plan: CleanerPlan
    metadata: CleanMetadata

    @property
    def deleted(self) -> int:
        """Files deleted."""
        return self.metadata.total_files_deleted


def pending_clean(table: HudiTable, instant: str) -> Instant:
    """The pending clean ``instant``.

    Raises:
        CleanError: No such clean, or it already completed.
    """
    try:
        found = table.timeline.get(instant, Action.CLEAN)
    except InstantNotFoundError:
        raise CleanError(instant, "no such clean on the timeline") from None
    if found.is_completed:
        raise CleanError(instant, "already completed")
    return found


def read_clean_plan(table: HudiTable, instant: Instant) -> CleanerPlan:
    """Decode the plan in ``T.clean.requested``."""
    key = table.timeline.file_key(instant, State.REQUESTED)
    return decode_cleaner_plan(table.storage.read(key), path=key)


@dataclass(frozen=True, slots=True)
class CleanPartitionTask:
    """The deletes of one partition, as a service task.

    Attributes:
        storage: The table's storage.
        partition: The partition path.
        files: The files to delete.
        policy: The plan's policy (recorded in the partition's metadata).
        partition_deleted: The plan deletes the partition.
    """

    storage: TaskStorage
    partition: str
    files: tuple[CleanFileInfo, ...]
    policy: str
    partition_deleted: bool


def delete_partition_files(task: CleanPartitionTask) -> CleanPartitionMetadata:
    """Delete one partition's planned files (a file already gone counts as deleted)."""
    storage = task.storage.get()
    ok, failed = [], []
    for info in task.files:
        try:
            storage.delete(info.key, missing_ok=True)
            ok.append(info.name)
        except StorageError:
            failed.append(info.name)
    return CleanPartitionMetadata(
        partition_path=task.partition,
        policy=task.policy,
        delete_path_patterns=tuple(i.name for i in task.files),
        success_delete_files=tuple(ok),
        failed_delete_files=tuple(failed),
        is_partition_deleted=task.partition_deleted,
    )


def _delete(
    table: HudiTable, plan: CleanerPlan, settings: HudiSettings, runner: ServiceTaskRunner | None
) -> dict[str, CleanPartitionMetadata]:
    small = sum(len(infos) for infos in plan.files.values()) < CLEAN_TASKS_MIN_FILES
    if small or isinstance(runner, InProcessRunner):
        storage = TaskStorage(None, table.storage)
        runner = InProcessRunner()
    else:
        storage = TaskStorage(WorkerSpec.of(table, settings), table.storage)
        runner = runner or LocalTaskRunner(settings.services.execution)
    tasks = [
        CleanPartitionTask(storage, partition, tuple(infos), plan.policy, partition in plan.partitions_to_delete)
        for partition, infos in plan.files.items()
    ]
    # A worker's failure to delete is recorded per file; only a lost worker fails the clean.
    results = runner.map(delete_partition_files, tasks, label="clean")
    return {r.partition_path: r for r in results}


def execute_clean(
    table: HudiTable,
    instant: str,
    concurrency: WriteConcurrency | None = None,
    *,
    settings: HudiSettings | None = None,
    runner: ServiceTaskRunner | None = None,
) -> CleanResult:
    """Execute the pending clean ``instant`` and complete it.

    Args:
        table: The table.
        instant: The clean instant (requested, or inflight after a crash).
        concurrency: The writers' coordination; under optimistic concurrency control the
            completion is written while holding the table lock.
        settings: The session's settings (how worker processes open the storage, ``services.execution``).
        runner: Runs the per-partition deletes of a big plan (None: the local engine's runner).

    Returns:
        The completed instant, its plan and metadata.

    Raises:
        CleanError: No such pending clean.
        InstantMetadataError: The plan cannot be decoded.
        LockAcquireTimeoutError, LockLostError: The table lock could not be taken or was lost.
    """
    table.reload()
    found = pending_clean(table, instant)
    plan = read_clean_plan(table, found)
    writer = timeline_writer(table.storage, table.config, hooks=table.commit_hooks)
    started = time.monotonic()
    inflight = found
    if found.state is State.REQUESTED:
        content = encode_cleaner_plan(plan) if table.config.timeline_layout_version == LAYOUT_V1 else None
        inflight = writer.transition_to_inflight(found, content)
    partitions = _delete(table, plan, settings or HudiSettings(), runner)
    retained = plan.earliest_instant_to_retain
    metadata = CleanMetadata(
        start_clean_time=instant,
        time_taken_ms=int((time.monotonic() - started) * 1000),
        earliest_commit_to_retain=retained.timestamp if retained is not None else "",
        last_completed_commit=plan.last_completed_commit,
        partitions=partitions,
        extra_metadata=plan.extra_metadata,
    )
    data = encode_clean_metadata(metadata)
    if concurrency is not None and concurrency.locks and concurrency.open_lock is not None:
        with table_lock(concurrency.open_lock(), table=concurrency.table, policy=concurrency.lock_policy) as held:
            held.ensure_held()
            done = writer.complete(inflight, data)
    else:
        done = writer.complete(inflight, data)
    writer.notify_completed(inflight, done, data)
    table.reload()
    return CleanResult(done, plan, metadata)
