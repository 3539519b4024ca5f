"""The MDT partitions this writer keeps in step, one builder each, in Apache Hudi's order.

The order is Java's ``MetadataPartitionType`` (files, column_stats, bloom_filters, record_index,
..., partition_stats): partitions are initialised in it, each at its own init instant. A partition
listed in ``hoodie.table.metadata.partitions`` without a builder here is dropped by writers (they
would not keep it in step, and a reader trusting it would miss files).
"""

from __future__ import annotations

from hudi_framework.metadata_writer.bloom_filters_partition import BloomFiltersBuilder
from hudi_framework.metadata_writer.column_stats_partition import ColumnStatsBuilder
from hudi_framework.metadata_writer.files_partition import FilesBuilder
from hudi_framework.metadata_writer.partition_builder import PartitionBuilder
from hudi_framework.metadata_writer.partition_stats_partition import PartitionStatsBuilder
from hudi_framework.metadata_writer.record_index_partition import RecordIndexBuilder

__all__ = ["builder_for", "partition_builders"]


def partition_builders() -> tuple[PartitionBuilder, ...]:
    """Every builder, in Apache Hudi's partition order (``files`` first)."""
    return (FilesBuilder(), ColumnStatsBuilder(), BloomFiltersBuilder(), RecordIndexBuilder(), PartitionStatsBuilder())


def builder_for(partition: str) -> PartitionBuilder | None:
    """The builder of an MDT partition, or None when this writer does not keep it."""
    for builder in partition_builders():
        if builder.partition == partition:
            return builder
    return None
