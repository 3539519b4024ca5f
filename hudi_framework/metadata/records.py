"""What the metadata table (MDT) holds: its partitions, their file groups and record types, and the
``HoodieMetadataRecord`` Avro schema every MDT record is written in.

The schema (``schemas/HoodieMetadataRecord.avsc``) is Apache Hudi 1.x's, as its writers put it in
HFile file infos and HFILE_DATA block headers, without the five meta fields (the MDT does not
populate them; writers add them to the block schema) and without documentation strings.
"""

from __future__ import annotations

import json
from enum import IntEnum, StrEnum
from functools import cache
from importlib import resources
from typing import Final

from hudi_framework.model.schema import META_FIELDS, AvroSchema

__all__ = [
    "METADATA_TABLE_DIR",
    "MetadataPartition",
    "RecordType",
    "file_group_id",
    "file_group_prefix",
    "metadata_record_schema",
    "partition_of_file_group",
]

#: Where the MDT lives, relative to the data table's base path.
METADATA_TABLE_DIR: Final = ".hoodie/metadata"
#: The data table property listing the MDT partitions that are complete and kept in sync.
TABLE_METADATA_PARTITIONS_KEY: Final = "hoodie.table.metadata.partitions"
#: Partitions being built (by async indexing); not to be read.
TABLE_METADATA_PARTITIONS_INFLIGHT_KEY: Final = "hoodie.table.metadata.partitions.inflight"


class RecordType(IntEnum):
    """``HoodieMetadataRecord.type``: which payload a record carries."""

    PARTITION_LIST = 1
    FILE_LIST = 2
    COLUMN_STATS = 3
    BLOOM_FILTER = 4
    RECORD_INDEX = 5
    PARTITION_STATS = 6
    SECONDARY_INDEX = 7


class MetadataPartition(StrEnum):
    """The MDT partitions with fixed names (Java ``MetadataPartitionType``).

    Secondary and expression indexes are named per index: ``secondary_index_<name>``,
    ``expr_index_<name>``.
    """

    FILES = "files"
    COLUMN_STATS = "column_stats"
    BLOOM_FILTERS = "bloom_filters"
    RECORD_INDEX = "record_index"
    PARTITION_STATS = "partition_stats"


#: Prefix of the file group ids of each fixed partition (``files-0000-0``, ``col-stats-0003-0``).
_FILE_GROUP_PREFIX: Final = {
    MetadataPartition.FILES: "files-",
    MetadataPartition.COLUMN_STATS: "col-stats-",
    MetadataPartition.BLOOM_FILTERS: "bloom-filters-",
    MetadataPartition.RECORD_INDEX: "record-index-",
    MetadataPartition.PARTITION_STATS: "partition-stats-",
}
SECONDARY_INDEX_PREFIX: Final = "secondary_index_"
EXPRESSION_INDEX_PREFIX: Final = "expr_index_"


def file_group_prefix(partition: str) -> str:
    """The file group id prefix of an MDT partition; per-index partitions use their name with ``-``."""
    try:
        return _FILE_GROUP_PREFIX[MetadataPartition(partition)]
    except ValueError:
        return partition.replace("_", "-") + "-"


def file_group_id(partition: str, index: int) -> str:
    """Id of the ``index``-th file group of an MDT partition: ``<prefix><4-digit index>-0``."""
    return f"{file_group_prefix(partition)}{index:04d}-0"


def partition_of_file_group(file_id: str) -> str | None:
    """The fixed MDT partition a file group id belongs to, or None."""
    for partition, prefix in _FILE_GROUP_PREFIX.items():
        if file_id.startswith(prefix):
            return partition.value
    return None


@cache
def _schema_text() -> str:
    path = resources.files("hudi_framework.metadata.schemas").joinpath("HoodieMetadataRecord.avsc")
    return path.read_text(encoding="utf-8")


def metadata_record_schema(*, with_meta_fields: bool = False) -> AvroSchema:
    """A fresh copy of the ``HoodieMetadataRecord`` schema.

    Args:
        with_meta_fields: Put the five nullable meta fields first, as MDT writers do in block
            headers and base files.
    """
    schema: AvroSchema = json.loads(_schema_text())
    if with_meta_fields:
        meta = [{"name": name, "type": ["null", "string"], "default": None} for name in META_FIELDS]
        schema["fields"] = meta + schema["fields"]
    return schema
