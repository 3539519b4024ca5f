"""Keeping every metadata-table (MDT) partition in step with the data table's instants.

Just before a data instant completes (under the table lock when the writer holds one), an MDT delta
commit with the same instant time completes, covering every partition the data table lists as
complete or inflight that this writer has a builder for: each builder's records are routed to the
partition's file groups by key hash, and each touched file group gets one new log file (an
HFILE_DATA block, and a DELETE block when keys go). A rollback of a data instant deletes the MDT
log files of that instant in every partition and completes an MDT rollback at the data rollback's
instant time. A restore deletes the MDT (the next writer with the MDT enabled rebuilds it from a
listing). Savepoints change no file.

The reader (:mod:`hudi_framework.metadata.reader`) ignores files of data instants that did not
complete, so an MDT delta commit whose data instant crashed is harmless until it is rolled back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hudi_framework.contracts.storage import FileInfo, StorageBackend
from hudi_framework.layout.naming import LogFileName
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import METADATA_TABLE_DIR, TABLE_METADATA_PARTITIONS_INFLIGHT_KEY
from hudi_framework.metadata_writer import builders
from hudi_framework.metadata_writer.file_groups import file_group_count, partition_dir, route, write_log_file
from hudi_framework.metadata_writer.mdt_timeline import (
    mdt_commit_metadata,
    mdt_inflight,
    mdt_requested,
    mdt_timeline_writer,
)
from hudi_framework.metadata_writer.partition_builder import InstantContext, PartitionBuilder, PartitionRecords
from hudi_framework.table.metadata_table import disable_metadata_table
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import COMPLETES_AS, Action, Instant, State
from hudi_framework.timeline.metadata import CommitMetadata, WriteStat
from hudi_framework.timeline.naming import parse_instant_file_name
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.timeline.transitions import TimelineWriter

__all__ = ["MetadataTableSync", "kept_partitions"]

#: Makes one builder's records for an instant.
_RecordsOf = Callable[[PartitionBuilder, InstantContext], PartitionRecords]


def kept_partitions(config: TableConfig) -> list[PartitionBuilder]:
    """Builders of the MDT partitions the data table lists (complete or inflight), in Java's order."""
    listed = set(config.metadata_partitions)
    listed |= {p for p in config.extra.get(TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, "").split(",") if p.strip()}
    return [b for b in builders.partition_builders() if b.partition in listed]


class MetadataTableSync:
    """Keeps a table's MDT in step with its data instants.

    The data table's :class:`~hudi_framework.timeline.transitions.TimelineWriter` calls
    :meth:`before_complete` just before a data instant's completed file is created (under the table
    lock when the writer holds one), and :meth:`discard` when a write is undone without a rollback
    instant (a writer aborting its own write). The write path may :meth:`hand_over` facts about an
    instant (what it wrote) for the builders, before completing it.
    """

    def __init__(self, storage: StorageBackend, config: TableConfig) -> None:
        """Sync the MDT of the table rooted at ``storage`` (``config``: its ``hoodie.properties``)."""
        self._storage = storage
        self._config = config
        self._facts: dict[str, dict[str, object]] = {}

    @property
    def partitions(self) -> list[str]:
        """The MDT partitions each delta commit covers."""
        return [b.partition for b in kept_partitions(self._config)]

    def hand_over(self, instant_time: str, name: str, fact: object) -> None:
        """Give builders a fact about the data instant ``instant_time`` (by ``name``), used when it
        completes (the record index takes the keys each file received and lost)."""
        self._facts.setdefault(instant_time, {})[name] = fact

    def before_complete(
        self, instant: Instant, metadata: CommitMetadata | bytes | None, timeline: Timeline | None = None
    ) -> None:
        """Record the data instant about to complete in the MDT (an MDT instant of the same time);
        ``timeline``: the data timeline the caller has just read (else it is listed when needed)."""
        action = COMPLETES_AS.get(instant.action, instant.action)
        t = instant.requested_time
        facts = self._facts.pop(t, {})
        if isinstance(metadata, CommitMetadata):
            self._delta_commit(t, action.value, facts, lambda b, ctx: b.commit_records(ctx, metadata), timeline)
        elif action is Action.CLEAN and isinstance(metadata, bytes) and metadata:
            clean = decode_clean_metadata(metadata)
            self._delta_commit(t, action.value, facts, lambda b, ctx: b.clean_records(ctx, clean), timeline)
        elif action is Action.ROLLBACK and isinstance(metadata, bytes) and metadata:
            record = read_container(metadata).record
            self._rollback(t, [str(c) for c in record.get("commitsRollback") or ()])
        elif action is Action.RESTORE:
            # A restore removes many instants at once; rebuilding from a listing is simplest and
            # exact. The MDT goes now and the next writer with the MDT enabled builds it again.
            disable_metadata_table(self._storage)

    def discard(self, instant_time: str) -> None:
        """Remove the MDT delta commit of an aborted data write (its files and instant)."""
        self._facts.pop(instant_time, None)
        self._remove_instant(self._writer(), instant_time, self._listings(self._all_partition_dirs()))

    def _writer(self) -> TimelineWriter:
        return mdt_timeline_writer(self._storage, self._config.timeline_timezone)

    def _listings(self, partitions: Sequence[str]) -> dict[str, list[FileInfo]]:
        return {p: self._storage.list(partition_dir(p)) for p in partitions}

    def _mdt_listing(
        self, writer: TimelineWriter, kept: Sequence[PartitionBuilder]
    ) -> tuple[dict[str, list[FileInfo]], list[FileInfo]]:
        """Per kept MDT partition, its files; and the MDT timeline's files: one recursive listing."""
        by_dir: dict[str, list[FileInfo]] = {}
        for info in self._storage.list(METADATA_TABLE_DIR, recursive=True):
            by_dir.setdefault(info.key.rsplit("/", 1)[0], []).append(info)
        listings = {b.partition: by_dir.get(partition_dir(b.partition), []) for b in kept}
        return listings, by_dir.get(writer.timeline_directory.rstrip("/"), [])

    def _all_partition_dirs(self) -> list[str]:
        """Every MDT partition directory on storage (a rollback covers partitions since dropped)."""
        names = [d.rstrip("/").rsplit("/", 1)[-1] for d in self._storage.list_dirs(METADATA_TABLE_DIR)]
        return sorted(n for n in names if n and n != ".hoodie")

    def _data_timeline(self) -> Timeline:
        return Timeline.load(
            self._storage, layout_version=self._config.timeline_layout_version, timeline_path=self._config.timeline_path
        )

    def _delta_commit(
        self,
        instant_time: str,
        action: str,
        facts: dict[str, object],
        records_of: _RecordsOf,
        data_timeline: Timeline | None,
    ) -> None:
        # The partition lists as they are now (under the lock when the writer holds one): an
        # indexer may have started building a partition since this writer opened the table.
        props = load_properties(self._storage)
        config = TableConfig.from_properties(props)
        kept = kept_partitions(config)
        if not kept:
            return  # the MDT was deleted meanwhile: nothing to keep in step
        writer = self._writer()
        # One listing of the whole MDT serves its partitions' file groups, the retry check, the
        # builders' MDT and the completion (nothing else writes the MDT meanwhile: its writers
        # hold the table lock).
        listings, mdt_files = self._mdt_listing(writer, kept)
        mdt_timeline = writer.timeline(mdt_files)
        # A retried instant (a crashed attempt of the same data instant) is undone first, as Java does.
        if self._remove_instant(writer, instant_time, listings, mdt_timeline) or any(
            i.requested_time == instant_time for i in mdt_timeline.instants
        ):
            listings, mdt_files = self._mdt_listing(writer, kept)
            mdt_timeline = writer.timeline(mdt_files)
        counts = {p: file_group_count(p, files) for p, files in listings.items()}
        ctx = InstantContext(
            self._storage,
            config,
            instant_time,
            action,
            facts=facts,
            open_mdt=lambda: MetadataTable.open(self._storage, props, timeline=mdt_timeline, listings=listings),
            file_group_counts=counts,
            data_timeline=(lambda: data_timeline) if data_timeline is not None else self._data_timeline,
            properties=props,
        )
        produced = [(b.partition, records_of(b, ctx)) for b in kept]
        requested = mdt_requested(self._storage, writer, Action.DELTA_COMMIT, instant_time)
        inflight = mdt_inflight(self._storage, writer, requested)
        stats: list[WriteStat] = []
        for partition, records in produced:
            if not records:
                continue
            for index, (upserts, deletes) in sorted(route(records.upserts, records.deletes, counts[partition]).items()):
                stats.append(write_log_file(self._storage, partition, index, instant_time, upserts, deletes))
        # The MDT timeline is not listed again: the listing above, plus the two files created since.
        writer.complete(inflight, mdt_commit_metadata(stats, "UPSERT_PREPPED"), known=mdt_timeline)

    def _remove_instant(
        self,
        writer: TimelineWriter,
        instant_time: str,
        listings: dict[str, list[FileInfo]],
        timeline: Timeline | None = None,
    ) -> dict[str, list[str]]:
        """Delete the MDT log files written at ``instant_time`` and its instant files; per partition,
        the names deleted."""
        deleted: dict[str, list[str]] = {}
        for partition, files in listings.items():
            for info in files:
                if instant_time not in info.name:
                    continue  # not of this instant: no parsing
                name = LogFileName.try_parse(info.name)
                if name is not None and name.instant_time == instant_time:
                    self._storage.delete(info.key)
                    deleted.setdefault(partition, []).append(info.name)
        if self._storage.small_writes_leave_incomplete:  # a log file the dead writer was publishing

            def of_instant(key: str) -> bool:
                name = LogFileName.try_parse(key.rsplit("/", 1)[-1])
                return name is not None and name.instant_time == instant_time

            def instant_file(key: str) -> bool:
                parsed = parse_instant_file_name(key.rsplit("/", 1)[-1], 2)
                return parsed is not None and parsed.instant.requested_time == instant_time

            owners = [(partition_dir(p), of_instant) for p in listings]
            for directory, owned in [*owners, (writer.timeline_directory, instant_file)]:
                for write in self._storage.list_incomplete(directory):
                    if owned(write.target):
                        self._storage.discard_incomplete(write)
        for inst in (timeline or writer.timeline()).instants:
            if inst.requested_time == instant_time:
                writer.delete_instant(inst, allow_completed=True)
        return deleted

    def _rollback(self, rollback_time: str, targets: list[str]) -> None:
        """Roll back the MDT delta commits of ``targets`` at the data rollback's instant time."""
        writer = self._writer()
        instants = writer.timeline().instants
        present = {i.requested_time for i in instants}
        # A data rollback killed and executed again (same instant time) finds its MDT rollback
        # started, or completed (the MDT's part completes first): it goes on from there.
        started = next((i for i in instants if i.requested_time == rollback_time and i.action is Action.ROLLBACK), None)
        if started is not None and started.is_completed:
            return
        if started is not None and self._storage.small_writes_leave_incomplete:
            # The killed attempt may have been publishing the MDT rollback's next instant file.
            for write in self._storage.list_incomplete(writer.timeline_directory):
                parsed = parse_instant_file_name(write.target.rsplit("/", 1)[-1], 2)
                if parsed is not None and parsed.instant.requested_time == rollback_time:
                    self._storage.discard_incomplete(write)
        if started is not None and started.state is State.INFLIGHT:
            inflight = started
        else:
            # Written even when the MDT never had the target (it predates the MDT): readers take the
            # MDT as in step only if it has every file-changing data instant, rollbacks included.
            requested = started or mdt_requested(self._storage, writer, Action.ROLLBACK, rollback_time)
            inflight = writer.transition_to_inflight(requested)
        deleted: dict[str, list[str]] = {}
        listings = self._listings(self._all_partition_dirs()) if any(t in present for t in targets) else {}
        for target in targets:
            if target in present:
                for partition, names in self._remove_instant(writer, target, listings).items():
                    deleted.setdefault(partition, []).extend(names)
        partitions = sorted(deleted) or ["files"]
        record = {
            "startRollbackTime": rollback_time,
            "timeTakenInMillis": 0,
            "totalFilesDeleted": sum(len(n) for n in deleted.values()),
            "commitsRollback": targets,
            "partitionMetadata": {
                p: {
                    "partitionPath": p,
                    "successDeleteFiles": deleted.get(p, []),
                    "failedDeleteFiles": [],
                    "rollbackLogFiles": {},
                    "logFilesFromFailedCommit": {},
                }
                for p in partitions
            },
            "version": 1,
            "instantsRollback": [
                {"commitTime": t, "action": Action.DELTA_COMMIT.value} for t in targets if t in present
            ],
        }
        writer.complete(inflight, write_container(AvroSchemaName.ROLLBACK_METADATA, record))
