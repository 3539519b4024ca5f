"""Whether a table's metadata table (MDT) may serve its file listing, and how it compares with storage.

The MDT is usable for a data timeline only if

* ``hoodie.table.metadata.partitions`` lists the MDT partition asked for, and
* every completed data-table instant that changes files (commit, delta commit, replace commit,
  clean, rollback, restore) and completed after the MDT began is also a completed MDT delta commit
  with the same instant time. Instants completed before the MDT's first active instant were
  bootstrapped from a listing (or compacted into its base files).

Anything else is out of sync: readers list storage instead (:func:`check_in_sync` raises and the
caller falls back).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from hudi_framework.contracts.storage import FileInfo
from hudi_framework.errors import MetadataTableUnusableError
from hudi_framework.layout.discovery import list_table
from hudi_framework.layout.file_group import FileGroupId
from hudi_framework.layout.fs_view import FileSystemView
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.timeline.archived_timeline import timeline_start
from hudi_framework.timeline.instant import COMPLETES_AS, Action

if TYPE_CHECKING:
    from collections.abc import Mapping

    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.timeline.timeline import Timeline

__all__ = ["FilesReport", "check_in_sync", "committed_files", "files_view", "validate_files"]

#: Data-table actions whose completion the MDT records (as a delta commit of the same instant time).
FILE_CHANGING_ACTIONS: Final = frozenset(
    {Action.COMMIT, Action.DELTA_COMMIT, Action.REPLACE_COMMIT, Action.CLEAN, Action.ROLLBACK, Action.RESTORE}
)


def check_in_sync(mdt: MetadataTable, data_timeline: Timeline, partition: str = MetadataPartition.FILES) -> None:
    """Raise unless the MDT partition is listed and the MDT has every data instant it must have.

    Raises:
        MetadataTableUnusableError: Naming the missing partition or the first data instant the MDT
            lacks.
    """
    if partition not in mdt.partitions_available():
        raise MetadataTableUnusableError(f"hoodie.table.metadata.partitions does not list {partition!r}")
    mdt_completed = mdt.timeline.completed()
    if not mdt_completed:
        raise MetadataTableUnusableError("the metadata table has no completed instant")
    first = mdt_completed[0]
    began = first.completion_time or first.requested_time
    have = mdt.completed_instants()
    for inst in data_timeline.completed():
        if COMPLETES_AS.get(inst.action, inst.action) not in FILE_CHANGING_ACTIONS:
            continue
        completed_at = inst.completion_time or inst.requested_time
        if completed_at > began and inst.requested_time not in have:
            raise MetadataTableUnusableError(
                f"out of sync: data instant {inst.requested_time} ({inst.action}) is not a completed "
                "metadata-table delta commit"
            )


def files_view(mdt: MetadataTable, partitions: list[str] | None = None) -> dict[str, list[FileInfo]]:
    """The MDT's ``files`` listing as :class:`FileInfo` per partition, ready for a file-system view.

    Modification times are unknown to the MDT; the epoch stands in (file-system views do not use them).
    """
    epoch = dt.datetime.fromtimestamp(0, dt.UTC)
    out: dict[str, list[FileInfo]] = {}
    for partition, files in mdt.files(partitions).items():
        out[partition] = [FileInfo(FileGroupId(partition, "").key(n), s, epoch) for n, s in files.items()]
    return out


@dataclass(frozen=True, slots=True)
class FilesReport:
    """The ``files`` partition against a storage listing (committed files of every slice).

    Attributes:
        missing: Storage keys of committed files storage has but the MDT does not list.
        extra: Storage keys of committed files the MDT lists but storage lacks.
        size_mismatch: Storage key -> (size in the MDT, size in storage).
        partitions_missing: Partitions storage has that the MDT does not list.
        partitions_extra: Partitions the MDT lists that storage lacks.
    """

    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    size_mismatch: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    partitions_missing: tuple[str, ...] = ()
    partitions_extra: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """No difference at all."""
        return not (
            self.missing or self.extra or self.size_mismatch or self.partitions_missing or self.partitions_extra
        )


def committed_files(view: FileSystemView) -> dict[str, int | None]:
    """Storage key -> size of every file in every slice of ``view`` (replaced groups included)."""
    out: dict[str, int | None] = {}
    for group in view.all_file_groups(include_replaced=True):
        for file_slice in group.slices:
            if file_slice.base_file is not None and file_slice.base_file_key is not None:
                out[file_slice.base_file_key] = file_slice.base_file.size
            for log, key in zip(file_slice.log_files, file_slice.log_file_keys, strict=True):
                out[key] = log.size
    return out


def validate_files(storage: StorageBackend, data_timeline: Timeline, data_properties: Mapping[str, str]) -> FilesReport:
    """Compare the MDT ``files`` partition with a storage listing of the table.

    Only committed files count (files of uncommitted or failed writes are dropped from both sides
    the way the file-system view drops them).

    Raises:
        MetadataTableUnusableError: The table has no MDT or its ``files`` partition cannot be read.
    """
    mdt = MetadataTable.open(storage, data_properties)
    if mdt is None:
        raise MetadataTableUnusableError("the table has no metadata table")
    version = int(data_properties.get("hoodie.table.version", "6"))
    completed = data_timeline.completed()
    listed = list_table(storage)
    # Files of archived commits count as committed in both listings, as readers count them.
    start = timeline_start(data_timeline)
    from_storage = committed_files(
        FileSystemView(listed, completed_instants=completed, table_version=version, timeline_start=start)
    )
    from_mdt = committed_files(
        FileSystemView(files_view(mdt), completed_instants=completed, table_version=version, timeline_start=start)
    )
    mismatch = {
        k: (int(from_mdt[k] or 0), int(from_storage[k] or 0))
        for k in from_storage.keys() & from_mdt.keys()
        if from_mdt[k] != from_storage[k]
    }
    mdt_partitions = set(mdt.all_partitions())
    # A partition a failed write created holds no committed file: the MDT records a partition only
    # when a completed instant writes to it (Apache Hudi's validator ignores such partitions too).
    committed_in = {k.rsplit("/", 1)[0] if "/" in k else "" for k in from_storage}
    disk_partitions = {p for p in listed.partitions if p in committed_in or p in mdt_partitions}
    return FilesReport(
        missing=tuple(sorted(from_storage.keys() - from_mdt.keys())),
        extra=tuple(sorted(from_mdt.keys() - from_storage.keys())),
        size_mismatch=mismatch,
        partitions_missing=tuple(sorted(disk_partitions - mdt_partitions)),
        partitions_extra=tuple(sorted(mdt_partitions - disk_partitions)),
    )
