"""Executing a table service's plan: the steps compaction, log compaction and clustering share.

A service plans on the driver and writes ``T.<action>.requested``. Executing it is always:

1. :func:`resume_pending`: find the pending instant ``T`` (the service's own check); if it is
   already inflight (a crashed run), roll that attempt back first and look again.
2. :func:`execute_attempt`: move ``T`` to inflight, run one task per unit of work (a slice to
   compact, a group to cluster) through a :class:`~hudi_framework.contracts.task_runner.ServiceTaskRunner`
   (in process, the local engine's process pool or Spark executors), build the commit metadata
   from the results and complete ``T`` (pre-commit hooks and the metadata table's sync happen in the
   timeline writer). Any failure rolls the attempt back before the error propagates
   (:func:`rollback_attempt`): the marked files, then the markers and the inflight file, leaving the
   plan requested so it can run again. After completion the markers go and the post-commit
   notifications run.

What differs between services is their :class:`ServiceAttempt`: the task function, how results
become commit metadata, how a failure is reported and, for clustering, how the commit is made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from hudi_framework.errors import HudiError, InstantNotFoundError, ServiceTaskError
from hudi_framework.lock import table_lock
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.write.compaction_scheduler import timeline_writer
from hudi_framework.write.incomplete import discard_marked_attempt
from hudi_framework.write.markers import delete_markers

if TYPE_CHECKING:
    from hudi_framework.contracts.task_runner import ServiceTaskRunner
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.timeline.metadata import CommitMetadata, WriteStat
    from hudi_framework.timeline.transitions import TimelineWriter
    from hudi_framework.write.concurrency import WriteConcurrency

__all__ = [
    "ServiceAttempt",
    "ServiceResult",
    "execute_attempt",
    "locked_completion",
    "resume_pending",
    "rollback_attempt",
    "stats_by_partition",
]

T = TypeVar("T")
R = TypeVar("R")
P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class ServiceResult(Generic[P]):
    """What one execution of a service's plan did.

    Attributes:
        instant: The completed instant (``commit``, ``deltacommit`` or ``replacecommit``).
        plan: The plan executed.
        stats: One write stat per file written.
    """

    instant: Instant
    plan: P
    stats: tuple[WriteStat, ...]

    @property
    def num_writes(self) -> int:
        """Rows in the files written."""
        return sum(s.num_writes or 0 for s in self.stats)


def rollback_attempt(table: HudiTable, instant: str, action: Action) -> list[str]:
    """Undo a failed or crashed attempt at ``instant``: delete its marked files, markers and inflight file.

    The requested plan stays, so the service can execute it again.

    Returns:
        The data file keys deleted.
    """
    storage = table.storage
    deleted = discard_marked_attempt(storage, instant)
    timeline = table.reload().timeline
    try:
        current = timeline.get(instant, action)
    except InstantNotFoundError:
        return deleted
    if current.state is State.INFLIGHT:
        storage.delete(timeline.file_key(current, State.INFLIGHT))
    table.reload()
    return deleted


def resume_pending(
    table: HudiTable, instant: str, action: Action, pending: Callable[[HudiTable, str], Instant]
) -> Instant:
    """The pending ``instant`` as ``pending`` finds it (it raises the service's error when there is
    none), requested: an inflight one (a crashed run) is rolled back first."""
    table.reload()
    found = pending(table, instant)
    if found.state is State.INFLIGHT:
        rollback_attempt(table, instant, action)
        found = pending(table, instant)
    return found


def stats_by_partition(stats: Iterable[WriteStat]) -> dict[str, list[WriteStat]]:
    """Write stats grouped by partition path, as commit metadata holds them."""
    out: dict[str, list[WriteStat]] = {}
    for stat in stats:
        out.setdefault(stat.partition_path or "", []).append(stat)
    return out


def _complete(writer: TimelineWriter, inflight: Instant, metadata: CommitMetadata) -> Instant:
    return writer.complete(inflight, metadata)


def locked_completion(concurrency: WriteConcurrency) -> Callable[[TimelineWriter, Instant, CommitMetadata], Instant]:
    """Completes holding the table lock when the writers' commits do (optimistic concurrency control
    or serialized commits): a compaction's completion and metadata-table sync must not interleave
    with a writer's. No conflict check: a compaction or log compaction conflicts with no write."""
    open_lock = concurrency.open_lock
    if not concurrency.locks or open_lock is None:
        return _complete

    def complete(writer: TimelineWriter, inflight: Instant, metadata: CommitMetadata) -> Instant:
        with table_lock(open_lock(), table=concurrency.table, policy=concurrency.lock_policy) as held:
            held.ensure_held()
            return writer.complete(inflight, metadata)

    return complete


@dataclass(frozen=True, slots=True)
class ServiceAttempt(Generic[T, R]):
    """One execution of a service's plan: what differs between services.

    Attributes:
        action: The plan's action (``compaction``, ``logcompaction``, ``clustering``).
        run_task: Runs one task (module-level: runners that leave the process pickle it by reference).
        tasks: The tasks, in plan order.
        metadata: The commit metadata of the tasks' results.
        failure: The service's error for a failed task (its index, None when the failure is not a
            task's) and the reason.
        passthrough: Errors that propagate as they are (after the rollback).
        work_bytes: Bytes the tasks read (None: unknown), for the runner's choice.
        complete: Writes the completed instant (default: the timeline writer's ``complete``).
    """

    action: Action
    run_task: Callable[[T], R]
    tasks: Sequence[T]
    metadata: Callable[[list[R]], CommitMetadata]
    failure: Callable[[int | None, str], HudiError]
    passthrough: tuple[type[BaseException], ...] = ()
    work_bytes: int | None = None
    complete: Callable[[TimelineWriter, Instant, CommitMetadata], Instant] = _complete


def execute_attempt(
    table: HudiTable, pending: Instant, attempt: ServiceAttempt[T, R], runner: ServiceTaskRunner
) -> tuple[Instant, list[R]]:
    """Move ``pending`` (requested) to inflight, run the attempt's tasks on ``runner`` and complete it.

    Returns:
        The completed instant and the tasks' results in task order.

    Raises:
        HudiError: The attempt's ``passthrough`` errors as they are; any other failure as the
            attempt's ``failure`` error. The attempt was rolled back first.
    """
    instant = pending.requested_time
    writer = timeline_writer(table)
    inflight = writer.transition_to_inflight(pending)
    try:
        results = runner.map(
            attempt.run_task, attempt.tasks, work_bytes=attempt.work_bytes, label=f"{attempt.action} {instant}"
        )
        metadata = attempt.metadata(results)
        done = attempt.complete(writer, inflight, metadata)
    except attempt.passthrough:
        rollback_attempt(table, instant, attempt.action)
        raise
    except ServiceTaskError as e:
        rollback_attempt(table, instant, attempt.action)
        raise attempt.failure(e.task_index, e.reason) from e
    except Exception as e:
        rollback_attempt(table, instant, attempt.action)
        raise attempt.failure(None, f"{type(e).__name__}: {e}") from e
    except BaseException:
        rollback_attempt(table, instant, attempt.action)
        raise
    delete_markers(table.storage, instant)
    writer.notify_completed(inflight, done, metadata)
    table.reload()
    return done, results
