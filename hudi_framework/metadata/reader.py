"""Reading Apache Hudi's metadata table (MDT): the file listing, column statistics, bloom filters and
the record-level index kept under ``.hoodie/metadata``.

The MDT is a merge-on-read table of its own (its timeline under ``.hoodie/metadata/.hoodie/``,
layout 2 on table versions 8 and 9). Each MDT partition has one or more file groups; a file group's
latest slice is an HFile base file plus log files of ``HFILE_DATA`` and ``DELETE`` blocks. The reader
takes the latest slice of every file group with the project's file-system view (so only committed
MDT delta commits count, sliced by completion time) and keeps only blocks of completed MDT instants
(rollback command blocks drop the blocks they target).

Records of one key are merged as Java's ``HoodieMetadataPayload`` does, in slice order (base file,
then log blocks in file order):

* ``files``: the file sizes of a partition are a union: an addition keeps the larger size, a
  deletion drops the file (later additions bring it back); the same rule for the partition list
  (``__all_partitions__``);
* ``column_stats``: a tombstone (``isDeleted``) replaces the record; two live records of one key
  (a v6 log file appended twice) merge: smaller minimum, larger maximum, summed counts and sizes;
* ``record_index`` and ``bloom_filters``: the newer record replaces the older; a DELETE block
  entry or ``isDeleted`` removes it.

Everything is Arrow: records are decoded per HFile (base file or block) and merged with vectorised
kernels. A partition's HFiles are decoded whole (cell by cell, by :mod:`hudi_framework.log.hfile_records`),
except by :meth:`MetadataTable.record_index`: it reads only the file groups the keys hash to, as Java
routes them, and decodes only the records of the keys it looks up.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter
from hudi_framework.contracts.storage import FileInfo, StorageBackend
from hudi_framework.errors import BloomFilterFormatError, HudiError, MetadataTableUnusableError, StorageNotFoundError
from hudi_framework.layout.file_group import FileGroup, FileGroupId, FileSlice
from hudi_framework.layout.fs_view import FileSystemView
from hudi_framework.log.blocks import CommandBlock, CorruptBlock, DeleteBlock, HeaderKey, HFileBlock
from hudi_framework.log.hfile_records import hfile_decoder, hfile_records_schema, hfile_schema_text
from hudi_framework.log.reader import read_log_bytes
from hudi_framework.metadata.cell_batches import SEQ_COLUMN, HFileCells, decode_cells, tag_records
from hudi_framework.metadata.keys import (
    ALL_PARTITIONS_KEY,
    COLUMN_ID_WIDTH,
    PARTITION_ID_WIDTH,
    bloom_filter_key,
    column_id,
    partition_id,
    partition_path_of,
    partition_stats_key,
)
from hudi_framework.metadata.newest_stats import newest_log_slices, settled
from hudi_framework.metadata.record_key_routing import record_index_file_group, record_index_file_groups
from hudi_framework.metadata.records import (
    METADATA_TABLE_DIR,
    TABLE_METADATA_PARTITIONS_KEY,
    MetadataPartition,
    file_group_id,
    metadata_record_schema,
)
from hudi_framework.table.properties import parse_properties
from hudi_framework.timeline.archived_timeline import timeline_start
from hudi_framework.timeline.timeline import Timeline

__all__ = [
    "COLUMN_STATS_COLUMNS",
    "RECORD_INDEX_SCHEMA",
    "MetadataTable",
    "record_index_file_group",
    "record_index_file_groups",
]

_PROPERTIES_KEY: Final = f"{METADATA_TABLE_DIR}/.hoodie/hoodie.properties"
_SEQ: Final = SEQ_COLUMN
#: Threads of one record-index lookup (one file group each at a time).
_LOOKUP_THREADS: Final = min(8, os.cpu_count() or 1)
#: ``HoodieRecordIndexInfo.fileIndex`` of a file id without a ``-<n>`` suffix.
_MISSING_FILE_INDEX: Final = -1
# Up to this many wanted data partitions, stats are read by (column, partition) key prefix; more
# would make the prefix list itself the cost, so then every partition of the columns is read.
_MAX_PARTITION_PREFIXES: Final = 256
#: ``HoodieRecordIndexInfo.fileIdEncoding``: 0 = UUID bits + file index, 1 = the file id as a string.
_FILE_ID_ENCODING_RAW: Final = 1

#: The columns of :meth:`MetadataTable.column_stats` (one row per file and column), in order.
COLUMN_STATS_COLUMNS: Final = (
    "partition_path",
    "file_name",
    "column_name",
    "min_value",
    "max_value",
    "null_count",
    "value_count",
    "total_size",
    "total_uncompressed_size",
    "is_deleted",
    "is_tight_bound",
    "value_type",
    "value_type_info",
)

#: The shape of :meth:`MetadataTable.record_index`.
RECORD_INDEX_SCHEMA: Final = pa.schema(
    [
        pa.field("record_key", pa.string(), nullable=False),
        pa.field("partition_path", pa.string()),
        pa.field("file_id", pa.string()),
        pa.field("instant_time_millis", pa.int64()),
        pa.field("position", pa.int64()),
    ]
)


@dataclass(frozen=True, slots=True)
class _Records:
    """The surviving records of a set of file groups: rows in slice order, with block sequence."""

    rows: pa.Table
    deleted: pa.Table  # key, _seq


class MetadataTable:
    """One snapshot of a table's metadata table. Build it with :meth:`open`."""

    def __init__(
        self,
        storage: StorageBackend,
        *,
        properties: Mapping[str, str],
        timeline: Timeline,
        table_partitions: Sequence[str],
        listings: Mapping[str, Sequence[FileInfo]] | None = None,
    ) -> None:
        """Wrap an opened MDT; prefer :meth:`open`."""
        self._storage = storage
        self._listings = dict(listings or {})
        self._properties = dict(properties)
        self._timeline = timeline
        self._table_partitions = tuple(table_partitions)
        self._version = int(properties.get("hoodie.table.version", "0"))

    @classmethod
    def open(
        cls,
        storage: StorageBackend,
        data_properties: Mapping[str, str],
        *,
        timeline: Timeline | None = None,
        listings: Mapping[str, Sequence[FileInfo]] | None = None,
    ) -> MetadataTable | None:
        """Open the MDT of the table rooted at ``storage``; None when the table has none.

        Args:
            storage: The data table's storage backend.
            data_properties: The data table's ``hoodie.properties`` (which MDT partitions are usable).
            timeline: The MDT's timeline when the caller has just listed it (under the table lock).
            listings: MDT partition -> its listing, when the caller has just listed it.

        Raises:
            MetadataTableUnusableError: The MDT exists but this reader cannot use it (its
                properties do not parse, or it uses timeline layout 1).
        """
        try:
            properties = parse_properties(storage.read(_PROPERTIES_KEY))
        except StorageNotFoundError:
            return None
        except HudiError as e:
            raise MetadataTableUnusableError(f"its hoodie.properties does not read: {e}") from e
        layout = int(properties.get("hoodie.timeline.layout.version", "1") or "1")
        if layout < 2:
            raise MetadataTableUnusableError("its timeline uses layout 1 (table version 6), which is not read")
        timeline_path = properties.get("hoodie.timeline.path", "timeline") or "timeline"
        # The data table's ".hoodie" is the timeline helper's root: the MDT's timeline lies below it.
        path = f"metadata/.hoodie/{timeline_path}"
        if timeline is None or timeline.timeline_path != path or timeline.layout_version != 2:
            timeline = Timeline.load(storage, layout_version=2, timeline_path=path)
        listed = [p for p in data_properties.get(TABLE_METADATA_PARTITIONS_KEY, "").split(",") if p.strip()]
        return cls(storage, properties=properties, timeline=timeline, table_partitions=listed, listings=listings)

    # ----------------------------------------------------------------- facts
    @property
    def timeline(self) -> Timeline:
        """The MDT's own timeline."""
        return self._timeline

    @property
    def properties(self) -> Mapping[str, str]:
        """The MDT's ``hoodie.properties``."""
        return MappingProxyType(self._properties)

    @property
    def table_version(self) -> int:
        """The MDT's ``hoodie.table.version``."""
        return self._version

    def partitions_available(self) -> list[str]:
        """MDT partitions the data table lists as complete (``hoodie.table.metadata.partitions``)."""
        return sorted(self._table_partitions)

    def completed_instants(self) -> frozenset[str]:
        """Requested times of the MDT's completed delta commits and compactions."""
        return frozenset(i.requested_time for i in self._timeline.completed())

    def _require(self, partition: str) -> None:
        if partition not in self._table_partitions:
            raise MetadataTableUnusableError(
                f"partition {partition!r} is not listed in {TABLE_METADATA_PARTITIONS_KEY} "
                f"({', '.join(self._table_partitions) or 'none'})"
            )

    # ----------------------------------------------------------------- slices
    def file_slices(self, partition: str) -> list[FileSlice]:
        """The latest committed slice of every file group of an MDT partition, by file group id.

        Keys of the slices are relative to ``.hoodie/metadata``.
        """
        return self._view(partition).latest_file_slices(partition)

    def file_groups(self, partition: str) -> list[FileGroup]:
        """Every file group of an MDT partition with all its committed slices (oldest first), by id.

        Keys of the slices are relative to ``.hoodie/metadata``.
        """
        return self._view(partition).all_file_groups(partition)

    def _view(self, partition: str) -> FileSystemView:
        known = self._listings.get(partition)
        listing = list(known) if known is not None else self._storage.list(f"{METADATA_TABLE_DIR}/{partition}")
        pending: dict[FileGroupId, str] = {}
        for inst, plan in self._timeline.pending_compaction_plans().items():
            for op in plan.get("operations") or ():
                pending[FileGroupId(op.get("partitionPath") or "", op["fileId"])] = inst.requested_time
        return FileSystemView(
            {partition: listing},
            completed_instants=self._timeline.completed(),
            table_version=max(self._version, 8),
            pending_compactions=pending,
            timeline_start=timeline_start(self._timeline),
            base_file_extensions=("hfile",),
        )

    def _read_slices(
        self,
        slices: Sequence[FileSlice],
        columns: Sequence[str],
        keys: Sequence[pa.Array] | None = None,
        *,
        prefixes: Sequence[str] | None = None,
    ) -> _Records:
        """Decode the committed records of ``slices``, each tagged with its block sequence number.

        With ``keys`` (per slice, distinct strings), only the records and deletions of those keys
        in each slice: other records are not decoded (a keyed lookup in large file groups). With
        ``prefixes`` (equal lengths), only the records and deletions of keys starting with one.
        """
        raw_prefixes = None if prefixes is None else [p.encode("utf-8") for p in prefixes]
        completed = self.completed_instants()
        start = self._timeline.instants[0].requested_time if self._timeline.instants else None
        tables: list[HFileCells | pa.Table] = []  # cells to decode together, or rows a keyed lookup decoded
        deleted: list[pa.Table] = []
        seq = 0
        # Every file of the slices in one batch: object stores read them concurrently.
        files = [k for s in slices for k in ([s.base_file_key] if s.base_file_key else []) + s.log_file_keys]
        contents = dict(zip(files, self._read_many(files), strict=True))
        for i, file_slice in enumerate(slices):
            slice_keys = None if keys is None else keys[i]
            if file_slice.base_file_key is not None:
                base_key = file_slice.base_file_key
                tables.append(self._cells(contents[base_key], None, columns, base_key, slice_keys, raw_prefixes, seq))
                seq += 1
            # Blocks of the slice, in order: (instant, rows or deleted keys) until a rollback drops them.
            blocks: list[tuple[str, pa.Table | HFileCells, bool]] = []
            for log_key in file_slice.log_file_keys:
                full = f"{METADATA_TABLE_DIR}/{log_key}"
                for block in read_log_bytes(contents[log_key], path=full):
                    if isinstance(block, CorruptBlock):
                        raise MetadataTableUnusableError(f"log file {full!r} has a corrupt block: {block.reason}")
                    instant = block.header.get(HeaderKey.INSTANT_TIME)
                    if isinstance(block, CommandBlock):
                        target = block.target_instant_time
                        blocks = [b for b in blocks if b[0] != target]
                        continue
                    if instant is None or not (instant in completed or (start is not None and instant < start)):
                        continue
                    if isinstance(block, HFileBlock):
                        schema = block.header.get(HeaderKey.SCHEMA)
                        records = self._cells(block.content, schema, columns, full, slice_keys, raw_prefixes, seq)
                        blocks.append((instant, records, False))
                    elif isinstance(block, DeleteBlock):
                        gone = block.columns.record_keys.cast(pa.string())
                        if slice_keys is not None:
                            gone = gone.filter(pc.is_in(gone, value_set=slice_keys))
                        elif prefixes is not None and len(gone):
                            width = len(prefixes[0]) if prefixes else 0
                            heads = pc.utf8_slice_codeunits(gone, 0, width)
                            gone = gone.filter(pc.is_in(heads, value_set=pa.array(prefixes, pa.string())))
                        deletes = pa.table({"key": gone, _SEQ: pa.array(np.full(len(gone), seq))})
                        blocks.append((instant, deletes, True))
                    seq += 1
            tables += [t for _, t, is_delete in blocks if not is_delete]
            deleted += [t for _, t, is_delete in blocks if is_delete and isinstance(t, pa.Table)]
        empty_deleted = pa.table({"key": pa.array([], pa.string()), _SEQ: pa.array([], pa.int64())})
        decoded = decode_cells([t for t in tables if isinstance(t, HFileCells)], columns)
        decoded += [t for t in tables if isinstance(t, pa.Table)]
        rows = pa.concat_tables(decoded, promote_options="permissive") if decoded else None
        if rows is None:
            full_schema = hfile_records_schema(metadata_record_schema())
            rows = pa.table(
                {c: pa.array([], full_schema.field(c).type) for c in columns} | {_SEQ: pa.array([], pa.int64())}
            )
        return _Records(rows, pa.concat_tables([empty_deleted, *deleted]))

    def _cells(
        self,
        content: bytes,
        schema: str | None,
        columns: Sequence[str],
        where: str,
        keys: pa.Array | None,
        prefixes: Sequence[bytes] | None,
        seq: int,
    ) -> HFileCells | pa.Table:
        """The cells of one HFile to decode (keys starting with one of ``prefixes``, when given),
        with the decoder of its writer schema (kept per schema); with ``keys`` (distinct strings),
        only their records, found and decoded as arrays and tagged with ``seq``."""
        try:
            text = schema if schema is not None else hfile_schema_text(content)
            decoder = hfile_decoder(text, tuple(columns))
            if keys is not None:
                return tag_records(decoder.decode_rows(content, keys), columns, seq)
            return HFileCells(decoder, decoder.cells(content, None, prefixes=prefixes), seq, where)
        except HudiError as e:
            raise MetadataTableUnusableError(f"{where!r} does not decode: {e}") from e

    def _read_many(self, keys: Sequence[str]) -> list[bytes]:
        try:
            return self._storage.read_many([f"{METADATA_TABLE_DIR}/{key}" for key in keys])
        except StorageNotFoundError as e:
            raise MetadataTableUnusableError(f"a file of the metadata table is listed but cannot be read: {e}") from e

    # ----------------------------------------------------------------- files
    @cached_property
    def _file_listing(self) -> tuple[tuple[str, ...], dict[str, dict[str, int]]]:
        self._require(MetadataPartition.FILES)
        slices = self.file_slices(MetadataPartition.FILES)
        if not slices:
            raise MetadataTableUnusableError("the files partition has no committed file slice")
        records = self._read_slices(slices, ["key", "type", "filesystemMetadata"])
        merged = _merge_file_lists(records.rows)
        partitions = tuple(sorted(merged.pop(ALL_PARTITIONS_KEY, {})))
        listing = {partition_path_of(p): merged.get(p, {}) for p in partitions}
        return tuple(partition_path_of(p) for p in partitions), listing

    def all_partitions(self) -> list[str]:
        """The data table's partition paths (``""`` for a non-partitioned table), sorted.

        Raises:
            MetadataTableUnusableError: ``files`` is not a usable MDT partition.
        """
        return list(self._file_listing[0])

    def files(self, partition_paths: Iterable[str] | None = None) -> dict[str, dict[str, int]]:
        """Partition path -> file name -> size, for ``partition_paths`` (default: every partition).

        The files are every data file the MDT records, committed or not: the caller's file-system
        view drops files of instants the data timeline has not completed, as it does for a listing.
        Partitions the MDT does not know are absent from the result.

        Raises:
            MetadataTableUnusableError: ``files`` is not a usable MDT partition.
        """
        listing = self._file_listing[1]
        wanted = listing.keys() if partition_paths is None else [p for p in partition_paths if p in listing]
        return {p: dict(listing[p]) for p in wanted}

    # ----------------------------------------------------------------- column stats
    def column_stats(self, columns: Iterable[str] | None = None, partitions: Sequence[str] | None = None) -> pa.Table:
        """File-level column statistics, one row per (file, column), deleted entries dropped
        (``partitions``: as in :meth:`partition_stats`).

        The table has the columns of :data:`COLUMN_STATS_COLUMNS`: ``partition_path`` (``""`` for a
        non-partitioned table; resolved from the key's partition id against the ``files`` listing,
        null when no listed partition hashes to it), ``file_name``, ``column_name``, ``min_value`` and
        ``max_value`` (the stored Avro union as a struct with one ``member<i>`` per wrapper type;
        :func:`~hudi_framework.metadata.stat_values.stat_values` turns one column's into plain
        values), ``null_count``, ``value_count``, ``total_size``, ``total_uncompressed_size``,
        ``is_deleted`` (always false here), ``is_tight_bound``, ``value_type`` and
        ``value_type_info`` (Hudi's value type ordinal and its parameters, ``"precision,scale"`` for
        decimals).

        Args:
            columns: Only these data columns (by name); None for all.
            partitions: With ``columns``, only the files of these data partitions (paths); None for all.

        Raises:
            MetadataTableUnusableError: ``column_stats`` is not a usable MDT partition.
        """
        return self._stats(MetadataPartition.COLUMN_STATS, columns, partitions)

    def partition_stats(
        self, columns: Iterable[str] | None = None, partitions: Sequence[str] | None = None
    ) -> pa.Table:
        """Partition-level column statistics, one row per (partition, column): the shape of
        :meth:`column_stats`, ``file_name`` holding the partition path. With ``partitions``, only
        theirs (the ``files`` partition is not read; see
        :mod:`~hudi_framework.metadata.newest_stats`).

        Raises:
            MetadataTableUnusableError: ``partition_stats`` is not a usable MDT partition.
        """
        return self._stats(MetadataPartition.PARTITION_STATS, columns, partitions)

    def _stats(self, partition: str, columns: Iterable[str] | None, known: Sequence[str] | None = None) -> pa.Table:
        self._require(partition)
        # Both partitions' keys start with the column's id, then the data partition's: only the
        # wanted columns' (and partitions') records are read.
        wanted = None if columns is None else sorted({column_id(c) for c in columns})
        if wanted is not None and known is not None and len(known) <= _MAX_PARTITION_PREFIXES:
            ids = {partition_id(p) for p in known}
            wanted = sorted(c + p for c in wanted for p in ids)
        slices, fields, rows, keys = self.file_slices(partition), ["key", "ColumnStatsMetadata"], None, None
        if known is not None and columns is not None and partition == MetadataPartition.PARTITION_STATS:
            keys = pa.array(sorted({partition_stats_key(c, p) for c in columns for p in known}), pa.string())
            newest = newest_log_slices(slices)
            rows = None if newest is None else self._read_slices(newest, fields, prefixes=wanted).rows
            rows = rows if rows is not None and settled(rows, keys) else None
        if rows is None:
            rows = self._read_slices(slices, fields, prefixes=wanted).rows
        if keys is not None:
            rows = rows.filter(pc.is_in(rows.column("key"), value_set=keys))
        stats = pc.struct_field(rows.column("ColumnStatsMetadata"), "columnName")
        if columns is not None:
            mask = pc.is_in(stats, value_set=pa.array(list(columns), pa.string()))
            rows = rows.filter(mask)
        merged = _merge_column_stats(rows)
        return self._stats_table(merged, known)

    def _stats_table(self, rows: pa.Table, known_partitions: Sequence[str] | None = None) -> pa.Table:
        meta = rows.column("ColumnStatsMetadata").combine_chunks()
        keys = rows.column("key").combine_chunks()
        part_ids = pc.utf8_slice_codeunits(keys, COLUMN_ID_WIDTH, COLUMN_ID_WIDTH + PARTITION_ID_WIDTH)
        try:
            known = list(known_partitions) if known_partitions is not None else self.all_partitions()
        except MetadataTableUnusableError:
            known = []
        lookup = pa.table({"id": [partition_id(p) for p in known], "partition_path": pa.array(known, pa.string())})
        idx = pc.index_in(part_ids, value_set=lookup.column("id"))
        partition = pc.take(lookup.column("partition_path"), idx)
        value_type = meta.field("valueType") if "valueType" in [f.name for f in meta.type] else None
        n = len(rows)
        return pa.table(
            {
                "partition_path": partition,
                "file_name": meta.field("fileName"),
                "column_name": meta.field("columnName"),
                "min_value": meta.field("minValue"),
                "max_value": meta.field("maxValue"),
                "null_count": meta.field("nullCount"),
                "value_count": meta.field("valueCount"),
                "total_size": meta.field("totalSize"),
                "total_uncompressed_size": meta.field("totalUncompressedSize"),
                "is_deleted": meta.field("isDeleted"),
                "is_tight_bound": _field_or_null(meta, "isTightBound", pa.bool_(), n),
                "value_type": value_type.field("typeOrdinal") if value_type is not None else pa.nulls(n, pa.int32()),
                "value_type_info": (
                    value_type.field("additionalInfo") if value_type is not None else pa.nulls(n, pa.string())
                ),
            }
        )

    # ----------------------------------------------------------------- bloom filters
    def bloom_filter(self, partition_path: str, file_name: str) -> BloomFilter | None:
        """The bloom filter of a base file's record keys, or None when the MDT holds none.

        Raises:
            MetadataTableUnusableError: ``bloom_filters`` is not a usable MDT partition, or the
                stored filter does not decode.
        """
        return self.bloom_filters([(partition_path, file_name)]).get((partition_path, file_name))

    def bloom_filters(self, files: Sequence[tuple[str, str]]) -> dict[tuple[str, str], BloomFilter]:
        """The bloom filters of base files ``(partition path, file name)`` the MDT holds (others absent).

        Only the file groups the files' keys route to are read (Java routes every MDT partition's
        keys as the record index's), each decoded whole.

        Raises:
            MetadataTableUnusableError: ``bloom_filters`` is not a usable MDT partition, or a
                stored filter does not decode.
        """
        self._require(MetadataPartition.BLOOM_FILTERS)
        if not files:
            return {}
        by_key = {bloom_filter_key(p, name): (p, name) for p, name in files}
        wanted = pa.array(list(by_key), pa.string())
        slices = self._routed_slices(MetadataPartition.BLOOM_FILTERS, wanted)
        records = self._read_slices(slices, ["key", "BloomFilterMetadata"])
        latest = _latest_per_key(records, wanted)
        out: dict[tuple[str, str], BloomFilter] = {}
        # One entry per candidate base file (not per record of data): a short loop.
        for key, stored in zip(
            latest.column("key").to_pylist(), latest.column("BloomFilterMetadata").to_pylist(), strict=True
        ):
            if stored is None or stored["isDeleted"]:
                continue
            out[by_key[key]] = _decode_bloom(stored, by_key[key])
        return out

    def _routed_slices(self, partition: str, keys: pa.Array) -> list[FileSlice]:
        """The latest slices of the file groups ``keys`` route to (Java's key-to-file-group hash).

        When the partition's file groups are not exactly ``<prefix>0000-0`` onwards, the hash
        cannot be applied: every slice is returned.
        """
        slices = self.file_slices(partition)
        expected = [file_group_id(partition, i) for i in range(len(slices))]
        if not slices or [s.file_id for s in slices] != expected:
            return slices
        groups = np.unique(record_index_file_groups(keys.unique().drop_null(), len(slices)))
        return [slices[int(i)] for i in groups]

    # ----------------------------------------------------------------- record index
    def record_index_slices(self) -> list[FileSlice]:
        """The latest slice of every ``record_index`` file group, in file group order.

        Raises:
            MetadataTableUnusableError: ``record_index`` is not a usable MDT partition, or a file
                group is missing (keys are routed by the number of file groups).
        """
        self._require(MetadataPartition.RECORD_INDEX)
        slices = self.file_slices(MetadataPartition.RECORD_INDEX)
        expected = [file_group_id(MetadataPartition.RECORD_INDEX, i) for i in range(len(slices))]
        if [s.file_id for s in slices] != expected:
            raise MetadataTableUnusableError(
                f"record_index file groups {[s.file_id for s in slices]} are not {expected[0]}..{expected[-1]}"
            )
        return slices

    def record_index(self, keys: pa.Array | Sequence[str], slices: Sequence[FileSlice] | None = None) -> pa.Table:
        """Where each of ``keys`` lives, per the record-level index (:data:`RECORD_INDEX_SCHEMA`).

        Keys the index does not hold (never written, or deleted) are absent. ``file_id`` is the data
        file group id (UUID and ``-<n>`` suffix, or the stored string); ``instant_time_millis`` is
        the stored epoch milliseconds of the write's instant; ``position`` the row position when the
        writer stored one.

        Only the file groups the keys hash to are read, and in them only the records of ``keys``
        are decoded (the other cells are stepped over).

        Args:
            keys: The record keys to look up.
            slices: :meth:`record_index_slices`, when the caller already has them.

        Raises:
            MetadataTableUnusableError: ``record_index`` is not a usable MDT partition.
        """
        wanted = pa.array(keys, pa.string()) if not isinstance(keys, pa.Array) else keys.cast(pa.string())
        if slices is None:
            slices = self.record_index_slices()
        if not slices or len(wanted) == 0:
            return RECORD_INDEX_SCHEMA.empty_table()
        distinct = wanted.unique().drop_null()
        of_key = record_index_file_groups(distinct, len(slices))
        groups = np.unique(of_key)
        chosen = [slices[int(i)] for i in groups]
        per_group = [distinct.filter(pa.array(of_key == i)) for i in groups]
        columns = ["key", "recordIndexMetadata"]
        # File groups hold disjoint keys: each is read and searched on its own, in threads (the
        # reads, decompression and the block scans release the GIL).
        with ThreadPoolExecutor(max_workers=max(1, min(len(chosen), _LOOKUP_THREADS))) as pool:
            parts = list(pool.map(lambda s, k: self._read_slices([s], columns, [k]), chosen, per_group))
        records = _Records(
            pa.concat_tables([p.rows for p in parts], promote_options="permissive"),
            pa.concat_tables([p.deleted for p in parts]),
        )
        latest = _latest_per_key(records)  # the lookups decoded only the records of ``distinct``
        info = latest.column("recordIndexMetadata").combine_chunks()
        return pa.table(
            {
                "record_key": latest.column("key").combine_chunks(),
                "partition_path": info.field("partitionName"),
                "file_id": _file_ids(info),
                "instant_time_millis": info.field("instantTime"),
                "position": _field_or_null(info, "position", pa.int64(), len(info)),
            },
            schema=RECORD_INDEX_SCHEMA,
        )


def _decode_bloom(stored: Mapping[str, Any], file: tuple[str, str]) -> BloomFilter:
    """A stored ``HoodieMetadataBloomFilter`` as a filter.

    Raises:
        MetadataTableUnusableError: It does not decode.
    """
    data: bytes = stored["bloomFilter"]
    try:
        # Java stores serializeToString()'s bytes (base64 text); raw filter bytes are taken too.
        try:
            return BloomFilter.deserialize(data, stored["type"])
        except BloomFilterFormatError:
            return BloomFilter.from_bytes(data, stored["type"])
    except (BloomFilterFormatError, ValueError) as e:
        raise MetadataTableUnusableError(f"the bloom filter of {file[0]}/{file[1]} does not decode: {e}") from e


def _field_or_null(struct: pa.StructArray, name: str, type_: pa.DataType, n: int) -> pa.Array:
    names = [f.name for f in struct.type]
    return struct.field(name) if name in names else pa.nulls(n, type_)


def _merge_file_lists(rows: pa.Table) -> dict[str, dict[str, int]]:
    """Java's file-list merge: per (key, file), additions after the last deletion, largest size."""
    if rows.num_rows == 0:
        return {}
    meta = rows.column("filesystemMetadata").combine_chunks()
    keys = rows.column("key").combine_chunks()
    seqs = rows.column(_SEQ).combine_chunks()
    present = pc.fill_null(pc.invert(pc.is_null(meta)), False)
    meta = meta.filter(present)
    keys = keys.filter(present)
    seqs = seqs.filter(present)
    offsets = meta.offsets.to_numpy()
    start, stop = int(offsets[0]), int(offsets[-1])
    parents = pa.array(np.repeat(np.arange(len(meta), dtype=np.int64), np.diff(offsets)))
    items = meta.items.slice(start, stop - start)
    flat = pa.table(
        {
            "key": pc.take(keys, parents),
            "name": meta.keys.slice(start, stop - start),
            "size": items.field("size"),
            "deleted": items.field("isDeleted"),
            _SEQ: pc.take(seqs, parents),
        }
    )
    deleted = flat.column("deleted")
    if pc.any(deleted).as_py():
        deletions = flat.filter(deleted).group_by(["key", "name"]).aggregate([(_SEQ, "max")])
        additions = flat.filter(pc.invert(deleted))
        joined = additions.join(deletions, ["key", "name"], join_type="left outer")
        last_delete = pc.fill_null(joined.column(f"{_SEQ}_max"), -1)
        alive = joined.filter(pc.greater(joined.column(_SEQ), last_delete))
    else:
        alive = flat  # nothing deleted: every addition stands (the common case of appends only)
    sizes = alive.group_by(["key", "name"]).aggregate([("size", "max")])
    out: dict[str, dict[str, int]] = {}
    for key, name, size in zip(
        sizes.column("key").to_pylist(),
        sizes.column("name").to_pylist(),
        sizes.column("size_max").to_pylist(),
        strict=True,
    ):  # one entry per file of the table, not per record of a data file
        out.setdefault(key, {})[name] = size
    # A partition whose files were all deleted keeps an (empty) entry, as Java returns no files for it.
    for key in set(keys.to_pylist()) - set(out):
        out[key] = {}
    return out


def _latest_per_key(records: _Records, wanted: pa.Array | None = None) -> pa.Table:
    """The newest record of each key, unless a DELETE entry at a later (or the same) block removes it."""
    rows = records.rows
    if wanted is not None:
        rows = rows.filter(pc.is_in(rows.column("key"), value_set=wanted))
    if rows.num_rows == 0:
        return rows
    if not records.deleted.num_rows and pc.count_distinct(rows.column("key")).as_py() == rows.num_rows:
        return rows  # one record per key and no deletions (a lookup in unchanged file groups): nothing to merge
    # Joins carry no struct columns: decide on (key, seq, row number), then take the rows.
    index = pa.table(
        {"key": rows.column("key"), _SEQ: rows.column(_SEQ), "_row": np.arange(rows.num_rows, dtype=np.int64)}
    )
    ordered = index.take(pc.sort_indices(index, sort_keys=[("key", "ascending"), (_SEQ, "descending")]))
    key_col = ordered.column("key").combine_chunks()
    first = np.ones(len(key_col), dtype=bool)
    if len(key_col) > 1:
        first[1:] = pc.not_equal(key_col.slice(1), key_col.slice(0, len(key_col) - 1)).to_numpy(zero_copy_only=False)
    latest = ordered.filter(pa.array(first))
    if records.deleted.num_rows:
        last_delete = records.deleted.group_by("key").aggregate([(_SEQ, "max")])
        joined = latest.join(last_delete, "key", join_type="left outer")
        latest = joined.filter(pc.greater(joined.column(_SEQ), pc.fill_null(joined.column(f"{_SEQ}_max"), -1)))
    kept = latest.column("_row").combine_chunks()
    return rows.take(kept.take(pc.sort_indices(kept)))


def _merge_column_stats(rows: pa.Table) -> pa.Table:
    """Java's column-stats merge per key: tombstones replace, live records after one merge."""
    if rows.num_rows == 0:
        return rows
    latest = _latest_per_key(
        _Records(rows, pa.table({"key": pa.array([], pa.string()), _SEQ: pa.array([], pa.int64())}))
    )
    deleted_flags = pc.fill_null(pc.struct_field(latest.column("ColumnStatsMetadata"), "isDeleted"), False)
    live = latest.filter(pc.invert(deleted_flags))
    if latest.num_rows == rows.num_rows:
        return live  # one record per key: nothing to merge
    # A key whose latest record is a tombstone or tight (partition statistics) needs no merge: that
    # record replaces the older ones. The others with several records (appended v6 log files) are
    # merged in Python, their rows taken in one pass.
    meta = latest.column("ColumnStatsMetadata").combine_chunks()
    tight = pc.fill_null(_field_or_null(meta, "isTightBound", pa.bool_(), latest.num_rows), False)
    open_keys = latest.filter(pc.invert(pc.or_(tight, deleted_flags.combine_chunks()))).column("key")
    counts = rows.group_by("key").aggregate([("key", "count")])
    multi = counts.filter(pc.greater(counts.column("key_count"), 1)).column("key")
    multi = multi.filter(pc.is_in(multi, value_set=open_keys))
    single = live.filter(pc.invert(pc.is_in(live.column("key"), value_set=multi)))
    grouped = rows.filter(pc.is_in(rows.column("key"), value_set=multi)).sort_by(
        [("key", "ascending"), (_SEQ, "ascending")]
    )
    merged_rows = [
        _merge_stats_group(list(group)) for _, group in itertools.groupby(grouped.to_pylist(), key=lambda r: r["key"])
    ]
    kept = [r for r in merged_rows if r is not None]
    if not kept:
        return single
    return pa.concat_tables([single, pa.Table.from_pylist(kept, schema=single.schema)])


def _merge_stats_group(group: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Java ``mergeColumnStatsRecords`` over one key's records, oldest first; None if deleted."""
    current: dict[str, Any] | None = None
    for row in group:
        stats: dict[str, Any] = row["ColumnStatsMetadata"]
        if current is None or stats["isDeleted"] or current["ColumnStatsMetadata"]["isDeleted"]:
            current = row  # a tombstone replaces, and a record after a tombstone starts afresh
            continue
        if stats.get("isTightBound"):
            current = row  # a tight record (partition statistics) holds the whole state: it replaces
            continue
        prev: dict[str, Any] = current["ColumnStatsMetadata"]
        merged = dict(stats)
        merged["minValue"] = _bound(prev["minValue"], stats["minValue"], smaller=True)
        merged["maxValue"] = _bound(prev["maxValue"], stats["maxValue"], smaller=False)
        for name in ("valueCount", "nullCount", "totalSize", "totalUncompressedSize"):
            merged[name] = (prev[name] or 0) + (stats[name] or 0)
        current = dict(row, ColumnStatsMetadata=merged)
    if current is None or current["ColumnStatsMetadata"]["isDeleted"]:
        return None
    return current


def _bound(a: dict[str, Any] | None, b: dict[str, Any] | None, *, smaller: bool) -> dict[str, Any] | None:
    """The smaller (or larger) of two wrapped statistics, comparing the wrapped values; nulls lose."""
    va, vb = _unwrap(a), _unwrap(b)
    if va is None:
        return b
    if vb is None:
        return a
    if type(va) is not type(vb):
        return b  # stored in another value type (Apache Hudi's records of a changed column): the newer counts
    return a if (va <= vb) == smaller else b


def _unwrap(wrapped: dict[str, Any] | None) -> Any:
    if wrapped is None:
        return None
    for member in wrapped.values():
        if isinstance(member, dict):
            return member.get("value")
    return None


def _file_ids(info: pa.StructArray) -> pa.Array:
    """Data file group ids of record-index entries (UUID from the two halves, ``-<index>`` suffix)."""
    n = len(info)
    high = pc.fill_null(info.field("fileIdHighBits"), 0).to_numpy(zero_copy_only=False).astype(">i8")
    low = pc.fill_null(info.field("fileIdLowBits"), 0).to_numpy(zero_copy_only=False).astype(">i8")
    raw = np.empty((n, 16), dtype=np.uint8)
    raw[:, :8] = high.view(np.uint8).reshape(n, 8)
    raw[:, 8:] = low.view(np.uint8).reshape(n, 8)
    hexchars = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    digits = np.empty((n, 32), dtype=np.uint8)
    digits[:, 0::2] = hexchars[raw >> 4]
    digits[:, 1::2] = hexchars[raw & 0x0F]
    dash = np.full((n, 1), ord("-"), dtype=np.uint8)
    text = np.hstack(
        [digits[:, :8], dash, digits[:, 8:12], dash, digits[:, 12:16], dash, digits[:, 16:20], dash, digits[:, 20:]]
    )
    uuid_offsets = pa.py_buffer(np.arange(0, 36 * (n + 1), 36, dtype=np.int32))
    uuids = pa.Array.from_buffers(pa.string(), n, [None, uuid_offsets, pa.py_buffer(np.ascontiguousarray(text))])
    index = info.field("fileIndex")
    suffixed = pc.binary_join_element_wise(uuids, pc.cast(index, pa.string()), "-")
    with_index = pc.if_else(pc.equal(pc.fill_null(index, _MISSING_FILE_INDEX), _MISSING_FILE_INDEX), uuids, suffixed)
    names = [f.name for f in info.type]
    if "fileIdEncoding" in names and "fileId" in names:
        raw_ids = pc.equal(pc.fill_null(info.field("fileIdEncoding"), 0), _FILE_ID_ENCODING_RAW)
        return pc.if_else(raw_ids, info.field("fileId"), with_index)
    return with_index
