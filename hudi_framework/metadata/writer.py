"""Writing Apache Hudi's metadata table (MDT): its ``files`` partition, in step with every data instant.

Layout and protocol follow Apache Hudi 1.x (table versions 8 and 9, timeline layout 2):

* **Initialization** (:func:`initialize_metadata_table`): any old ``.hoodie/metadata`` goes; the MDT's
  ``hoodie.properties`` is written; the ``files`` file group ``files-0000-0`` gets an init log
  holding one empty DELETE block, then a bulk delta commit at ``00000000000000000`` writes a base
  HFile of the data table's committed files (from a storage listing); only once that commit completed
  does the data table list ``files`` in ``hoodie.table.metadata.partitions`` (backup protocol).
* **Per data instant** (:class:`MetadataTableSync`): just before a data instant completes (under the
  table lock when the writer holds one), an MDT delta commit with the same instant time completes,
  holding one new log file with an HFILE_DATA block of the instant's ``files`` records (and a DELETE
  block when a clean removed a partition). A rollback of a data instant deletes the MDT log files of
  that instant and completes an MDT rollback at the data rollback's instant time. A restore deletes the
  MDT (the next writer with the MDT enabled rebuilds it from a listing). Savepoints change no file.

The reader (:mod:`hudi_framework.metadata.reader`) ignores files of data instants that did not complete,
so an MDT delta commit whose data instant crashed is harmless until that instant is rolled back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, Final

from hudi_framework.contracts.reserved_paths import PARTITION_METADATA_FILE
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import UnsupportedOptionError
from hudi_framework.layout.discovery import list_table
from hudi_framework.layout.fs_view import FileSystemView
from hudi_framework.layout.naming import LogFileName
from hudi_framework.layout.partition_metadata import PartitionMetadata
from hudi_framework.log.blocks import DeleteBlock, HFileBlock, LogBlock
from hudi_framework.log.hfile_records import encode_hfile_base_file
from hudi_framework.log.writer import create_next_log_file
from hudi_framework.metadata.keys import ALL_PARTITIONS_KEY, files_key, partition_identifier
from hudi_framework.metadata.records import (
    METADATA_TABLE_DIR,
    TABLE_METADATA_PARTITIONS_INFLIGHT_KEY,
    TABLE_METADATA_PARTITIONS_KEY,
    MetadataPartition,
    RecordType,
    file_group_id,
)
from hudi_framework.metadata.validate import committed_files
from hudi_framework.model.schema import META_FIELDS
from hudi_framework.table.metadata_table import disable_metadata_table
from hudi_framework.table.properties import render_properties, table_checksum, update_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import COMPLETES_AS, Action, Instant, State
from hudi_framework.timeline.metadata import CommitMetadata, WriteStat
from hudi_framework.timeline.naming import instant_file_name, parse_instant_file_name
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import TimelineTimezone

__all__ = [
    "INIT_INSTANT",
    "MetadataTableSync",
    "clean_records",
    "commit_records",
    "initialize_metadata_table",
    "listing_records",
    "mdt_commit_metadata",
    "mdt_timeline_writer",
    "mdt_write_stat",
    "metadata_record_schema_text",
    "metadata_sync",
    "metadata_table_properties",
    "prepare_metadata_table",
]

#: The instant of the ``files`` partition's bootstrap (Java: ``SOLO_COMMIT_TIMESTAMP`` + ``000``).
INIT_INSTANT: Final = "00000000000000000"
#: The MDT's timeline below the data table's ``.hoodie`` (timeline helpers are rooted there).
_MDT_TIMELINE_PATH: Final = "metadata/.hoodie/timeline"
_MDT_META_DIR: Final = f"{METADATA_TABLE_DIR}/.hoodie"
_FILES_DIR: Final = f"{METADATA_TABLE_DIR}/{MetadataPartition.FILES.value}"
_FILES_GROUP: Final = file_group_id(MetadataPartition.FILES, 0)
#: Java's ``HoodieLogFormat.DEFAULT_WRITE_TOKEN``: the token of init logs and of our single-task writes.
_WRITE_TOKEN: Final = "0-0-0"


def metadata_table_properties(data: TableConfig) -> dict[str, str]:
    """The MDT's ``hoodie.properties`` for a data table (Java ``initializeMetaClient``), with checksum."""
    name = f"{data.name}_metadata"
    return {
        "hoodie.compaction.payload.class": "org.apache.hudi.metadata.HoodieMetadataPayload",
        "hoodie.table.initial.version": str(data.version),
        "hoodie.table.keygenerator.type": "HOODIE_TABLE_METADATA",
        "hoodie.table.type": "MERGE_ON_READ",
        "hoodie.archivelog.folder": "history",
        "hoodie.timeline.layout.version": "2",
        "hoodie.timeline.history.path": "history",
        # Java has no database name for the MDT: the checksum is over ".<name>".
        "hoodie.table.checksum": str(table_checksum(None, name)),
        "hoodie.datasource.write.drop.partition.columns": "false",
        "hoodie.record.merge.strategy.id": "00000000-0000-0000-0000-000000000000",
        "hoodie.table.recordkey.fields": "key",
        "hoodie.table.name": name,
        "hoodie.timeline.path": "timeline",
        "hoodie.populate.meta.fields": "false",
        "hoodie.table.base.file.format": "HFILE",
        "hoodie.record.merge.mode": "CUSTOM",
        "hoodie.table.version": str(data.version),
    }


@cache
def _writer_schema_text() -> str:
    path = resources.files("hudi_framework.metadata.schemas").joinpath("HoodieMetadataRecord.writer.avsc")
    return path.read_text(encoding="utf-8")


def metadata_record_schema_text(*, with_meta_fields: bool) -> str:
    """``HoodieMetadataRecord`` exactly as Apache Hudi's writers put it (1.1 and 1.2 agree): without
    meta fields in commit metadata's ``extraMetadata.schema``, with the five nullable meta fields
    first in block headers and base files.

    The text must be Java's to the byte (doc strings and ``avro.java.string`` properties included):
    Apache Hudi takes an MDT's write schema from its latest commit and treats a schema that is not
    its own ``HoodieMetadataRecord`` as one with meta fields, failing its next MDT write.
    """
    text = _writer_schema_text()
    if not with_meta_fields:
        return text
    meta = ",".join(f'{{"name":"{n}","type":["null","string"],"doc":"","default":null}}' for n in META_FIELDS)
    return text.replace('"fields":[', f'"fields":[{meta},', 1)


def mdt_timeline_writer(storage: StorageBackend, timezone: str) -> TimelineWriter:
    """A timeline writer of the MDT (layout 2, under the data table's ``.hoodie/metadata``)."""
    return TimelineWriter(
        storage, layout_version=2, timeline_path=_MDT_TIMELINE_PATH, timezone=TimelineTimezone(timezone)
    )


def _file_info(size: int, *, deleted: bool = False) -> dict[str, Any]:
    return {"size": size, "isDeleted": deleted}


def _record(key: str, kind: RecordType, files: Mapping[str, dict[str, Any]] | None) -> dict[str, Any]:
    return {"key": key, "type": int(kind), "filesystemMetadata": dict(files) if files is not None else None}


def commit_records(metadata: CommitMetadata) -> list[dict[str, Any]]:
    """The ``files`` records of a commit, delta commit, replace commit or compaction (Java
    ``convertMetadataToFilesPartitionRecords``): the partitions written, and per partition every file
    written with its size (the largest when several stats name it). Replaced files stay until cleaned.
    """
    per_partition: dict[str, dict[str, int]] = {}
    for partition, stats in (metadata.partition_to_write_stats or {}).items():
        files = per_partition.setdefault(partition or "", {})
        for stat in stats:
            name = _written_name(stat)
            if name is None:
                continue
            size = int(stat.file_size_in_bytes or stat.total_write_bytes or 0)
            files[name] = max(size, files.get(name, 0))
    records = [
        _record(
            ALL_PARTITIONS_KEY,
            RecordType.PARTITION_LIST,
            {partition_identifier(p): _file_info(0) for p in per_partition},
        )
    ]
    for partition, files in per_partition.items():
        records.append(
            _record(files_key(partition), RecordType.FILE_LIST, {n: _file_info(s) for n, s in files.items()})
        )
    return records


def _written_name(stat: WriteStat) -> str | None:
    if not stat.path:
        return None
    return stat.path.rsplit("/", 1)[-1]


def clean_records(data: bytes) -> tuple[list[dict[str, Any]], list[str]]:
    """The ``files`` records of a completed clean, and the partition keys it deleted.

    Every deleted file is recorded as ``{size: 0, isDeleted: true}``; a deleted partition is dropped
    from ``__all_partitions__`` and its key deleted (Java's clean conversion).
    """
    clean = decode_clean_metadata(data)
    records: list[dict[str, Any]] = []
    deleted_partitions: list[str] = []
    for partition, outcome in sorted(clean.partitions.items()):
        if outcome.is_partition_deleted:
            deleted_partitions.append(partition)
            continue
        if outcome.success_delete_files:
            gone = {name: _file_info(0, deleted=True) for name in outcome.success_delete_files}
            records.append(_record(files_key(partition), RecordType.FILE_LIST, gone))
    if deleted_partitions:
        gone_partitions = {partition_identifier(p): _file_info(0, deleted=True) for p in deleted_partitions}
        records.append(_record(ALL_PARTITIONS_KEY, RecordType.PARTITION_LIST, gone_partitions))
    return records, [files_key(p) for p in deleted_partitions]


def metadata_sync(storage: StorageBackend, config: TableConfig) -> MetadataTableSync | None:
    """The MDT sync a data table's timeline writer calls before each completion, or None.

    The MDT is kept when ``hoodie.table.metadata.partitions`` lists ``files``: writers that run with
    the MDT off delete it before they write (:func:`prepare_metadata_table`).
    """
    if MetadataPartition.FILES.value not in config.metadata_partitions:
        return None
    return MetadataTableSync(storage, config)


def prepare_metadata_table(storage: StorageBackend, config: TableConfig, timeline: Callable[[], Timeline]) -> bool:
    """Before a write or table service with the MDT enabled: build it unless it is there and usable.

    Args:
        storage: The data table's storage.
        config: The data table's config.
        timeline: Loads the data table's timeline (only when the MDT must be built).

    Returns:
        True when ``hoodie.properties`` changed (the caller re-reads the table config).

    Raises:
        UnsupportedOptionError: A table version below 8.
    """
    if MetadataPartition.FILES.value in config.metadata_partitions and _has_completed_instant(storage, config):
        return _drop_other_partitions(storage, config)
    if config.version < 8:
        raise UnsupportedOptionError(
            "hoodie.metadata.enable",
            f"the metadata table is written for table versions 8 and 9 only (this table: {config.version})",
        )
    initialize_metadata_table(storage, config, timeline())
    return True


def _drop_other_partitions(storage: StorageBackend, config: TableConfig) -> bool:
    """Drop the MDT partitions other than ``files`` (another writer's column stats, record index...):
    we do not keep them in step, and a reader trusting them would skip or miss our files. Apache
    Hudi drops a partition its writer has disabled the same way: properties first, then the files."""
    others = [p for p in config.metadata_partitions if p != MetadataPartition.FILES.value]
    inflight = [p for p in config.extra.get(TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, "").split(",") if p.strip()]
    if not others and not inflight:
        return False
    update_properties(
        storage,
        {TABLE_METADATA_PARTITIONS_KEY: MetadataPartition.FILES.value, TABLE_METADATA_PARTITIONS_INFLIGHT_KEY: ""},
    )
    for partition in {*others, *inflight} - {MetadataPartition.FILES.value}:
        for info in storage.list(f"{METADATA_TABLE_DIR}/{partition}", recursive=True):
            storage.delete(info.key)
    return True


def _has_completed_instant(storage: StorageBackend, config: TableConfig) -> bool:
    return bool(mdt_timeline_writer(storage, config.timeline_timezone).timeline().completed())


def initialize_metadata_table(storage: StorageBackend, config: TableConfig, timeline: Timeline) -> None:
    """Build the MDT ``files`` partition from a listing of the data table's committed files.

    Args:
        storage: The data table's storage.
        config: The data table's config (name, version, time zone).
        timeline: The data table's timeline: only files of its completed instants are recorded.
    """
    disable_metadata_table(storage)
    props = metadata_table_properties(config)
    storage.write(f"{_MDT_META_DIR}/hoodie.properties", render_properties(props))
    writer = mdt_timeline_writer(storage, config.timeline_timezone)
    init_log = DeleteBlock.create([], [], instant_time=INIT_INSTANT)
    create_next_log_file(
        storage,
        partition_path=_FILES_DIR,
        file_id=_FILES_GROUP,
        instant_time=INIT_INSTANT,
        write_token=_WRITE_TOKEN,
        blocks=[init_log],
        existing=(),
    )
    requested = writer.create_requested(Action.DELTA_COMMIT, INIT_INSTANT)
    inflight = writer.transition_to_inflight(requested)
    records = listing_records(_storage_listing(storage, config, timeline))
    content = encode_hfile_base_file(records, metadata_record_schema_text(with_meta_fields=True))
    base_name = f"{_FILES_GROUP}_{_WRITE_TOKEN}_{INIT_INSTANT}.hfile"
    storage.write(f"{_FILES_DIR}/{base_name}", content)
    storage.write(f"{_FILES_DIR}/{PARTITION_METADATA_FILE}", PartitionMetadata(INIT_INSTANT, 1).to_bytes())
    stat = mdt_write_stat(base_name, len(content), len(records), base=True)
    writer.complete(inflight, mdt_commit_metadata([stat], "BULK_INSERT_PREPPED"))
    update_properties(
        storage,
        {TABLE_METADATA_PARTITIONS_KEY: MetadataPartition.FILES.value, TABLE_METADATA_PARTITIONS_INFLIGHT_KEY: ""},
    )


def _storage_listing(storage: StorageBackend, config: TableConfig, timeline: Timeline) -> dict[str, dict[str, int]]:
    """Partition -> committed file name -> size, from a storage listing."""
    listed = list_table(storage)
    view = FileSystemView(listed, completed_instants=timeline.completed(), table_version=config.version)
    per_partition: dict[str, dict[str, int]] = {p: {} for p in listed.partitions}
    for key, size in committed_files(view).items():
        partition, _, name = key.rpartition("/")
        per_partition.setdefault(partition, {})[name] = int(size or 0)
    return per_partition


def listing_records(files: Mapping[str, Mapping[str, int]]) -> list[dict[str, Any]]:
    """The ``files`` records of a whole listing (partition -> file name -> size): ``__all_partitions__``
    and one file list per partition that has files (a bootstrap or a compaction's base file)."""
    records = [
        _record(
            ALL_PARTITIONS_KEY,
            RecordType.PARTITION_LIST,
            {partition_identifier(p): _file_info(0) for p in sorted(files)},
        )
    ]
    records += [
        _record(files_key(p), RecordType.FILE_LIST, {n: _file_info(size) for n, size in sizes.items()})
        for p, sizes in files.items()
        if sizes
    ]
    return records


def mdt_write_stat(name: str, size: int, records: int, *, base: bool) -> WriteStat:
    """The write stat of one file of the ``files`` file group (a base HFile or a log file)."""
    return WriteStat(
        file_id=_FILES_GROUP,
        path=f"{MetadataPartition.FILES.value}/{name}",
        prev_commit="null",
        num_writes=records,
        num_deletes=0,
        num_update_writes=0,
        num_inserts=records if base else 0,
        total_write_bytes=size,
        total_write_errors=0,
        partition_path=MetadataPartition.FILES.value,
        file_size_in_bytes=size,
        base_file="" if not base else name,
        log_files=[] if base else [name],
    )


def mdt_commit_metadata(stats: Sequence[WriteStat], operation: str, *, compacted: bool = False) -> CommitMetadata:
    """Commit metadata of an MDT instant writing ``stats`` to the ``files`` partition."""
    return CommitMetadata(
        partition_to_write_stats={MetadataPartition.FILES.value: list(stats)},
        compacted=compacted,
        extra_metadata={"schema": metadata_record_schema_text(with_meta_fields=False)},
        operation_type=operation,
    )


class MetadataTableSync:
    """Keeps a table's MDT ``files`` partition in step with its data instants.

    The data table's :class:`~hudi_framework.timeline.transitions.TimelineWriter` calls
    :meth:`before_complete` just before a data instant's completed file is created (under the table
    lock when the writer holds one), and :meth:`discard` when a write is undone without a rollback
    instant (a writer aborting its own write).
    """

    def __init__(self, storage: StorageBackend, config: TableConfig) -> None:
        """Sync the MDT of the table rooted at ``storage`` (``config``: its ``hoodie.properties``)."""
        self._storage = storage
        self._config = config

    def before_complete(self, instant: Instant, metadata: CommitMetadata | bytes | None) -> None:
        """Record the data instant about to complete in the MDT (an MDT instant of the same time)."""
        action = COMPLETES_AS.get(instant.action, instant.action)
        t = instant.requested_time
        if isinstance(metadata, CommitMetadata):
            self._delta_commit(t, commit_records(metadata), [])
        elif action is Action.CLEAN and isinstance(metadata, bytes) and metadata:
            records, deleted = clean_records(metadata)
            self._delta_commit(t, records, deleted)
        elif action is Action.ROLLBACK and isinstance(metadata, bytes) and metadata:
            record = read_container(metadata).record
            self._rollback(t, [str(c) for c in record.get("commitsRollback") or ()])
        elif action is Action.RESTORE:
            # A restore removes many instants at once; rebuilding from a listing is simplest and
            # exact. The MDT goes now and the next writer with the MDT enabled builds it again.
            disable_metadata_table(self._storage)

    def discard(self, instant_time: str) -> None:
        """Remove the MDT delta commit of an aborted data write (its files and instant)."""
        self._remove_instant(self._writer(), instant_time)

    def _writer(self) -> TimelineWriter:
        return mdt_timeline_writer(self._storage, self._config.timeline_timezone)

    def _delta_commit(self, instant_time: str, records: list[dict[str, Any]], deleted_keys: list[str]) -> None:
        writer = self._writer()
        # A retried instant (a crashed attempt of the same data instant) is undone first, as Java does.
        self._remove_instant(writer, instant_time)
        inflight = writer.transition_to_inflight(self._requested(writer, Action.DELTA_COMMIT, instant_time))
        schema = metadata_record_schema_text(with_meta_fields=True)
        blocks: list[LogBlock] = []
        if records:
            blocks.append(HFileBlock.create(records, instant_time=instant_time, schema=schema))
        if deleted_keys:
            paths = [MetadataPartition.FILES.value] * len(deleted_keys)
            blocks.append(DeleteBlock.create(deleted_keys, paths, instant_time=instant_time, schema=schema))
        written = create_next_log_file(
            self._storage,
            partition_path=_FILES_DIR,
            file_id=_FILES_GROUP,
            instant_time=instant_time,
            write_token=_WRITE_TOKEN,
            blocks=blocks,
            existing=(),
        )
        stat = mdt_write_stat(written.key.rsplit("/", 1)[-1], written.size, len(records), base=False)
        writer.complete(inflight, mdt_commit_metadata([stat], "UPSERT_PREPPED"))

    def _requested(self, writer: TimelineWriter, action: Action, instant_time: str) -> Instant:
        """The MDT instant of a data instant: its time is given, and may be older than the MDT's newest
        (a compaction or clean planned before a write completes after it), as on Apache Hudi's MDT."""
        requested = Instant(instant_time, action, State.REQUESTED)
        self._storage.put_if_absent(f"{writer.timeline_directory}/{instant_file_name(requested, 2)}", b"")
        return requested

    def _remove_instant(self, writer: TimelineWriter, instant_time: str) -> list[str]:
        """Delete the MDT log files written at ``instant_time`` and its instant files; the keys deleted."""
        deleted: list[str] = []
        for info in self._storage.list(_FILES_DIR):
            name = LogFileName.try_parse(info.name)
            if name is not None and name.instant_time == instant_time:
                self._storage.delete(info.key)
                deleted.append(info.key)
        if self._storage.small_writes_leave_incomplete:  # a log file the dead writer was publishing

            def of_instant(key: str) -> bool:
                name = LogFileName.try_parse(key.rsplit("/", 1)[-1])
                return name is not None and name.instant_time == instant_time

            def instant_file(key: str) -> bool:
                parsed = parse_instant_file_name(key.rsplit("/", 1)[-1], 2)
                return parsed is not None and parsed.instant.requested_time == instant_time

            for directory, owned in ((_FILES_DIR, of_instant), (writer.timeline_directory, instant_file)):
                for write in self._storage.list_incomplete(directory):
                    if owned(write.target):
                        self._storage.discard_incomplete(write)
        for inst in writer.timeline().instants:
            if inst.requested_time == instant_time:
                writer.delete_instant(inst, allow_completed=True)
        return deleted

    def _rollback(self, rollback_time: str, targets: list[str]) -> None:
        """Roll back the MDT delta commits of ``targets`` at the data rollback's instant time."""
        writer = self._writer()
        present = {i.requested_time for i in writer.timeline().instants}
        # Written even when the MDT never had the target (it predates the MDT): readers take the MDT
        # as in step only if it has every file-changing data instant, rollbacks included.
        inflight = writer.transition_to_inflight(self._requested(writer, Action.ROLLBACK, rollback_time))
        deleted: list[str] = []
        for target in targets:
            if target in present:
                deleted += self._remove_instant(writer, target)
        names = [k.rsplit("/", 1)[-1] for k in deleted]
        record = {
            "startRollbackTime": rollback_time,
            "timeTakenInMillis": 0,
            "totalFilesDeleted": len(deleted),
            "commitsRollback": targets,
            "partitionMetadata": {
                MetadataPartition.FILES.value: {
                    "partitionPath": MetadataPartition.FILES.value,
                    "successDeleteFiles": names,
                    "failedDeleteFiles": [],
                    "rollbackLogFiles": {},
                    "logFilesFromFailedCommit": {},
                }
            },
            "version": 1,
            "instantsRollback": [
                {"commitTime": t, "action": Action.DELTA_COMMIT.value} for t in targets if t in present
            ],
        }
        writer.complete(inflight, write_container(AvroSchemaName.ROLLBACK_METADATA, record))
