"""Writing Apache Hudi's metadata table (MDT): the entry points of the write path.

* :func:`prepare_metadata_table`, before each write or table service with the MDT enabled: the
  MDT is created when the table has none (its ``files`` partition from a listing), every enabled
  partition the table does not list yet is initialised (Java's partition order, each at its own
  init instant, :mod:`~hudi_framework.metadata_writer.initialize`), and every listed partition this
  writer does not keep (disabled, or without a builder here) is dropped: properties first, then
  its files.
* :func:`metadata_sync`, given to the data table's timeline writer: one MDT delta commit per data
  instant over every kept partition (:mod:`~hudi_framework.metadata_writer.sync`).

Partition builders (:mod:`~hudi_framework.metadata_writer.partition_builder`) make the records; MDT
compaction is :mod:`~hudi_framework.metadata_writer.compaction`.
"""

from __future__ import annotations

from collections.abc import Callable

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import UnsupportedOptionError
from hudi_framework.metadata.records import TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, MetadataPartition
from hudi_framework.metadata_writer import builders
from hudi_framework.metadata_writer.file_groups import partition_dir
from hudi_framework.metadata_writer.indexing import partitions_being_indexed
from hudi_framework.metadata_writer.initialize import create_metadata_table, initialize_partition, set_partition_state
from hudi_framework.metadata_writer.mdt_timeline import mdt_timeline_writer
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.metadata_writer.sync import MetadataTableSync
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.timeline import Timeline

__all__ = ["metadata_sync", "prepare_metadata_table"]

_FILES = MetadataPartition.FILES.value


def metadata_sync(storage: StorageBackend, config: TableConfig) -> MetadataTableSync | None:
    """The MDT sync a data table's timeline writer calls before each completion, or None.

    The MDT is kept when ``hoodie.table.metadata.partitions`` lists ``files``: writers that run with
    the MDT off delete it before they write.
    """
    if _FILES not in config.metadata_partitions:
        return None
    return MetadataTableSync(storage, config)


def prepare_metadata_table(
    storage: StorageBackend,
    config: TableConfig,
    timeline: Callable[[], Timeline],
    options: MetadataWriteOptions,
    *,
    mdt_timeline: Timeline | None = None,
) -> bool:
    """Before a write or table service with the MDT enabled: create it, initialise the partitions
    ``options`` enable and drop those it does not.

    Args:
        storage: The data table's storage.
        config: The data table's config.
        timeline: Loads the data table's timeline (only when a partition must be built).
        options: The writer's MDT options (``enable`` is taken as true).
        mdt_timeline: The MDT's timeline if the caller loaded it (else it is loaded here).

    Returns:
        True when ``hoodie.properties`` changed (the caller re-reads the table config).

    Raises:
        UnsupportedOptionError: A table version below 8.
    """
    changed = False
    if not (_FILES in config.metadata_partitions and _has_completed_instant(storage, config, mdt_timeline)):
        if config.version < 8:
            raise UnsupportedOptionError(
                "hoodie.metadata.enable",
                f"the metadata table is written for table versions 8 and 9 only (this table: {config.version})",
            )
        create_metadata_table(storage, config)
        initialize_partition(storage, config, timeline(), builders.partition_builders()[0], options)
        changed = True
        config = TableConfig.from_properties(load_properties(storage))
    # Partitions an indexer is building: writers log to them, and neither build nor drop them.
    indexing = partitions_being_indexed(config, timeline)
    changed |= _drop_partitions(storage, config, options, indexing)
    if changed:
        config = TableConfig.from_properties(load_properties(storage))
    listed = set(config.metadata_partitions) | indexing
    for builder in builders.partition_builders():
        if builder.partition in listed or not options.enabled(builder.partition):
            continue
        if not builder.applies_to(config):
            continue
        initialize_partition(storage, config, timeline(), builder, options)
        changed = True
    return changed


def _drop_partitions(
    storage: StorageBackend, config: TableConfig, options: MetadataWriteOptions, indexing: set[str]
) -> bool:
    """Drop the listed MDT partitions this writer does not keep in step (disabled, or no builder):
    a reader trusting them would skip or miss our files. Apache Hudi drops a partition its writer
    has disabled the same way: properties first, then the files."""
    inflight = [p for p in config.extra.get(TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, "").split(",") if p.strip()]
    dropped = False
    for partition in sorted({*config.metadata_partitions, *inflight} - {_FILES} - indexing):
        builder = builders.builder_for(partition)
        kept = builder is not None and options.enabled(partition) and builder.applies_to(config)
        # One left inflight without a pending indexing plan (a dead build) is rebuilt from scratch.
        if kept and partition in config.metadata_partitions:
            continue
        set_partition_state(storage, partition, enabled=False)
        for info in storage.list(partition_dir(partition), recursive=True):
            storage.delete(info.key)
        if builder is not None:
            builder.after_drop(storage)
        dropped = True
    return dropped


def _has_completed_instant(storage: StorageBackend, config: TableConfig, mdt_timeline: Timeline | None) -> bool:
    if mdt_timeline is None:
        mdt_timeline = mdt_timeline_writer(storage, config.timeline_timezone).timeline()
    return bool(mdt_timeline.completed())
