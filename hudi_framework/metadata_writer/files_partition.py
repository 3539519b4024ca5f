"""The MDT ``files`` partition: the data table's partitions and their files with sizes.

Records (Java ``convertMetadataToFilesPartitionRecords`` and the bootstrap listing):

* init: ``__all_partitions__`` listing every partition, and per partition with files its file
  names and sizes, from a storage listing of committed files;
* a commit: the partitions written, and per partition every file written with its size (the
  largest when several stats name it). Replaced files stay until cleaned;
* a clean: every deleted file as ``{size: 0, isDeleted: true}``; a deleted partition leaves
  ``__all_partitions__`` and its key is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from hudi_framework.metadata.keys import ALL_PARTITIONS_KEY, files_key, partition_identifier
from hudi_framework.metadata.records import MetadataPartition, RecordType
from hudi_framework.metadata.validate import committed_files
from hudi_framework.metadata_writer.partition_builder import (
    InitContext,
    InstantContext,
    MetadataRecord,
    PartitionBuilder,
    PartitionRecords,
)
from hudi_framework.timeline.clean_metadata import CleanMetadata
from hudi_framework.timeline.metadata import CommitMetadata, WriteStat

__all__ = ["FilesBuilder", "listing_records"]

_FILESYSTEM: Final = "filesystemMetadata"


def _file_info(size: int, *, deleted: bool = False) -> dict[str, Any]:
    return {"size": size, "isDeleted": deleted}


def _record(key: str, kind: RecordType, files: Mapping[str, dict[str, Any]] | None) -> MetadataRecord:
    return {"key": key, "type": int(kind), _FILESYSTEM: dict(files) if files is not None else None}


def listing_records(files: Mapping[str, Mapping[str, int]]) -> list[MetadataRecord]:
    """The ``files`` records of a whole listing (partition -> file name -> size): ``__all_partitions__``
    and one file list per partition that has files."""
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


def _written_name(stat: WriteStat) -> str | None:
    if not stat.path:
        return None
    return stat.path.rsplit("/", 1)[-1]


class FilesBuilder(PartitionBuilder):
    """Builds the ``files`` partition (one file group, ``files-0000-0``)."""

    partition = MetadataPartition.FILES.value

    def init_records(self, ctx: InitContext) -> PartitionRecords:
        per_partition: dict[str, dict[str, int]] = {p: {} for p in ctx.partitions}
        for key, size in committed_files(ctx.view).items():
            partition, _, name = key.rpartition("/")
            per_partition.setdefault(partition, {})[name] = int(size or 0)
        return PartitionRecords(listing_records(per_partition))

    def commit_records(self, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
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
        return PartitionRecords(records)

    def clean_records(self, ctx: InstantContext, clean: CleanMetadata) -> PartitionRecords:
        records: list[MetadataRecord] = []
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
        return PartitionRecords(records, [files_key(p) for p in deleted_partitions])

    def combine(self, older: MetadataRecord, newer: MetadataRecord) -> MetadataRecord:
        """Java's file-list merge: a deletion drops the file, an addition keeps the larger size."""
        merged: dict[str, dict[str, Any]] = dict(older.get(_FILESYSTEM) or {})
        for name, info in (newer.get(_FILESYSTEM) or {}).items():
            previous = merged.get(name)
            if info["isDeleted"] or previous is None or previous["isDeleted"]:
                merged[name] = dict(info)
            else:
                merged[name] = _file_info(max(int(previous["size"]), int(info["size"])))
        return {**newer, _FILESYSTEM: merged}

    def compacted(self, record: MetadataRecord) -> MetadataRecord | None:
        """A base file holds no deletion marks: the slice it starts has nothing older to delete."""
        files = record.get(_FILESYSTEM) or {}
        return {**record, _FILESYSTEM: {n: i for n, i in files.items() if not i["isDeleted"]}}
