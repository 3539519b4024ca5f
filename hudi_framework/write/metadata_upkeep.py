"""The metadata table's (MDT) upkeep before each write and table service: build it, delete it, compact it.

Run at the start of every write and table service (Apache Hudi: ``initializeMetadataTable`` and the
MDT's ``performTableServices``):

* ``hoodie.metadata.enable=false`` (and the default on a table of version 6, which Apache Hudi's
  version-6 MDT layout we do not write): the MDT is deleted (properties first);
* ``true``: it is built from a listing when the table has none, its enabled partitions are
  initialised and disabled ones dropped (:func:`~hudi_framework.metadata_writer.writer.prepare_metadata_table`),
  then cleaned (:mod:`~hudi_framework.write.metadata_cleaning`) and compacted once
  ``hoodie.metadata.compact.max.delta.commits`` delta commits completed since its last compaction
  (:mod:`~hudi_framework.metadata_writer.compaction`).
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

from hudi_framework.config.sections import WriteSettings
from hudi_framework.config.services import CleanSettings
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.metadata_writer.bloom_filters_partition import FILE_GROUP_COUNT_KEY
from hudi_framework.metadata_writer.column_stats_partition import (
    COLUMN_LIST_KEY,
    COLUMN_STATS_FILE_GROUPS_KEY,
    MAX_COLUMNS_KEY,
)
from hudi_framework.metadata_writer.compaction import compact_metadata_table
from hudi_framework.metadata_writer.mdt_timeline import mdt_timeline_writer
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.metadata_writer.partition_stats_partition import PARTITION_STATS_FILE_GROUPS_KEY
from hudi_framework.metadata_writer.record_index_partition import MAX_FILE_GROUPS_KEY, MIN_FILE_GROUPS_KEY
from hudi_framework.metadata_writer.writer import prepare_metadata_table
from hudi_framework.table.metadata_table import disable_metadata_table
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.write.metadata_cleaning import MetadataCleanRetention, clean_metadata_table

__all__ = ["metadata_table_upkeep", "metadata_write_options"]


def metadata_write_options(write: WriteSettings, clean: CleanSettings | None = None) -> MetadataWriteOptions:
    """The MDT options of a writer's settings (``clean``: the data table's cleaning, which the MDT's follows)."""
    cleaning = clean or CleanSettings()
    return MetadataWriteOptions(
        enable=write.metadata_enable,
        enable_given="metadata_enable" in write.model_fields_set,
        compact_max_delta_commits=write.metadata_compact_max_delta_commits,
        partitions=MappingProxyType(
            {
                MetadataPartition.COLUMN_STATS.value: write.metadata_column_stats_enable,
                MetadataPartition.BLOOM_FILTERS.value: write.metadata_bloom_filter_enable,
                MetadataPartition.PARTITION_STATS.value: write.metadata_column_stats_enable,
                MetadataPartition.RECORD_INDEX.value: write.metadata_record_index_enable,
            }
        ),
        values=MappingProxyType(
            {
                COLUMN_LIST_KEY: ",".join(write.metadata_column_stats_columns),
                MAX_COLUMNS_KEY: str(write.metadata_column_stats_max_columns),
                COLUMN_STATS_FILE_GROUPS_KEY: str(write.metadata_column_stats_file_groups),
                PARTITION_STATS_FILE_GROUPS_KEY: str(write.metadata_partition_stats_file_groups),
                MIN_FILE_GROUPS_KEY: str(write.metadata_record_index_min_file_groups),
                MAX_FILE_GROUPS_KEY: str(write.metadata_record_index_max_file_groups),
                FILE_GROUP_COUNT_KEY: str(write.metadata_bloom_filter_file_groups),
                "hoodie.clean.policy": cleaning.policy.value,
                "hoodie.clean.commits.retained": str(cleaning.commits_retained),
                "hoodie.clean.fileversions.retained": str(cleaning.file_versions_retained),
                "hoodie.clean.hours.retained": str(cleaning.hours_retained),
            }
        ),
    )


def metadata_table_upkeep(
    storage: StorageBackend,
    config: TableConfig,
    timeline: Callable[[], Timeline],
    options: MetadataWriteOptions,
) -> bool:
    """Build, delete or compact the MDT as ``options`` say; True when ``hoodie.properties`` changed.

    Args:
        storage: The data table's storage.
        config: The data table's config.
        timeline: Loads the data table's timeline (only when the MDT is enabled).
        options: The writer's MDT options.
    """
    if not options.enable or (config.version < 8 and not options.enable_given):
        return disable_metadata_table(storage)
    # The next writer restores hoodie.properties from its backup after a crashed update (as the
    # disabled path does while reading it).
    load_properties(storage, repair=True)
    # One listing of the MDT's timeline serves each step that leaves it as it was (the common case:
    # nothing to build, clean or compact), a fixed cost of every write and table service.
    mdt = mdt_timeline_writer(storage, config.timeline_timezone)
    mdt_timeline = mdt.timeline()
    changed = prepare_metadata_table(storage, config, timeline, options, mdt_timeline=mdt_timeline)
    if changed:
        config = TableConfig.from_properties(load_properties(storage))
        mdt_timeline = mdt.timeline()
    # Apache Hudi's order (performTableServices): clean, then compact.
    retention = MetadataCleanRetention.from_values(options.values)
    if clean_metadata_table(storage, config, retention, mdt_timeline=mdt_timeline) is not None:
        mdt_timeline = mdt.timeline()
    compact_metadata_table(
        storage, config, timeline, max_delta_commits=options.compact_max_delta_commits, mdt_timeline=mdt_timeline
    )
    return changed
