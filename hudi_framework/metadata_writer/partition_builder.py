"""How one metadata-table (MDT) partition is kept: the contract every partition builder fulfils.

A :class:`PartitionBuilder` says what its MDT partition holds, as ``HoodieMetadataRecord`` records
(dicts as :func:`hudi_framework.log.hfile_records.encode_hfile_records` takes them, each with its
``key``; many keys sharing a few payloads, such as ``record_index``'s, as one
:class:`~hudi_framework.log.keyed_records.KeyedRecords`, which is routed and encoded column-wise)
and keys to delete:

* at the partition's **init** (:meth:`PartitionBuilder.init_records`), from the data table's
  committed files (:class:`InitContext`), with the partition's file-group count
  (:meth:`PartitionBuilder.file_group_count`), fixed then: later writers count the file groups on
  storage and route keys the same way;
* for every **data instant** that completes (:class:`InstantContext`): a commit, delta commit,
  replace commit or compaction (:meth:`PartitionBuilder.commit_records`) and a clean
  (:meth:`PartitionBuilder.clean_records`);
* at MDT **compaction**: how two records of one key merge (:meth:`PartitionBuilder.combine`) and
  what a merged record becomes in a base file (:meth:`PartitionBuilder.compacted`).

The framework routes records to file groups by key hash, writes one log file per touched file
group per instant, rolls back, compacts and drops partitions; a builder only makes records.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Final

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.discovery import list_table
from hudi_framework.layout.fs_view import FileSystemView
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.archived_timeline import timeline_start
from hudi_framework.timeline.clean_metadata import CleanMetadata
from hudi_framework.timeline.metadata import CommitMetadata
from hudi_framework.timeline.timeline import Timeline

if TYPE_CHECKING:
    from hudi_framework.metadata.reader import MetadataTable

__all__ = [
    "DATA_TIMELINE_FACT",
    "InitContext",
    "InstantContext",
    "MetadataRecord",
    "PartitionBuilder",
    "PartitionRecords",
]

#: The fact naming the data timeline the write path read (a :class:`Timeline`): its commit files
#: read already (the latest schema) need not be read again when the instant completes.
DATA_TIMELINE_FACT: Final = "data_timeline"

#: One ``HoodieMetadataRecord`` as fastavro writes it (``key`` set; other fields by name).
MetadataRecord = dict[str, Any]


@dataclass(frozen=True, slots=True)
class PartitionRecords:
    """What one instant writes to one MDT partition.

    Attributes:
        upserts: Records (an ``HFILE_DATA`` block per touched file group), at most one per key.
        deletes: Keys to delete (a ``DELETE`` block per touched file group).
    """

    upserts: Sequence[MetadataRecord] = ()
    deletes: Sequence[str] = ()

    def __bool__(self) -> bool:
        return bool(self.upserts) or bool(self.deletes)


@dataclass
class InitContext:
    """What a builder gets to build its partition from scratch.

    Attributes:
        storage: The data table's storage.
        config: The data table's config.
        timeline: The data table's timeline (only completed instants' files are recorded).
        options: The writer's MDT options (columns, file-group counts...).
        instant_time: The init instant of the partition.
    """

    storage: StorageBackend
    config: TableConfig
    timeline: Timeline
    options: MetadataWriteOptions
    instant_time: str

    @cached_property
    def view(self) -> FileSystemView:
        """The data table's file-system view from one storage listing (completed instants only)."""
        listed = list_table(self.storage)
        return FileSystemView(
            listed, completed_instants=self.timeline.completed(), table_version=self.config.version,
            timeline_start=timeline_start(self.timeline),
        )  # fmt: skip

    @cached_property
    def partitions(self) -> tuple[str, ...]:
        """Every data partition path the listing found (``""`` for a non-partitioned table)."""
        return tuple(sorted(self.view.partitions))


@dataclass
class InstantContext:
    """What a builder gets for one data instant about to complete.

    Attributes:
        storage: The data table's storage.
        config: The data table's config.
        instant_time: The data instant (and MDT delta commit) time.
        action: The completed action (``commit``, ``deltacommit``, ``replacecommit``, ``clean``...).
        facts: What the write path handed over for this instant, by name (see
            :meth:`~hudi_framework.metadata_writer.sync.MetadataTableSync.hand_over`); empty when the
            instant was completed by a writer that handed nothing (read files back then).
        open_mdt: Opens the MDT as it is before this instant (for builders that aggregate over it).
        file_group_counts: MDT partition -> number of file groups on storage.
        data_timeline: Loads the data table's timeline (this instant still pending on it).
        shared: Scratch space of this instant's builders, called in partition order (the column
            statistics computed for ``column_stats`` are reused by ``partition_stats``).
        properties: The data table's ``hoodie.properties`` as read for this instant (None: read
            them when needed).
    """

    storage: StorageBackend
    config: TableConfig
    instant_time: str
    action: str
    facts: Mapping[str, object] = field(default_factory=dict)
    open_mdt: Callable[[], MetadataTable | None] = field(default=lambda: None)
    file_group_counts: Mapping[str, int] = field(default_factory=dict)
    data_timeline: Callable[[], Timeline] | None = None
    shared: dict[str, object] = field(default_factory=dict)
    properties: Mapping[str, str] | None = None


class PartitionBuilder:
    """Base class of the builders of one MDT partition each; override what the partition needs.

    Builders hold no state: everything they need comes in a context, and what must stay fixed
    across writers (columns, file-group counts) is read back from the table (its index
    definitions, the file groups on storage).
    """

    #: The MDT partition name (``files``, ``column_stats``...).
    partition: str = ""

    def applies_to(self, config: TableConfig) -> bool:
        """Whether the partition exists for this data table (``partition_stats``: partitioned only)."""
        return True

    def file_group_count(self, ctx: InitContext) -> int:
        """How many file groups the partition gets at its init."""
        return 1

    def init_records(self, ctx: InitContext) -> PartitionRecords:
        """The partition's records from the data table's committed files."""
        return PartitionRecords()

    def commit_records(self, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
        """The records of a commit, delta commit, replace commit or compaction."""
        return PartitionRecords()

    def clean_records(self, ctx: InstantContext, clean: CleanMetadata) -> PartitionRecords:
        """The records of a completed clean."""
        return PartitionRecords()

    def after_init(self, ctx: InitContext) -> None:
        """Called once the partition's init completed and is listed (index definitions...)."""

    def after_drop(self, storage: StorageBackend) -> None:
        """Called once the partition was dropped (remove its index definition...)."""

    def combine(self, older: MetadataRecord, newer: MetadataRecord) -> MetadataRecord:
        """Two records of one key, oldest first, as one (default: the newer replaces)."""
        return newer

    def compacted(self, record: MetadataRecord) -> MetadataRecord | None:
        """A merged record as a base file keeps it; None drops it (a tombstone)."""
        return record
