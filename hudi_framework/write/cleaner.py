"""Executing a clean plan: ``T.clean.inflight``, the deletes, then the completed ``clean``.

The inflight file repeats the plan on layout 1 (Apache Hudi 0.x writes it there) and is empty on
layout 2 (1.x). Deleting is idempotent: a file already gone counts as deleted, so a clean that
crashed half way is simply executed again from its inflight state. Under optimistic concurrency
control the completed instant is written while holding the table lock (fenced), like a commit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from hudi_framework.errors import CleanError, InstantNotFoundError, StorageError
from hudi_framework.lock import table_lock
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clean_plan import CleanerPlan, decode_cleaner_plan, encode_cleaner_plan
from hudi_framework.timeline.clean_metadata import CleanMetadata, CleanPartitionMetadata, encode_clean_metadata
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.naming import LAYOUT_V1
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.transaction import timeline_writer

__all__ = ["CleanResult", "execute_clean", "pending_clean", "read_clean_plan"]


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


def _delete(table: HudiTable, plan: CleanerPlan) -> dict[str, CleanPartitionMetadata]:
    storage = table.storage
    out = {}
    for partition, infos in plan.files.items():
        ok, failed = [], []
        for info in infos:
            try:
                storage.delete(info.key, missing_ok=True)
                ok.append(info.name)
            except StorageError:
                failed.append(info.name)
        out[partition] = CleanPartitionMetadata(
            partition_path=partition,
            policy=plan.policy,
            delete_path_patterns=tuple(i.name for i in infos),
            success_delete_files=tuple(ok),
            failed_delete_files=tuple(failed),
            is_partition_deleted=partition in plan.partitions_to_delete,
        )
    return out


def execute_clean(table: HudiTable, instant: str, concurrency: WriteConcurrency | None = None) -> CleanResult:
    """Execute the pending clean ``instant`` and complete it.

    Args:
        table: The table.
        instant: The clean instant (requested, or inflight after a crash).
        concurrency: The writers' coordination; under optimistic concurrency control the
            completion is written while holding the table lock.

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
    partitions = _delete(table, plan)
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
    if concurrency is not None and concurrency.optimistic and concurrency.open_lock is not None:
        with table_lock(concurrency.open_lock(), table=concurrency.table, policy=concurrency.lock_policy) as held:
            held.ensure_held()
            done = writer.complete(inflight, data)
    else:
        done = writer.complete(inflight, data)
    writer.notify_completed(inflight, done, data)
    table.reload()
    return CleanResult(done, plan, metadata)
