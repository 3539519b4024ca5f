"""The metadata table's (MDT) own table: its ``hoodie.properties``, timeline writer, record schema
text, and the write stats and commit metadata of its instants (Apache Hudi 1.x, timeline layout 2)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Final

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.metadata.records import METADATA_TABLE_DIR
from hudi_framework.model.schema import META_FIELDS
from hudi_framework.table.properties import table_checksum
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.metadata import CommitMetadata, WriteStat
from hudi_framework.timeline.naming import instant_file_name
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import TimelineTimezone

__all__ = [
    "INIT_INSTANT",
    "MDT_META_DIR",
    "WRITE_TOKEN",
    "mdt_commit_metadata",
    "mdt_requested",
    "mdt_timeline_writer",
    "mdt_write_stat",
    "metadata_record_schema_text",
    "metadata_table_properties",
]

#: The instant of the ``files`` partition's bootstrap (Java: ``SOLO_COMMIT_TIMESTAMP`` + ``000``);
#: partitions initialised later take the next free ``0000000000000000<n>``.
INIT_INSTANT: Final = "00000000000000000"
#: The MDT's timeline below the data table's ``.hoodie`` (timeline helpers are rooted there).
_MDT_TIMELINE_PATH: Final = "metadata/.hoodie/timeline"
MDT_META_DIR: Final = f"{METADATA_TABLE_DIR}/.hoodie"
#: Java's ``HoodieLogFormat.DEFAULT_WRITE_TOKEN``: the token of init logs and of our single-task writes.
WRITE_TOKEN: Final = "0-0-0"


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


def mdt_write_stat(partition: str, file_id: str, name: str, size: int, records: int, *, base: bool) -> WriteStat:
    """The write stat of one file of an MDT file group (a base HFile or a log file)."""
    return WriteStat(
        file_id=file_id,
        path=f"{partition}/{name}",
        prev_commit="null",
        num_writes=records,
        num_deletes=0,
        num_update_writes=0,
        num_inserts=records if base else 0,
        total_write_bytes=size,
        total_write_errors=0,
        partition_path=partition,
        file_size_in_bytes=size,
        base_file="" if not base else name,
        log_files=[] if base else [name],
    )


def mdt_commit_metadata(stats: Sequence[WriteStat], operation: str, *, compacted: bool = False) -> CommitMetadata:
    """Commit metadata of an MDT instant writing ``stats`` (grouped by their MDT partition)."""
    per_partition: dict[str, list[WriteStat]] = {}
    for stat in stats:
        per_partition.setdefault(stat.partition_path or "", []).append(stat)
    return CommitMetadata(
        partition_to_write_stats=per_partition,
        compacted=compacted,
        extra_metadata={"schema": metadata_record_schema_text(with_meta_fields=False)},
        operation_type=operation,
    )


def mdt_requested(storage: StorageBackend, writer: TimelineWriter, action: Action, instant_time: str) -> Instant:
    """Request an MDT instant at a given time, which may be older than the MDT's newest: a data
    instant's (a compaction or clean planned before a write completes after it) or an init
    instant, as on Apache Hudi's MDT."""
    requested = Instant(instant_time, action, State.REQUESTED)
    storage.put_if_absent(f"{writer.timeline_directory}/{instant_file_name(requested, 2)}", b"")
    return requested


def mdt_inflight(storage: StorageBackend, writer: TimelineWriter, requested: Instant) -> Instant:
    """Move an MDT instant this writer has just requested to inflight, without listing the MDT's
    timeline again (its writers hold the data table's lock)."""
    inflight = Instant(requested.requested_time, requested.action, State.INFLIGHT)
    storage.put_if_absent(f"{writer.timeline_directory}/{instant_file_name(inflight, 2)}", b"")
    return inflight
