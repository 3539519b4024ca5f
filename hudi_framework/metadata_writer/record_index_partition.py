"""The MDT ``record_index`` partition: record key -> the data file group holding it (Apache Hudi's
global record-level index).

Records (type 5, ``HoodieRecordIndexInfo``), as Java writes them:

* init: every key of the latest base file of every file group, and every key of the data blocks
  of its latest slice's log files (inserts an index that finds keys in log files put there; Java
  reads the merged slices), located there, with the slice's instant (fact sheet 1.5); the
  file-group count is Java's ``estimateFileGroupCount`` over
  the keys counted in the base files' footers (minimum 10, maximum 10000 by default);
* a commit, delta commit or replace commit: the keys each written file's group gained and lost,
  as the local write path hands them over (:mod:`~hudi_framework.metadata.key_changes`); for a
  file it does not name (Spark writes), the written base file's keys are read back: a new file
  group's keys are inserts, a rewritten base file's inserts are the keys its previous base file
  lacked and its deletes the keys it lost (not read when its write stat counts no insert and no
  delete); a log file's DELETE blocks are deletes (read only when its stat counts deletes) and the
  keys of its data blocks that its slice lacked before it inserts (read only when its stat counts
  inserts); a replace commit also deletes the keys of the replaced file groups that it did not
  rewrite (base and log files). A key both deleted and
  inserted (a move) is an insert. Compactions write nothing (the keys stay where they are);
* cleans write nothing.

Keys are read from ``_hoodie_record_key``: tables without meta fields get no ``record_index``.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import MetadataTableUnusableError
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.log.blocks import DataBlock, DeleteBlock
from hudi_framework.log.keyed_records import KeyedRecords
from hudi_framework.log.reader import read_log_bytes
from hudi_framework.metadata.key_changes import RECORD_INDEX_FACT, KeyChanges
from hudi_framework.metadata.records import MetadataPartition, RecordType
from hudi_framework.metadata_writer.partition_builder import (
    InitContext,
    InstantContext,
    PartitionBuilder,
    PartitionRecords,
)
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.instant_time import instant_time_to_epoch_ms
from hudi_framework.timeline.metadata import CommitMetadata, ReplaceCommitMetadata, WriteStat
from hudi_framework.vocabulary import TimelineTimezone

__all__ = [
    "MAX_FILE_GROUPS_KEY",
    "MIN_FILE_GROUPS_KEY",
    "RecordIndexBuilder",
    "estimate_file_group_count",
]

MIN_FILE_GROUPS_KEY: Final = "hoodie.metadata.record.index.min.filegroup.count"
MAX_FILE_GROUPS_KEY: Final = "hoodie.metadata.record.index.max.filegroup.count"
_MIN_FILE_GROUPS: Final = 10
_MAX_FILE_GROUPS: Final = 10_000
#: Java's ``hoodie.metadata.record.index.growth.factor`` and ``...max.filegroup.size`` defaults, and
#: its ``RECORD_INDEX_AVERAGE_RECORD_SIZE``.
_GROWTH: Final = 2.0
_MAX_FILE_GROUP_BYTES: Final = 1 << 30
_RECORD_BYTES: Final = 48
_KEY: Final = "_hoodie_record_key"
_NO_FILE_INDEX: Final = -1
#: Partition -> its file keys, listed once per commit.
_Listings = dict[str, list[str]]


def estimate_file_group_count(records: int, minimum: int, maximum: int) -> int:
    """Java ``estimateFileGroupCount`` for the record index: grow for ``records`` keys, clamped."""
    if minimum == maximum and minimum > 0:
        return minimum
    per_group = _MAX_FILE_GROUP_BYTES // _RECORD_BYTES
    wanted = math.ceil(records * _GROWTH) // per_group
    return maximum if wanted >= maximum else minimum if wanted <= minimum else int(wanted)


def _location(partition: str, file_id: str, instant_millis: int) -> dict[str, object]:
    """``HoodieRecordIndexInfo`` of a file group: UUID bits and ``-<n>`` index (encoding 0), or the
    raw id (encoding 1) when the id is not a UUID."""
    try:
        parsed = uuid.UUID(file_id[:36])
        suffix = file_id[36:]
        index = _NO_FILE_INDEX if not suffix else int(suffix[1:]) if suffix.startswith("-") else None
    except ValueError:
        parsed, index = None, None
    if parsed is None or index is None:
        return {
            "partitionName": partition, "fileIdHighBits": -1, "fileIdLowBits": -1, "fileIndex": -1,
            "fileId": file_id, "instantTime": instant_millis, "fileIdEncoding": 1, "position": None,
        }  # fmt: skip
    raw = parsed.bytes
    return {
        "partitionName": partition,
        "fileIdHighBits": int.from_bytes(raw[:8], "big", signed=True),
        "fileIdLowBits": int.from_bytes(raw[8:], "big", signed=True),
        "fileIndex": index,
        "fileId": "",
        "instantTime": instant_millis,
        "fileIdEncoding": 0,
        "position": None,
    }


def _payload(location: Mapping[str, object]) -> dict[str, object]:
    """The non-key fields of the records of keys at ``location`` (shared by all of them)."""
    return {"type": int(RecordType.RECORD_INDEX), "recordIndexMetadata": location}


def _base_keys(storage: StorageBackend, key: str) -> pa.Array:
    """The record keys of a Parquet base file (nulls dropped)."""
    with storage.open_input(key) as f:
        parquet = pq.ParquetFile(f)
        if _KEY not in parquet.schema_arrow.names:
            raise MetadataTableUnusableError(f"{key!r} has no {_KEY} column: the record index needs meta fields")
        column = parquet.read(columns=[_KEY]).column(0).combine_chunks()
    return column.drop_null().cast(pa.string())


def _log_keys(storage: StorageBackend, key: str) -> tuple[pa.Array, pa.Array]:
    """The keys of the data blocks and of the DELETE blocks of a log file."""
    written: list[pa.Array] = []
    deleted: list[pa.Array] = []
    for block in read_log_bytes(storage.read(key), path=key):
        if isinstance(block, DeleteBlock):
            deleted.append(block.columns.record_keys.cast(pa.string()))
        elif isinstance(block, DataBlock) and (keys := block.record_keys) is not None:
            written.append(keys.combine_chunks().cast(pa.string()))
    empty = pa.array([], pa.string())
    return (
        pa.concat_arrays(written).drop_null() if written else empty,
        pa.concat_arrays(deleted).drop_null() if deleted else empty,
    )


class RecordIndexBuilder(PartitionBuilder):
    """Builds ``record_index`` (``record-index-NNNN-0`` file groups)."""

    partition = MetadataPartition.RECORD_INDEX.value

    def applies_to(self, config: TableConfig) -> bool:
        """Tables with meta fields: the keys are read from ``_hoodie_record_key``."""
        return config.populate_meta_fields

    def file_group_count(self, ctx: InitContext) -> int:
        minimum = ctx.options.integer(MIN_FILE_GROUPS_KEY, _MIN_FILE_GROUPS)
        maximum = ctx.options.integer(MAX_FILE_GROUPS_KEY, _MAX_FILE_GROUPS)
        rows = 0  # from the footers: the keys themselves are read by init_records
        for key in self._base_file_keys(ctx):
            with ctx.storage.open_input(key) as f:
                rows += pq.ParquetFile(f).metadata.num_rows
        return estimate_file_group_count(rows, minimum, maximum)

    def init_records(self, ctx: InitContext) -> PartitionRecords:
        timezone = TimelineTimezone(ctx.config.timeline_timezone)
        groups: list[tuple[pa.Array, Mapping[str, object]]] = []
        for partition in ctx.partitions:
            for file_slice in ctx.view.latest_file_slices(partition):
                keys = [_log_keys(ctx.storage, log)[0] for log in file_slice.log_file_keys]
                if file_slice.base_file_key is not None:
                    keys.insert(0, _base_keys(ctx.storage, file_slice.base_file_key))
                if not keys:
                    continue
                millis = instant_time_to_epoch_ms(file_slice.base_instant_time, timezone)
                location = _location(partition, file_slice.file_id, millis)
                groups.append((pc.unique(pa.concat_arrays(keys)), _payload(location)))
        # A key in two file groups (a broken table) keeps the last one, as the list of dicts did.
        return PartitionRecords(KeyedRecords.from_groups(groups).last_per_key())

    def _base_file_keys(self, ctx: InitContext) -> list[str]:
        return [
            s.base_file_key
            for p in ctx.partitions
            for s in ctx.view.latest_file_slices(p)
            if s.base_file_key is not None
        ]

    def commit_records(self, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
        if (metadata.operation_type or "").lower() == "compact" or metadata.compacted:
            return PartitionRecords()
        millis = instant_time_to_epoch_ms(ctx.instant_time, TimelineTimezone(ctx.config.timeline_timezone))
        inserts: list[tuple[pa.Array, Mapping[str, object]]] = []
        deleted: list[pa.Array] = []
        listings: dict[str, list[str]] = {}
        handed = ctx.facts.get(RECORD_INDEX_FACT)
        known: KeyChanges = handed if isinstance(handed, Mapping) else {}
        for stats in (metadata.partition_to_write_stats or {}).values():
            for stat in stats:
                if not stat.path or stat.file_id is None:
                    continue
                partition = stat.partition_path or ""
                change = known.get(stat.path)
                if change is not None:  # the write path said what the file changed: nothing to read
                    location = _location(partition, stat.file_id, millis)
                    inserts.append((change.inserted.drop_null().cast(pa.string()), _payload(location)))
                    deleted.append(change.deleted.drop_null().cast(pa.string()))
                    continue
                if ".log." in stat.path.rsplit("/", 1)[-1]:
                    # The stat says whether the log has inserts or deletes: else skip reading it.
                    if stat.num_deletes != 0 or (stat.num_inserts or 0) > 0:
                        written, gone = _log_keys(ctx.storage, stat.path)
                        deleted.append(gone)
                        if stat.num_inserts:  # the keys its file group lacked before
                            log = LogFileName.parse(stat.path.rsplit("/", 1)[-1])
                            position = (log.instant_time, log.version)
                            held = self._keys_before(ctx.storage, partition, stat.file_id, position, listings)
                            location = _location(partition, stat.file_id, millis)
                            inserts.append(
                                (written.filter(pc.invert(pc.is_in(written, value_set=held))), _payload(location))
                            )
                    continue
                previous = self._previous_base(ctx.storage, stat, listings)
                if previous is not None and stat.num_inserts == 0 and stat.num_deletes == 0:
                    continue  # a rewrite that neither gained nor lost a key (updates only)
                new = _base_keys(ctx.storage, stat.path)
                old = _base_keys(ctx.storage, previous) if previous is not None else pa.array([], pa.string())
                location = _location(partition, stat.file_id, millis)
                inserts.append((new.filter(pc.invert(pc.is_in(new, value_set=old))), _payload(location)))
                deleted.append(old.filter(pc.invert(pc.is_in(old, value_set=new))))
        replaced = metadata.replaced_file_ids() if isinstance(metadata, ReplaceCommitMetadata) else []
        for partition, file_id in replaced:  # its keys as of before this instant, logs included
            deleted.append(self._keys_before(ctx.storage, partition, file_id, (ctx.instant_time, 0), listings))
        # A later file's insert of a key replaces an earlier one's; a key deleted in one file and
        # inserted in another moved: the insert is its location.
        upserts = KeyedRecords.from_groups(inserts).last_per_key()
        gone = pa.concat_arrays(deleted) if deleted else pa.array([], pa.string())
        gone = pc.unique(gone.filter(pc.invert(pc.is_in(gone, value_set=upserts.keys))))
        return PartitionRecords(upserts, sorted(gone.to_pylist()))

    @staticmethod
    def _listing(storage: StorageBackend, partition: str, listings: _Listings) -> list[str]:
        if partition not in listings:
            listings[partition] = [i.key for i in storage.list(partition)]
        return listings[partition]

    def _keys_before(
        self, storage: StorageBackend, partition: str, file_id: str, before: tuple[str, int], listings: _Listings
    ) -> pa.Array:
        """The keys a file group held before position ``before`` (instant time, log version): those
        of its newest base file before it and of its later log files before it (data blocks; deleted
        keys included: a key deleted and written again is no new key to the record index, which
        kept it)."""
        bases: list[tuple[str, str]] = []
        logs: list[tuple[str, str]] = []
        for key in self._listing(storage, partition, listings):
            file_name = key.rsplit("/", 1)[-1]
            base = BaseFileName.try_parse(file_name)
            if base is not None and base.file_id == file_id and (base.instant_time, 0) < before:
                bases.append((base.instant_time, key))
            log = LogFileName.try_parse(file_name) if base is None else None
            if log is not None and log.file_id == file_id and (log.instant_time, log.version) < before:
                logs.append((log.instant_time, key))
        newest = max(bases) if bases else None
        floor = newest[0] if newest is not None else ""
        keys = [_log_keys(storage, key)[0] for instant, key in logs if instant >= floor]
        if newest is not None:
            keys.append(_base_keys(storage, newest[1]))
        return pa.concat_arrays(keys) if keys else pa.array([], pa.string())

    def _previous_base(self, storage: StorageBackend, stat: WriteStat, listings: dict[str, list[str]]) -> str | None:
        """The base file a rewritten base file replaces (same file group, instant ``prevCommit``)."""
        if stat.prev_commit in (None, "", "null") or stat.file_id is None:
            return None
        for key in self._listing(storage, stat.partition_path or "", listings):
            parsed = BaseFileName.try_parse(key.rsplit("/", 1)[-1])
            if parsed is not None and parsed.file_id == stat.file_id and parsed.instant_time == stat.prev_commit:
                return key
        return None
