"""Rolling back a write: a rollback instant that executes a plan, and finishes after a crash.

A rollback is an instant of its own, in Apache Hudi's order (hudi-format.md 2.5, 10.2, 10.3):

1. ``<R>.rollback.requested`` holds the plan (:class:`~hudi_framework.write.rollback_plan.RollbackPlan`):
   the files the rolled-back write created (its markers name them; for a completed instant its
   commit metadata too; with neither, files whose names carry its time);
2. ``<R>.rollback.inflight``; a completed target is reverted first (its completed file deleted), so
   readers stop seeing it before any of its files goes;
3. the plan is executed: its files are deleted with whatever their writers left half-written, the
   target's markers and heartbeat go, then its instant files (inflight, then requested);
4. ``<R>.rollback`` (``HoodieRollbackMetadata``) completes it.

Every step is idempotent, so a rollback whose process died leaves ``R`` pending and is finished by
executing its plan again under the same instant ``R`` (:func:`pending_rollbacks`,
:func:`execute_rollback`), as Apache Hudi finishes a pending rollback instead of starting another.

Log appends are undone one of two ways, by table type and version:

* **Delete** (copy-on-write, and merge-on-read v8+ where every delta commit has log files of its
  own): the log files are deleted like base files.
* **Rollback blocks** (merge-on-read v6, as Apache Hudi 0.x does): log files of a v6 slice are
  shared by every delta commit of the slice, so the failed write's log files stay and each slice it
  appended to gets a COMMAND block (``TARGET_INSTANT_TIME`` = the failed instant) in the next log
  version, marked under ``R`` first so that a re-run finds the block it already wrote.

A writer aborting its own write (``record=False``) leaves no trace: files, markers and instant
files go without a rollback instant (v6 log appends still get one, since their blocks name it).
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hudi_framework.errors import IllegalTransitionError, InstantMetadataError, InstantNotFoundError
from hudi_framework.layout.naming import WRITER_IN_LOG_NAME_VERSION, BaseFileName, LogFileName
from hudi_framework.log.blocks import CommandBlock
from hudi_framework.log.writer import WrittenLogFile, create_next_log_file
from hudi_framework.timeline.avro_container import AvroSchemaName, write_container
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.naming import parse_instant_file_name
from hudi_framework.vocabulary import TableType
from hudi_framework.write.heartbeat import HEARTBEAT_ROOT, heartbeat_key
from hudi_framework.write.incomplete import discard_incomplete_of, discard_incomplete_writes
from hudi_framework.write.markers import IOType, create_marker, delete_markers, marked_data_files
from hudi_framework.write.rollback_plan import LogSlice, RollbackPlan

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.table.table_config import TableConfig
    from hudi_framework.timeline.timeline import Timeline
    from hudi_framework.timeline.transitions import TimelineWriter

__all__ = [
    "ROLLBACK_BLOCK_TOKEN",
    "PendingRollback",
    "RollbackResult",
    "execute_rollback",
    "files_named_with_instant",
    "pending_rollbacks",
    "plan_rollback",
    "rollback_failed_write",
    "rollback_instant",
    "uses_rollback_blocks",
]

_log = logging.getLogger(__name__)

#: Write token of rollback-block log files (one driver-side writer, no task attempts).
ROLLBACK_BLOCK_TOKEN = "0-0-1"


@dataclass(frozen=True, slots=True)
class RollbackResult:
    """What a rollback did.

    Attributes:
        deleted: Data file keys deleted.
        rollback_logs: Log file keys holding a rollback COMMAND block (v6 merge-on-read).
        rollback_instant: The completed rollback instant, when one was written.
    """

    deleted: tuple[str, ...] = ()
    rollback_logs: tuple[str, ...] = ()
    rollback_instant: Instant | None = None


@dataclass(frozen=True, slots=True)
class PendingRollback:
    """A rollback that did not complete (its process died) and the plan it executes."""

    instant: Instant
    plan: RollbackPlan


@dataclass(slots=True)
class _Partition:
    deleted: list[str] = field(default_factory=list)
    failed_logs: dict[str, int] = field(default_factory=dict)
    rollback_logs: dict[str, int] = field(default_factory=dict)


def uses_rollback_blocks(config: TableConfig) -> bool:
    """Whether failed log appends are rolled back with COMMAND blocks (merge-on-read before v8)."""
    return config.table_type is TableType.MERGE_ON_READ and config.version < WRITER_IN_LOG_NAME_VERSION


def _split(key: str) -> tuple[str, str]:
    partition, _, name = key.rpartition("/")
    return partition, name


# ------------------------------------------------------------------------------------ planning
def plan_rollback(storage: StorageBackend, config: TableConfig, timeline: Timeline, instant: Instant) -> RollbackPlan:
    """The plan undoing ``instant`` (completed or not) on ``timeline``.

    The files it wrote are those its markers name, those its commit metadata reports (completed
    instants), or, when neither says anything, those whose names carry its instant time.
    """
    target = instant.requested_time
    files = set(marked_data_files(storage, target))
    if instant.is_completed:
        metadata = timeline.read_commit_metadata(instant)
        files |= {s.path for s in metadata.write_stats() if s.path}
    # No markers (a writer that does not write them): fall back to listing, as Java does.
    found = (
        sorted(k for k in files if storage.exists(k)) if files else files_named_with_instant(storage, config, target)
    )
    logs = [k for k in found if LogFileName.try_parse(_split(k)[1]) is not None]
    if not (uses_rollback_blocks(config) and logs):
        return RollbackPlan.of_files(target, instant.action.value, found)
    slices: dict[tuple[str, str, str], list[tuple[str, int]]] = {}
    for key in logs:
        partition, name = _split(key)
        parsed = LogFileName.parse(name)
        slices.setdefault((partition, parsed.file_id, parsed.instant_time), []).append((key, storage.size(key)))
    log_slices = [LogSlice(p, f, b, tuple(sorted(keys))) for (p, f, b), keys in sorted(slices.items())]
    return RollbackPlan.of_files(target, instant.action.value, set(found) - set(logs), log_slices=log_slices)


def files_named_with_instant(storage: StorageBackend, config: TableConfig, instant: str) -> list[str]:
    """Data files whose names carry ``instant``: the listing fallback when a write left no markers.

    Base files always name their write's instant; log files do from table version 8 on (v6 log
    names carry the slice's base instant, so without markers v6 log appends cannot be found).
    """
    own_logs = config.version >= WRITER_IN_LOG_NAME_VERSION
    out = []
    for info in storage.list("", recursive=True):
        if info.key.startswith(".hoodie/"):
            continue
        if _named_with(info.name, instant, own_logs=own_logs):
            out.append(info.key)
    return sorted(out)


def _named_with(name: str, instant: str, *, own_logs: bool) -> bool:
    base = BaseFileName.try_parse(name)
    if base is not None:
        return base.instant_time == instant
    log = LogFileName.try_parse(name) if own_logs else None
    return log is not None and log.instant_time == instant


def pending_rollbacks(storage: StorageBackend, writer: TimelineWriter, timeline: Timeline) -> list[PendingRollback]:
    """The rollbacks on ``timeline`` that did not complete, with their plans, newest target first.

    A requested rollback whose plan cannot be decoded is deleted (nothing was undone yet), as
    Apache Hudi does; an inflight one is left alone and logged.
    """
    found = []
    for instant in timeline.pending({Action.ROLLBACK}):
        key = timeline.file_key(instant, State.REQUESTED)
        try:
            plan = RollbackPlan.decode(storage.read(key), path=storage.uri(key))
        except (InstantMetadataError, KeyError, TypeError, ValueError) as e:
            if instant.state is State.REQUESTED:
                _log.warning("deleting rollback %s: its plan cannot be read: %s", instant.requested_time, e)
                writer.delete_instant(instant)
            else:
                _log.warning("skipping pending rollback %s: its plan cannot be read: %s", instant.requested_time, e)
            continue
        found.append(PendingRollback(instant, plan))
    return sorted(found, key=lambda p: p.plan.target_time, reverse=True)


# ----------------------------------------------------------------------------------- executing
def rollback_failed_write(
    storage: StorageBackend,
    config: TableConfig,
    writer: TimelineWriter,
    instant: Instant,
    *,
    record: bool = False,
) -> RollbackResult:
    """Undo the not-completed write ``instant`` (requested or inflight) and remove it from the timeline.

    Args:
        storage: Backend rooted at the table base path.
        config: The table config (type and version choose the method).
        writer: The table's timeline writer.
        instant: The failed write's instant (still on the timeline).
        record: Write a rollback instant, as a rollback of another writer's failed write does in
            Apache Hudi. A writer aborting its own write leaves no trace (False); v6 rollback
            blocks always get one, since the blocks name it.

    Returns:
        What was deleted and written.

    Raises:
        IllegalTransitionError: The instant completed (on the timeline, whatever ``instant`` says):
            a completed write is never undone as a failed one.
        InstantNotFoundError: The instant is not on the timeline (rolled back meanwhile).
    """
    timeline = writer.timeline()
    current = timeline.get(instant.requested_time, instant.action)
    if current.is_completed:
        raise IllegalTransitionError(instant.requested_time, State.COMPLETED, "absent", "use rollback_instant")
    return rollback_instant(storage, config, writer, current, record=record, timeline=timeline)


def rollback_instant(
    storage: StorageBackend,
    config: TableConfig,
    writer: TimelineWriter,
    instant: Instant,
    *,
    record: bool = True,
    timeline: Timeline | None = None,
) -> RollbackResult:
    """Undo the write ``instant`` whether it completed or not (restore and ``hudi-fw rollback``).

    A pending rollback of ``instant`` (its process died) is finished instead of starting another.
    """
    timeline = timeline or writer.timeline()
    target = instant.requested_time
    for pending in pending_rollbacks(storage, writer, timeline):
        if pending.plan.target_time == target:
            return execute_rollback(storage, config, writer, pending.instant, pending.plan)
    plan = plan_rollback(storage, config, timeline, instant)
    if not record and not plan.log_slices:
        return _undo_unrecorded(storage, writer, instant, plan)
    requested = writer.create_requested(Action.ROLLBACK, content=plan.encode(storage))
    return execute_rollback(storage, config, writer, requested, plan)


def _undo_unrecorded(
    storage: StorageBackend, writer: TimelineWriter, instant: Instant, plan: RollbackPlan
) -> RollbackResult:
    """A writer's own abort: files, markers, then the instant, with no rollback instant."""
    _delete_files(storage, plan)
    delete_markers(storage, plan.target_time)
    writer.discard_synced(instant.requested_time)  # the metadata table's delta commit of the write goes too
    writer.delete_instant(instant)
    return RollbackResult(deleted=plan.deletes)


def execute_rollback(
    storage: StorageBackend, config: TableConfig, writer: TimelineWriter, rollback: Instant, plan: RollbackPlan
) -> RollbackResult:
    """Execute (or execute again) the rollback instant ``rollback`` with its ``plan`` and complete it.

    Raises:
        InstantNotFoundError, IllegalTransitionError: Another process completed it meanwhile.
    """
    started = time.monotonic()
    inflight = rollback if rollback.state is State.INFLIGHT else writer.transition_to_inflight(rollback)
    target = _current_target(writer, plan)
    if target is not None and target.is_completed:
        target = writer.revert_to_inflight(target)
    _delete_files(storage, plan)
    created = _rollback_blocks(storage, inflight.requested_time, plan)
    delete_markers(storage, plan.target_time)
    heartbeat = heartbeat_key(plan.target_time)
    storage.delete(heartbeat)
    if storage.small_writes_leave_incomplete:
        discard_incomplete_of(storage, HEARTBEAT_ROOT, lambda key: key == heartbeat)
    if target is not None:
        with contextlib.suppress(InstantNotFoundError):  # another process finishing this rollback was first
            writer.delete_instant(target)
    _discard_instant_leftovers(storage, writer, plan.target_time)
    partitions: dict[str, _Partition] = {}
    for key in plan.deletes:
        partitions.setdefault(_split(key)[0], _Partition()).deleted.append(storage.uri(key))
    for s, written in zip(plan.log_slices, created, strict=True):
        entry = partitions.setdefault(s.partition, _Partition())
        entry.rollback_logs[storage.uri(written.key)] = written.size
        entry.failed_logs.update({storage.uri(k): size for k, size in s.logs})
    metadata = _rollback_metadata(inflight, started, plan.instant_info(), partitions, deleted=len(plan.deletes))
    done = writer.complete(inflight, write_container(AvroSchemaName.ROLLBACK_METADATA, metadata))
    delete_markers(storage, inflight.requested_time)
    _discard_instant_leftovers(storage, writer, inflight.requested_time)
    return RollbackResult(deleted=plan.deletes, rollback_logs=tuple(w.key for w in created), rollback_instant=done)


def _current_target(writer: TimelineWriter, plan: RollbackPlan) -> Instant | None:
    """The rolled-back instant as it is on the timeline now (None once deleted)."""
    try:
        return writer.timeline().get(plan.target_time, Action(plan.target_action))
    except (InstantNotFoundError, ValueError):
        return None


def _delete_files(storage: StorageBackend, plan: RollbackPlan) -> None:
    """Delete the plan's files, then what their writer left half-written next to them."""
    for key in plan.deletes:
        storage.delete(key)
    marked = set(marked_data_files(storage, plan.target_time))
    for key in sorted(marked - plan.files):
        # A file the target created but had not published when planned: deleting it takes a
        # straggler's late file and, on storage with directories, the partition directory the
        # dead writer created but never filled. (Files named otherwise may predate the target.)
        if _named_with(_split(key)[1], plan.target_time, own_logs=True):
            storage.delete(key, missing_ok=True)
    files = plan.files | marked

    def dead(key: str) -> bool:
        # A v6 log named with the target's time belongs to a slice the target created: its own too.
        return key in files or _named_with(_split(key)[1], plan.target_time, own_logs=True)

    discard_incomplete_writes(storage, plan.partitions | {_split(k)[0] for k in files}, dead)


def _discard_instant_leftovers(storage: StorageBackend, writer: TimelineWriter, instant: str) -> None:
    """Discard half-written instant files of ``instant`` (a writer died while publishing one)."""
    if not storage.small_writes_leave_incomplete:
        return
    layout = writer.layout_version

    def of_instant(key: str) -> bool:
        parsed = parse_instant_file_name(key.rsplit("/", 1)[-1], layout)
        return parsed is not None and parsed.instant.requested_time == instant

    discard_incomplete_of(storage, writer.timeline_directory, of_instant)


def _rollback_blocks(storage: StorageBackend, rollback: str, plan: RollbackPlan) -> list[WrittenLogFile]:
    """One rollback block per v6 slice (an earlier attempt's block, marked under ``rollback``, is kept)."""
    earlier = {}
    marked = set(marked_data_files(storage, rollback))
    for key in marked:
        partition, name = _split(key)
        parsed = LogFileName.try_parse(name)
        if parsed is not None and storage.exists(key):
            earlier[(partition, parsed.file_id, parsed.instant_time)] = WrittenLogFile(key, storage.size(key), (0,))
    if marked:  # an earlier attempt died: a block it was writing may be half-written
        discard_incomplete_writes(storage, {_split(k)[0] for k in marked}, marked.__contains__)
    created = []
    for s in plan.log_slices:
        found = earlier.get((s.partition, s.file_id, s.base_instant))
        if found is None:
            block = CommandBlock.rollback(instant_time=rollback, target_instant_time=plan.target_time)

            def mark(name: LogFileName, partition: str = s.partition) -> None:
                create_marker(storage, rollback, partition, name.name, IOType.APPEND)

            found = create_next_log_file(
                storage,
                partition_path=s.partition,
                file_id=s.file_id,
                instant_time=s.base_instant,
                write_token=ROLLBACK_BLOCK_TOKEN,
                blocks=[block],
                before_create=mark,
            )
        created.append(found)
    return created


def _rollback_metadata(
    inflight: Instant,
    started: float,
    instant_info: dict[str, str],
    partitions: dict[str, _Partition],
    *,
    deleted: int,
) -> dict[str, object]:
    """A ``HoodieRollbackMetadata`` record."""
    return {
        "startRollbackTime": inflight.requested_time,
        "timeTakenInMillis": int((time.monotonic() - started) * 1000),
        "totalFilesDeleted": deleted,
        "commitsRollback": [instant_info["commitTime"]],
        "partitionMetadata": {
            p: {
                "partitionPath": p,
                "successDeleteFiles": e.deleted,
                "failedDeleteFiles": [],
                "rollbackLogFiles": e.rollback_logs,
                "logFilesFromFailedCommit": e.failed_logs,
            }
            for p, e in sorted(partitions.items())
        },
        "version": 1,
        "instantsRollback": [instant_info],
    }
