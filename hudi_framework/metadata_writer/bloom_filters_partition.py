"""The MDT ``bloom_filters`` partition: the record-key bloom filter of every base file.

Records (Java ``convertFilesToBloomFilterRecords`` / ``convertMetadataToBloomFilterRecords``), one
``HoodieMetadataBloomFilter`` per base file keyed ``partition id + file id`` (type 4):

* init: every committed base file, ``timestamp`` the latest completed data instant
  (``00000000000000`` on a table without one);
* a commit, delta commit, replace commit or compaction: every base file it wrote (log writes leave
  the filters as they are), ``timestamp`` the instant;
* a clean: every base file it was to delete, ``{type: "", bloomFilter: b"", isDeleted: true}``.

``bloomFilter`` holds the UTF-8 bytes of the footer's serialised filter, the very text Java's
``serializeToString()`` gives. ``type`` is the filter's type as its footer says (``DYNAMIC_V0`` or
``SIMPLE``): Java writes its writer's ``hoodie.bloom.index.filter.type``, the same value for every
file that writer wrote. A base file without a filter in its footer gets no record (Java logs and
skips it too). Four file groups (``hoodie.metadata.index.bloom.filter.file.group.count``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Final

from hudi_framework.contracts.data_files import open_parquet
from hudi_framework.contracts.indexing.bloom_filter import BloomFilterType
from hudi_framework.contracts.indexing.footer import (
    BLOOM_FILTER_KEY,
    BLOOM_FILTER_TYPE_CODE_KEY,
    LEGACY_BLOOM_FILTER_KEY,
)
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.naming import BaseFileName, parse_data_file_name
from hudi_framework.metadata.keys import bloom_filter_key
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
from hudi_framework.timeline.metadata import CommitMetadata

__all__ = ["FILE_GROUP_COUNT_KEY", "BloomFiltersBuilder", "bloom_filter_record"]

#: Apache Hudi's option for the partition's number of file groups, and its default.
FILE_GROUP_COUNT_KEY: Final = "hoodie.metadata.index.bloom.filter.file.group.count"
DEFAULT_FILE_GROUP_COUNT: Final = 4
#: Java's ``SOLO_COMMIT_TIMESTAMP``: the init timestamp of a table without a completed instant.
_SOLO_TIMESTAMP: Final = "00000000000000"
_FIELD: Final = "BloomFilterMetadata"
_FOOTER_THREADS: Final = 8


def bloom_filter_record(
    partition_path: str, file_name: str, timestamp: str, *, filter_type: str, serialized: bytes, deleted: bool
) -> MetadataRecord:
    """One ``bloom_filters`` record (Java ``HoodieMetadataPayload.createBloomFilterMetadataRecord``)."""
    return {
        "key": bloom_filter_key(partition_path, file_name),
        "type": int(RecordType.BLOOM_FILTER),
        _FIELD: {"type": filter_type, "timestamp": timestamp, "bloomFilter": serialized, "isDeleted": deleted},
    }


def _is_base_file(name: str) -> bool:
    return isinstance(parse_data_file_name(name), BaseFileName)


def _footer_filter(storage: StorageBackend, key: str) -> tuple[str, bytes] | None:
    """``(type, serialised filter)`` from a base file's footer, or None when it has none."""
    if not key.endswith(".parquet"):
        return None  # only Parquet base files carry Hudi's footer filter here
    with open_parquet(storage, key) as parquet:
        kv = parquet.metadata.metadata or {}
    text = kv.get(BLOOM_FILTER_KEY) or kv.get(LEGACY_BLOOM_FILTER_KEY)
    if text is None:
        return None
    code = kv.get(BLOOM_FILTER_TYPE_CODE_KEY)
    return (code.decode("utf-8") if code else BloomFilterType.SIMPLE.value), text


def _records(storage: StorageBackend, keys: Sequence[str], timestamp: str) -> list[MetadataRecord]:
    """The records of the base files at ``keys`` (footers read in threads; one per file, in order)."""
    if not keys:
        return []
    with ThreadPoolExecutor(max_workers=min(_FOOTER_THREADS, len(keys))) as pool:
        footers = list(pool.map(lambda k: _footer_filter(storage, k), keys))
    out = []
    for key, footer in zip(keys, footers, strict=True):
        if footer is None:
            continue
        partition, _, name = key.rpartition("/")
        out.append(
            bloom_filter_record(partition, name, timestamp, filter_type=footer[0], serialized=footer[1], deleted=False)
        )
    return out


def _written_base_files(metadata: CommitMetadata) -> Iterable[str]:
    for partition, stats in (metadata.partition_to_write_stats or {}).items():
        for stat in stats:
            if not stat.path:
                continue
            name = stat.path.rsplit("/", 1)[-1]
            if _is_base_file(name):
                yield f"{partition}/{name}" if partition else name


class BloomFiltersBuilder(PartitionBuilder):
    """Builds the ``bloom_filters`` partition (``bloom-filters-0000-0`` onwards)."""

    partition = MetadataPartition.BLOOM_FILTERS.value

    def file_group_count(self, ctx: InitContext) -> int:
        return ctx.options.integer(FILE_GROUP_COUNT_KEY, DEFAULT_FILE_GROUP_COUNT)

    def init_records(self, ctx: InitContext) -> PartitionRecords:
        completed = ctx.timeline.completed()
        timestamp = completed[-1].requested_time if completed else _SOLO_TIMESTAMP
        keys = sorted(k for k in committed_files(ctx.view) if _is_base_file(k.rsplit("/", 1)[-1]))
        return PartitionRecords(_records(ctx.storage, keys, timestamp))

    def commit_records(self, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
        keys = list(dict.fromkeys(_written_base_files(metadata)))
        return PartitionRecords(_records(ctx.storage, keys, ctx.instant_time))

    def clean_records(self, ctx: InstantContext, clean: CleanMetadata) -> PartitionRecords:
        names = [
            (partition, pattern.rsplit("/", 1)[-1])
            for partition, outcome in sorted(clean.partitions.items())
            for pattern in outcome.delete_path_patterns
        ]
        records = [
            bloom_filter_record(partition, name, ctx.instant_time, filter_type="", serialized=b"", deleted=True)
            for partition, name in names
            if _is_base_file(name)
        ]
        return PartitionRecords(records)

    def compacted(self, record: MetadataRecord) -> MetadataRecord | None:
        """A deleted file's tombstone has nothing older to hide in a base file: it is dropped."""
        stored = record.get(_FIELD)
        return None if stored is None or stored.get("isDeleted") else record
