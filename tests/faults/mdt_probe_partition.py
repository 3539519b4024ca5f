"""A test-only MDT partition builder: it exercises the multi-partition framework without depending on
any real index. It keeps ``record_index`` with 4 file groups, one record per data file (key: the file
name, ``fileIdEncoding=1`` and ``fileId`` = the file name), so the project's record-index reader,
which routes keys as Java does, finds each record only if the writer routed it the same way."""

from __future__ import annotations

import pytest

from hudi_framework.metadata.records import MetadataPartition, RecordType
from hudi_framework.metadata_writer import builders
from hudi_framework.metadata_writer.files_partition import FilesBuilder
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.metadata_writer.partition_builder import (
    InitContext,
    InstantContext,
    MetadataRecord,
    PartitionBuilder,
    PartitionRecords,
)
from hudi_framework.timeline.clean_metadata import CleanMetadata
from hudi_framework.timeline.metadata import CommitMetadata

PROBE = MetadataPartition.RECORD_INDEX.value
PROBE_FILE_GROUPS = 4


def probe_record(partition: str, name: str) -> MetadataRecord:
    info = {"partitionName": partition, "fileIdEncoding": 1, "fileId": name, "fileIndex": -1, "instantTime": 0}
    return {"key": name, "type": int(RecordType.RECORD_INDEX), "recordIndexMetadata": info}


class ProbeBuilder(PartitionBuilder):
    partition = PROBE

    def file_group_count(self, ctx: InitContext) -> int:
        return PROBE_FILE_GROUPS

    def init_records(self, ctx: InitContext) -> PartitionRecords:
        names = [
            (s.partition_path, name)
            for p in ctx.partitions
            for s in ctx.view.latest_file_slices(p)
            for name in ([s.base_file_name] if s.base_file_name else []) + list(s.log_file_names)
        ]
        return PartitionRecords([probe_record(p, n) for p, n in names])

    def commit_records(self, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
        records = {}
        for partition, stats in (metadata.partition_to_write_stats or {}).items():
            for stat in stats:
                if stat.path:
                    name = stat.path.rsplit("/", 1)[-1]
                    records[name] = probe_record(partition, name)
        return PartitionRecords(list(records.values()))

    def clean_records(self, ctx: InstantContext, clean: CleanMetadata) -> PartitionRecords:
        return PartitionRecords((), [n for o in clean.partitions.values() for n in o.success_delete_files])


class ProbeSwitch:
    """Turns the probe partition on and off for the writers of a test."""

    def __init__(self) -> None:
        self.on = False


@pytest.fixture
def probe(monkeypatch: pytest.MonkeyPatch) -> ProbeSwitch:
    switch = ProbeSwitch()
    monkeypatch.setattr(builders, "partition_builders", lambda: (FilesBuilder(), ProbeBuilder()))

    def enabled(self: MetadataWriteOptions, partition: str) -> bool:
        return self.enable and (partition == "files" or (partition == PROBE and switch.on))

    monkeypatch.setattr(MetadataWriteOptions, "enabled", enabled)
    return switch
