"""The metadata table as the source of key ranges and bloom filters for an index (``hoodie.bloom.index.use.metadata``).

Apache Hudi's bloom index with ``hoodie.bloom.index.use.metadata=true`` takes each candidate
file's min/max record key from the metadata table's ``column_stats`` (when that partition is
available) and its bloom filter from ``bloom_filters`` (when available), so it reads no data-file
footer; only files some key may be in are opened, for the exact check. Here the same holds for any
index whose :attr:`~hudi_framework.contracts.index.RecordIndex.uses_metadata_index` is set, with
one condition more: the metadata table must be in step with the data timeline
(:func:`~hudi_framework.metadata.validate.check_in_sync` for ``files`` and the partition), else the
footers are read, with a logged warning.

Where the metadata table lacks a file (a file group it has no record of), that file falls back to
its footer: Apache Hudi fails the write instead.

:class:`MetadataIndexSource` is picklable (the data table's properties and which partitions are
usable): an engine ships it to executors, which open the metadata table with their own storage.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.index import RECORD_KEY, IndexedFile, LookupTask, RecordIndex
from hudi_framework.errors import HudiError, MetadataTableUnusableError
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.metadata.stat_values import stat_values
from hudi_framework.metadata.validate import check_in_sync

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend
    from hudi_framework.timeline.timeline import Timeline

__all__ = ["MetadataIndexSource", "metadata_index_source"]

_LOG = logging.getLogger(__name__)

#: The first UTF-16 surrogate: keys with characters from here on may sort differently in Java's
#: ``String.compareTo`` (the index's order) and in the byte order Parquet statistics use.
_SURROGATES: Final = "\ud800"


def metadata_index_source(
    index: RecordIndex, storage: StorageBackend, data_properties: Mapping[str, str], data_timeline: Timeline
) -> MetadataIndexSource | None:
    """What ``index`` may take from the table's metadata table, or None (footers then).

    None unless the index :attr:`~RecordIndex.uses_metadata_index`, the table lists its
    ``bloom_filters`` or ``column_stats`` partition, and that partition is in step with
    ``data_timeline``.
    """
    if not index.uses_metadata_index:
        return None
    try:
        mdt = MetadataTable.open(storage, data_properties)
        if mdt is None:
            return None
        usable = []
        for partition in (MetadataPartition.BLOOM_FILTERS, MetadataPartition.COLUMN_STATS):
            if partition in mdt.partitions_available():
                check_in_sync(mdt, data_timeline, partition)
                usable.append(partition)
        if usable:
            check_in_sync(mdt, data_timeline)
    except HudiError as e:
        _LOG.warning("index lookups read footers, not the metadata table of %s: %s", storage.root_uri, e)
        return None
    if not usable:
        return None
    return MetadataIndexSource(
        dict(data_properties),
        bloom_filters=MetadataPartition.BLOOM_FILTERS in usable,
        column_stats=MetadataPartition.COLUMN_STATS in usable,
    )


@dataclass(frozen=True)
class MetadataIndexSource:
    """Which of the metadata table's index partitions an index may use (picklable).

    Attributes:
        data_properties: The data table's ``hoodie.properties`` (which MDT partitions it lists).
        bloom_filters: ``bloom_filters`` is listed and in step.
        column_stats: ``column_stats`` is listed and in step.
    """

    data_properties: Mapping[str, str]
    bloom_filters: bool
    column_stats: bool

    def _open(self, storage: StorageBackend) -> MetadataTable:
        mdt = MetadataTable.open(storage, self.data_properties)
        if mdt is None:
            raise MetadataTableUnusableError("the table no longer has a metadata table")
        return mdt

    def with_key_ranges(self, files: Sequence[IndexedFile], storage: StorageBackend) -> list[IndexedFile]:
        """``files`` with the key range ``column_stats`` holds for each (unchanged where it holds none).

        Apache Hudi takes the range from the record key column's statistics; ``_hoodie_record_key``'s
        are the same values for every key generator, so they are used. A range whose bounds hold a
        UTF-16 surrogate (characters above U+FFFF) is not used: Parquet statistics order bytes,
        the index orders Java strings, and the two orders differ there.
        """
        todo = [f for f in files if not f.has_key_range]
        if not self.column_stats or not todo:
            return list(files)
        try:
            stats = self._open(storage).column_stats([RECORD_KEY])
        except HudiError as e:
            _LOG.warning("key ranges from footers, not the metadata table: %s", e)
            return list(files)
        names = pa.array(sorted({_file_name(f.path) for f in todo}), pa.string())
        stats = stats.filter(pc.is_in(stats.column("file_name"), value_set=names))
        lows = stat_values(stats.column("min_value")).to_pylist() if stats.num_rows else []
        highs = stat_values(stats.column("max_value")).to_pylist() if stats.num_rows else []
        # One row per candidate file (not per key): a short loop.
        partitions = stats.column("partition_path").to_pylist()
        names_of = stats.column("file_name").to_pylist()
        ranges = {
            (partition or "", name): (low, high)
            for partition, name, low, high in zip(partitions, names_of, lows, highs, strict=True)
            if isinstance(low, str) and isinstance(high, str) and max(low + high, default="") < _SURROGATES
        }
        out = []
        for file in files:
            bounds = None if file.has_key_range else ranges.get((file.partition_path, _file_name(file.path)))
            out.append(file.with_key_range(*bounds) if bounds is not None else file)
        return out

    def with_blooms(self, tasks: Sequence[LookupTask], storage: StorageBackend) -> list[LookupTask]:
        """``tasks`` with the bloom filter ``bloom_filters`` holds for each file (unchanged where none).

        Raises:
            MetadataTableUnusableError: A stored filter does not decode.
        """
        if not self.bloom_filters or not tasks:
            return list(tasks)
        wanted = [(t.file.partition_path, _file_name(t.file.path)) for t in tasks if t.bloom is None]
        blooms = self._open(storage).bloom_filters(wanted)
        return [
            t.with_bloom(blooms.get((t.file.partition_path, _file_name(t.file.path)))) if t.bloom is None else t
            for t in tasks
        ]


def _file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]
