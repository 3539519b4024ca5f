"""Rolling back a write that did not complete, from its markers.

Two ways, chosen by table type and version (hudi-format.md 2.5, 10.2, 10.3):

* **Delete** (copy-on-write, and merge-on-read v8+ where every delta commit has log files of its
  own): every data file the markers name is deleted, then the instant.
* **Rollback blocks** (merge-on-read v6, as Apache Hudi 0.x does): log files of a v6 slice are
  shared by every delta commit of the slice, so the failed write's log files stay and each slice
  it appended to gets a COMMAND block (``TARGET_INSTANT_TIME`` = the failed instant) in the next
  log version; readers drop the failed instant's blocks. Base files the write created are deleted.
  The rollback is an instant of its own (``HoodieRollbackPlan`` requested, empty inflight,
  ``HoodieRollbackMetadata`` completed), then the failed instant is deleted, as Java does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hudi_framework.errors import IllegalTransitionError
from hudi_framework.layout.naming import (
    WRITER_IN_LOG_NAME_VERSION,
    BaseFileName,
    LogFileName,
    parse_data_file_name,
)
from hudi_framework.log.blocks import CommandBlock
from hudi_framework.log.writer import create_next_log_file
from hudi_framework.table.table_config import TableType
from hudi_framework.timeline.avro_container import AvroSchemaName, write_container
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.write.markers import delete_markers, marked_data_files

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.table.table_config import TableConfig
    from hudi_framework.timeline.transitions import TimelineWriter

__all__ = [
    "ROLLBACK_BLOCK_TOKEN",
    "RollbackResult",
    "files_named_with_instant",
    "rollback_failed_write",
    "rollback_instant",
    "uses_rollback_blocks",
]

#: Write token of rollback-block log files (one driver-side writer, no task attempts).
ROLLBACK_BLOCK_TOKEN = "0-0-1"


@dataclass(frozen=True, slots=True)
class RollbackResult:
    """What a rollback did.

    Attributes:
        deleted: Data file keys deleted.
        rollback_logs: Log file keys created holding a rollback COMMAND block (v6 merge-on-read).
        rollback_instant: The completed rollback instant, when one was written.
    """

    deleted: tuple[str, ...] = ()
    rollback_logs: tuple[str, ...] = ()
    rollback_instant: Instant | None = None


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
        record: Write a rollback instant (plan, inflight, metadata) even when only files are
            deleted, as a rollback of another writer's failed write does in Apache Hudi. A
            writer aborting its own write leaves no trace (False); v6 rollback blocks always
            get one, since the blocks name it.

    Returns:
        What was deleted and written.
    """
    if instant.is_completed:
        raise IllegalTransitionError(instant.requested_time, State.COMPLETED, "absent", "use rollback_instant")
    return rollback_instant(storage, config, writer, instant, record=record)


def rollback_instant(
    storage: StorageBackend,
    config: TableConfig,
    writer: TimelineWriter,
    instant: Instant,
    *,
    record: bool = True,
) -> RollbackResult:
    """Undo the write ``instant`` whether it completed or not (restore and ``hudi-fw rollback``).

    The files it wrote are those its markers name, those its commit metadata reports (completed
    instants), or, when neither says anything, those whose names carry its instant time.
    """
    target = instant.requested_time
    files = set(marked_data_files(storage, target))
    if instant.is_completed:
        metadata = writer.timeline().read_commit_metadata(instant)
        files |= {s.path for s in metadata.write_stats() if s.path}
    # No markers (a writer that does not write them): fall back to listing, as Java does.
    marked = (
        sorted(k for k in files if storage.exists(k)) if files else files_named_with_instant(storage, config, target)
    )
    logs = [k for k in marked if LogFileName.try_parse(_split(k)[1]) is not None]
    if uses_rollback_blocks(config) and logs:
        return _rollback_with_blocks(storage, writer, instant, marked, logs)
    if record:
        return _recorded_deletion(storage, writer, instant, marked)
    for key in marked:
        storage.delete(key)
    delete_markers(storage, target)
    writer.delete_instant(instant, allow_completed=True)
    return RollbackResult(deleted=tuple(marked))


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
        name = info.name
        base = BaseFileName.try_parse(name)
        if base is not None and base.instant_time == instant:
            out.append(info.key)
            continue
        log = LogFileName.try_parse(name) if own_logs else None
        if log is not None and log.instant_time == instant:
            out.append(info.key)
    return sorted(out)


def _recorded_deletion(
    storage: StorageBackend, writer: TimelineWriter, instant: Instant, files: list[str]
) -> RollbackResult:
    """Delete ``files`` inside a rollback instant of their own, then the failed instant."""
    started = time.monotonic()
    target = instant.requested_time
    instant_info = {"commitTime": target, "action": instant.action.value}
    requests = []
    for key in files:
        partition, name = _split(key)
        parsed = parse_data_file_name(name)
        requests.append(
            {
                "partitionPath": partition,
                "fileId": parsed.file_id if parsed is not None else "",
                "latestBaseInstant": "",
                "filesToBeDeleted": [storage.uri(key)],
                "logBlocksToBeDeleted": {},
            }
        )
    plan = {"instantToRollback": instant_info, "RollbackRequests": requests, "version": 1}
    requested = writer.create_requested(Action.ROLLBACK, content=write_container(AvroSchemaName.ROLLBACK_PLAN, plan))
    inflight = writer.transition_to_inflight(requested)
    partitions: dict[str, _Partition] = {}
    for key in files:
        storage.delete(key)
        partitions.setdefault(_split(key)[0], _Partition()).deleted.append(storage.uri(key))
    metadata = _rollback_metadata(inflight, started, instant_info, partitions, deleted=len(files))
    done = writer.complete(inflight, write_container(AvroSchemaName.ROLLBACK_METADATA, metadata))
    writer.delete_instant(instant, allow_completed=True)
    delete_markers(storage, target)
    return RollbackResult(deleted=tuple(files), rollback_instant=done)


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


def _rollback_with_blocks(
    storage: StorageBackend, writer: TimelineWriter, instant: Instant, marked: list[str], logs: list[str]
) -> RollbackResult:
    started = time.monotonic()
    target = instant.requested_time
    bases = [k for k in marked if k not in set(logs)]
    # One rollback block per slice: it cancels every earlier block of the failed instant there.
    slices: dict[tuple[str, str, str], list[str]] = {}
    for key in logs:
        partition, name = _split(key)
        parsed = LogFileName.parse(name)
        slices.setdefault((partition, parsed.file_id, parsed.instant_time), []).append(key)
    requests = [
        {
            "partitionPath": _split(k)[0],
            "fileId": "",
            "latestBaseInstant": "",
            "filesToBeDeleted": [storage.uri(k)],
            "logBlocksToBeDeleted": {},
        }
        for k in bases
    ]
    requests += [
        {
            "partitionPath": partition,
            "fileId": file_id,
            "latestBaseInstant": base_instant,
            "filesToBeDeleted": [],
            "logBlocksToBeDeleted": {storage.uri(k): storage.size(k) for k in keys},
        }
        for (partition, file_id, base_instant), keys in sorted(slices.items())
    ]
    instant_info = {"commitTime": target, "action": instant.action.value}
    plan = {"instantToRollback": instant_info, "RollbackRequests": requests, "version": 1}
    requested = writer.create_requested(Action.ROLLBACK, content=write_container(AvroSchemaName.ROLLBACK_PLAN, plan))
    inflight = writer.transition_to_inflight(requested)
    partitions: dict[str, _Partition] = {}
    for key in bases:
        storage.delete(key)
        partitions.setdefault(_split(key)[0], _Partition()).deleted.append(storage.uri(key))
    created = []
    for (partition, file_id, base_instant), keys in sorted(slices.items()):
        block = CommandBlock.rollback(instant_time=inflight.requested_time, target_instant_time=target)
        written = create_next_log_file(
            storage,
            partition_path=partition,
            file_id=file_id,
            instant_time=base_instant,
            write_token=ROLLBACK_BLOCK_TOKEN,
            blocks=[block],
        )
        created.append(written.key)
        entry = partitions.setdefault(partition, _Partition())
        entry.rollback_logs[storage.uri(written.key)] = written.size
        entry.failed_logs.update({storage.uri(k): storage.size(k) for k in keys})
    metadata = _rollback_metadata(inflight, started, instant_info, partitions, deleted=len(bases))
    done = writer.complete(inflight, write_container(AvroSchemaName.ROLLBACK_METADATA, metadata))
    writer.delete_instant(instant, allow_completed=True)
    delete_markers(storage, target)
    return RollbackResult(deleted=tuple(bases), rollback_logs=tuple(created), rollback_instant=done)
