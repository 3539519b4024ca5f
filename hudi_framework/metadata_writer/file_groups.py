"""The file groups of an MDT partition: which one a key goes to, and writing their files.

Keys are routed as Apache Hudi routes them (``mapRecordKeyToFileGroupIndex``: Java
``String.hashCode`` modulo the number of file groups, over the file groups sorted by id), so readers
find each key where Java would look. The number of file groups is fixed at the partition's init:
later writers count the file groups on storage.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import numpy as np
import pyarrow as pa

from hudi_framework.contracts.reserved_paths import PARTITION_METADATA_FILE
from hudi_framework.contracts.storage import FileInfo, StorageBackend
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.layout.partition_metadata import PartitionMetadata
from hudi_framework.log.blocks import DeleteBlock, HFileBlock, LogBlock
from hudi_framework.log.hfile_records import encode_hfile_base_file
from hudi_framework.log.keyed_records import KeyedRecords
from hudi_framework.log.writer import create_next_log_file
from hudi_framework.metadata.reader import record_index_file_groups
from hudi_framework.metadata.records import METADATA_TABLE_DIR, file_group_id, file_group_prefix
from hudi_framework.metadata_writer.mdt_timeline import WRITE_TOKEN, mdt_write_stat, metadata_record_schema_text
from hudi_framework.metadata_writer.partition_builder import MetadataRecord
from hudi_framework.timeline.metadata import WriteStat

__all__ = [
    "RoutedRecords",
    "file_group_count",
    "partition_dir",
    "route",
    "write_base_file",
    "write_init_logs",
    "write_log_file",
]

_KEY: Final = "key"

#: Per file group index: (records, keys to delete).
RoutedRecords = dict[int, tuple[Sequence[MetadataRecord], list[str]]]


def partition_dir(partition: str) -> str:
    """The storage directory of an MDT partition (relative to the data table's base path)."""
    return f"{METADATA_TABLE_DIR}/{partition}"


def file_group_count(partition: str, listing: Iterable[FileInfo]) -> int:
    """The number of file groups of ``partition`` among the files of its directory ``listing``."""
    prefix = file_group_prefix(partition)
    ids: set[str] = set()
    for info in listing:
        parsed = LogFileName.try_parse(info.name)
        if parsed is not None:
            ids.add(parsed.file_id)
            continue
        base = BaseFileName.try_parse(info.name)
        if base is not None:
            ids.add(base.file_id)
    return len({i for i in ids if i.startswith(prefix)})


def route(records: Sequence[MetadataRecord], deletes: Sequence[str], file_groups: int) -> RoutedRecords:
    """Records and deleted keys by the file group (index) their key hashes to."""
    out: RoutedRecords = {}
    if file_groups <= 1:
        if records or deletes:
            out[0] = (records if isinstance(records, KeyedRecords) else list(records), list(deletes))
        return out
    if isinstance(records, KeyedRecords):
        _route_keyed(records, file_groups, out)
    else:
        routed: dict[int, list[MetadataRecord]] = {}
        for i, record in zip(_indexes([r[_KEY] for r in records], file_groups), records, strict=True):
            routed.setdefault(i, []).append(record)
        out.update((i, (group, [])) for i, group in routed.items())
    for i, key in zip(_indexes(list(deletes), file_groups), deletes, strict=True):
        out.setdefault(i, ([], []))[1].append(key)
    return out


def _route_keyed(records: KeyedRecords, file_groups: int, out: RoutedRecords) -> None:
    """Route records sharing payloads column-wise (one hash pass, one stable sort by file group)."""
    if not len(records):
        return
    groups = np.asarray(record_index_file_groups(records.keys, file_groups), dtype=np.int64)
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.arange(file_groups + 1))
    for i in range(file_groups):
        if bounds[i] < bounds[i + 1]:
            out[i] = (records.take(order[bounds[i] : bounds[i + 1]]), [])


def _indexes(keys: list[str], file_groups: int) -> list[int]:
    if not keys:
        return []
    return [int(i) for i in record_index_file_groups(pa.array(keys, pa.string()), file_groups)]


def write_init_logs(storage: StorageBackend, partition: str, count: int, instant_time: str) -> None:
    """Each file group's init log: one empty DELETE block with only INSTANT_TIME (Java does so)."""
    directory = partition_dir(partition)
    for index in range(count):
        create_next_log_file(
            storage,
            partition_path=directory,
            file_id=file_group_id(partition, index),
            instant_time=instant_time,
            write_token=WRITE_TOKEN,
            blocks=[DeleteBlock.create([], [], instant_time=instant_time)],
            existing=(),
        )
    storage.write(f"{directory}/{PARTITION_METADATA_FILE}", PartitionMetadata(instant_time, 1).to_bytes())


def write_log_file(
    storage: StorageBackend,
    partition: str,
    index: int,
    instant_time: str,
    records: Sequence[MetadataRecord],
    deletes: Sequence[str],
) -> WriteStat:
    """A file group's log file of one instant: an HFILE_DATA block, then a DELETE block if any."""
    schema = metadata_record_schema_text(with_meta_fields=True)
    blocks: list[LogBlock] = []
    if records:
        blocks.append(HFileBlock.create(records, instant_time=instant_time, schema=schema))
    if deletes:
        paths = [partition] * len(deletes)
        blocks.append(DeleteBlock.create(list(deletes), paths, instant_time=instant_time, schema=schema))
    file_id = file_group_id(partition, index)
    written = create_next_log_file(
        storage,
        partition_path=partition_dir(partition),
        file_id=file_id,
        instant_time=instant_time,
        write_token=WRITE_TOKEN,
        blocks=blocks,
        existing=(),
    )
    name = written.key.rsplit("/", 1)[-1]
    return mdt_write_stat(partition, file_id, name, written.size, len(records), base=False)


def write_base_file(
    storage: StorageBackend, partition: str, file_id: str, instant_time: str, records: Sequence[MetadataRecord]
) -> WriteStat:
    """A file group's base HFile at ``instant_time`` (an init or a compaction)."""
    content = encode_hfile_base_file(records, metadata_record_schema_text(with_meta_fields=True))
    name = f"{file_id}_{WRITE_TOKEN}_{instant_time}.hfile"
    storage.write(f"{partition_dir(partition)}/{name}", content)
    return mdt_write_stat(partition, file_id, name, len(content), len(records), base=True)
