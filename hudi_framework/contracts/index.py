"""The record index contract: which file group holds each incoming record key.

An index answers, for a batch of incoming ``(_hoodie_record_key, _hoodie_partition_path)`` pairs,
where each key already lives. The work is split so that one plugin serves every engine:

1. **Plan, on the driver, cheaply.** :meth:`RecordIndex.relevant_files` prunes the latest base
   files by partition; if :attr:`RecordIndex.wants_key_ranges`, the engine fills in each file's
   min/max record key from its footer (``hudi_framework.contracts.indexing.file_lookup.read_key_range``, one
   footer read per file, parallel on Spark); :meth:`RecordIndex.candidate_files` then pairs keys
   with the files that may hold them and returns small, picklable :class:`LookupTask` objects. It
   is a pure function of its arguments, so an engine may also call it per batch of incoming keys and
   merge the tasks of one file (``hudi_framework.index.tasks.merge_lookup_tasks``).
2. **Look up, per file, anywhere.** :meth:`RecordIndex.lookup` opens one base file through the
   storage backend it is given and returns the task's keys that the file holds, with the file's
   location. On Spark it runs in executors (``mapInArrow`` over a DataFrame of tasks).

   An index that sets :attr:`RecordIndex.uses_metadata_index` (Apache Hudi's
   ``hoodie.bloom.index.use.metadata``) gets what the table's metadata table knows instead of
   footers, when the metadata table is in step with the data timeline: key ranges from its
   ``column_stats`` (``_hoodie_record_key``) before planning, and each file's bloom filter from its
   ``bloom_filters`` in :attr:`LookupTask.bloom`, so a lookup whose keys the filter rules out
   never opens the data file.
3. **Tag.** The engine joins the found locations back onto the incoming records with the
   semantics of ``hudi_framework.index.tagging.apply_locations`` (``tag_locations`` runs all
   three steps in-process).

Plugin objects hold only their validated options: never a storage client, table or Spark object.
They are rebuilt from their ``ComponentRef`` wherever they run.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Final, Protocol

import pyarrow as pa

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend

__all__ = [
    "LOCATION_COLUMNS",
    "LOCATION_FILE_ID",
    "LOCATION_INSTANT",
    "LOCATION_PARTITION",
    "LOOKUP_SCHEMA",
    "PARTITION_PATH",
    "RECORD_KEY",
    "IndexedFile",
    "KeyFactsSource",
    "LookupTask",
    "RecordIndex",
]

#: Incoming and stored record key column (Hudi meta column).
RECORD_KEY: Final = "_hoodie_record_key"
#: Incoming partition path column (Hudi meta column); ``""`` for a non-partitioned table.
PARTITION_PATH: Final = "_hoodie_partition_path"
#: Partition of the file group that holds the key; null for a new key.
LOCATION_PARTITION: Final = "_hoodie_location_partition"
#: File id of the file group that holds the key; null for a new key.
LOCATION_FILE_ID: Final = "_hoodie_location_file_id"
#: Instant time of the base file the key was found in (Java's ``HoodieRecordLocation.instantTime``).
LOCATION_INSTANT: Final = "_hoodie_location_instant"
#: The columns tagging appends to incoming records.
LOCATION_COLUMNS: Final = (LOCATION_PARTITION, LOCATION_FILE_ID, LOCATION_INSTANT)
#: What :meth:`RecordIndex.lookup` returns: one row per key found in the task's file.
LOOKUP_SCHEMA: Final = pa.schema(
    [
        pa.field(RECORD_KEY, pa.large_string(), nullable=False),
        pa.field(LOCATION_PARTITION, pa.large_string(), nullable=False),
        pa.field(LOCATION_FILE_ID, pa.large_string(), nullable=False),
        pa.field(LOCATION_INSTANT, pa.large_string(), nullable=False),
    ]
)


@dataclass(frozen=True, slots=True)
class IndexedFile:
    """A latest base file an index may look keys up in: plain strings, cheap to ship to executors.

    Attributes:
        partition_path: The file group's partition path (``""`` when non-partitioned).
        file_id: The file group's id.
        instant_time: Instant time of the base file (the location's instant).
        path: Storage key of the base file, relative to the table base path.
        min_key: Smallest record key (footer ``hoodie_min_record_key``), None if unknown.
        max_key: Largest record key (footer ``hoodie_max_record_key``), None if unknown.
    """

    partition_path: str
    file_id: str
    instant_time: str
    path: str
    min_key: str | None = None
    max_key: str | None = None

    @property
    def has_key_range(self) -> bool:
        """Whether both range bounds are known (only then can a planner prune by range)."""
        return self.min_key is not None and self.max_key is not None

    def with_key_range(self, min_key: str | None, max_key: str | None) -> IndexedFile:
        """A copy with the given range bounds."""
        return replace(self, min_key=min_key, max_key=max_key)


@dataclass(frozen=True, slots=True)
class LookupTask:
    """Look ``keys`` up in one base file; the unit of executor work.

    Attributes:
        file: The base file.
        keys: Distinct candidate record keys (``large_string``, no nulls), or None to return every
            key in the file (an engine that joins on its own, e.g. a global simple index on Spark).
        bloom: The file's bloom filter as the table's metadata table holds it, when the index
            :attr:`~RecordIndex.uses_metadata_index` and the engine found it there; None otherwise
            (the lookup reads the footer's). Attached where the lookup runs, never shipped.
    """

    file: IndexedFile
    keys: pa.LargeStringArray | None
    bloom: BloomFilter | None = field(default=None, compare=False)

    def with_bloom(self, bloom: BloomFilter | None) -> LookupTask:
        """A copy carrying ``bloom``."""
        return replace(self, bloom=bloom)


class KeyFactsSource(Protocol):
    """Where an engine takes key ranges and bloom filters from instead of footers (the metadata
    table, for an index that :attr:`~RecordIndex.uses_metadata_index`). Picklable: engines ship it
    to where lookups run."""

    def with_key_ranges(self, files: Sequence[IndexedFile], storage: StorageBackend) -> list[IndexedFile]:
        """``files``, with the key range the source holds filled in where a file has none."""
        ...

    def with_blooms(self, tasks: Sequence[LookupTask], storage: StorageBackend) -> list[LookupTask]:
        """``tasks``, with :attr:`LookupTask.bloom` set where the source holds the file's filter."""
        ...


class RecordIndex(ABC):
    """Tags incoming record keys with their current file group, for every engine.

    Subclasses hold only their validated options and must be picklable.
    """

    @property
    @abstractmethod
    def is_global(self) -> bool:
        """True if a key is unique across partitions (``GLOBAL_*``), False if only within one."""

    @property
    def update_partition_path(self) -> bool:
        """For a global index, what to do with a key found in another partition than incoming.

        True (Apache Hudi's ``hoodie.*.index.update.partition.path`` default): delete it there and
        insert it in the incoming partition. False: update it in the partition where it is.
        Ignored by non-global indexes.
        """
        return False

    @property
    def wants_key_ranges(self) -> bool:
        """Whether :meth:`candidate_files` prunes by :attr:`IndexedFile.min_key`/``max_key``.

        When True, engines fill the ranges in (from footers) before planning.
        """
        return False

    @property
    def prunes_ranges_in_lookup(self) -> bool:
        """Whether :meth:`lookup` range-checks a file that has no key range from the footer it opens.

        Then an engine may leave the range of a partition's only candidate file unread before
        planning: planning could only drop that one file, which the lookup then does after the same
        footer read, so the file is opened once instead of twice. Non-global indexes only.
        """
        return False

    @property
    def uses_metadata_index(self) -> bool:
        """Whether the engine takes key ranges and bloom filters from the table's metadata table.

        When True and the metadata table is in step with the data timeline, the engine fills
        :attr:`IndexedFile.min_key`/``max_key`` from its ``column_stats`` of ``_hoodie_record_key``
        (when that partition is in step; footers for files it lacks) and attaches each file's
        filter from its ``bloom_filters`` partition to :attr:`LookupTask.bloom`. Otherwise nothing
        changes: ranges and filters come from footers.
        """
        return False

    @property
    def indexes_log_files(self) -> bool:
        """Whether the index finds keys that only a log file holds (Apache Hudi's ``canIndexLogFiles``).

        When True, merge-on-read inserts may go to log files of small file groups (a delta write
        into the latest slice, not a new base file version), as Apache Hudi's delta-commit
        partitioner does for such indexes. The index must then find those keys wherever it looks:
        a keyed index in its map (the writer records each log file's inserted keys there), and its
        file-based fallback in the log files of the latest slices too (the engine reads their keys
        for such an index). False (bloom, simple): inserts always start a base file version.
        """
        return False

    @property
    def bloom_filter_config(self) -> BloomFilterConfig:
        """How the writer sizes the bloom filter in each new base file's footer.

        Apache Hudi writes one whatever the index type; the default is Apache Hudi's defaults.
        """
        return BloomFilterConfig()

    def relevant_files(self, partitions: Collection[str], files: Sequence[IndexedFile]) -> list[IndexedFile]:
        """Files that may hold keys of the incoming ``partitions`` (driver side, no I/O).

        Args:
            partitions: Distinct incoming partition paths.
            files: The latest base file of every file group of the table.

        Returns:
            All files for a global index, else the files of those partitions.
        """
        if self.is_global:
            return list(files)
        wanted = set(partitions)
        return [f for f in files if f.partition_path in wanted]

    @abstractmethod
    def candidate_files(self, incoming: pa.Table, files: Sequence[IndexedFile]) -> list[LookupTask]:
        """Plan the lookups: pair incoming keys with the files that may hold them (no I/O).

        Args:
            incoming: At least ``_hoodie_record_key`` and ``_hoodie_partition_path`` (strings,
                no nulls); duplicates are allowed.
            files: Output of :meth:`relevant_files`, possibly with key ranges filled in.

        Returns:
            At most one task per file, with distinct keys; files that cannot hold any key are
            left out. Deterministic for equal inputs.
        """

    @abstractmethod
    def lookup(self, task: LookupTask, storage: StorageBackend) -> pa.Table:
        """Find which of the task's keys its file holds (executor side).

        Reads only that file: its footer and, when some key may be present, its
        ``_hoodie_record_key`` column.

        Args:
            task: One file and its candidate keys.
            storage: The backend rooted at the table base path.

        Returns:
            A table of :data:`LOOKUP_SCHEMA`, one row per key present in the file (exact: no
            false positives), in no particular order.

        Raises:
            RecordIndexError: The file has no ``_hoodie_record_key`` column (a table written with
                ``hoodie.populate.meta.fields=false``).
        """
