"""Initialising the metadata table (MDT) and each of its partitions (Apache Hudi 1.x, versions 8/9).

* The MDT itself (:func:`create_metadata_table`): any old ``.hoodie/metadata`` goes and the MDT's
  ``hoodie.properties`` is written; then its ``files`` partition is initialised.
* A partition (:func:`initialize_partition`), at the next free init instant ``0000000000000000<n>``
  (``files`` at ``...000``, the next at ``...001``...): its directory is emptied; each of its file
  groups gets an init log holding one empty DELETE block; a bulk delta commit writes one base HFile
  per file group that gets records (keys routed by hash); only once that commit completed does the
  data table list the partition in ``hoodie.table.metadata.partitions`` (backup protocol).
"""

from __future__ import annotations

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.metadata.records import (
    TABLE_METADATA_PARTITIONS_INFLIGHT_KEY,
    TABLE_METADATA_PARTITIONS_KEY,
    file_group_id,
)
from hudi_framework.metadata_writer.file_groups import (
    partition_dir,
    route,
    write_base_file,
    write_init_logs,
)
from hudi_framework.metadata_writer.mdt_timeline import (
    INIT_INSTANT,
    MDT_META_DIR,
    mdt_commit_metadata,
    mdt_requested,
    mdt_timeline_writer,
    metadata_table_properties,
)
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.metadata_writer.partition_builder import InitContext, PartitionBuilder
from hudi_framework.table.metadata_table import disable_metadata_table
from hudi_framework.table.properties import load_properties, render_properties, update_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.timeline import Timeline

__all__ = [
    "create_metadata_table",
    "initialize_partition",
    "next_init_instant",
    "set_partition_state",
    "write_partition_base",
]


def create_metadata_table(storage: StorageBackend, config: TableConfig) -> None:
    """Start an MDT from nothing: the old one (if any) goes, the new one's properties are written."""
    disable_metadata_table(storage)
    storage.write(f"{MDT_META_DIR}/hoodie.properties", render_properties(metadata_table_properties(config)))


def next_init_instant(storage: StorageBackend, config: TableConfig) -> str:
    """The first ``0000000000000000<n>`` instant the MDT timeline does not have (Java
    ``generateUniqueInstantTime``)."""
    taken = {i.requested_time for i in mdt_timeline_writer(storage, config.timeline_timezone).timeline().instants}
    offset = 0
    while True:
        candidate = f"{int(INIT_INSTANT) + offset:017d}"
        if candidate not in taken:
            return candidate
        offset += 1


def initialize_partition(
    storage: StorageBackend,
    config: TableConfig,
    timeline: Timeline,
    builder: PartitionBuilder,
    options: MetadataWriteOptions,
) -> str:
    """Build ``builder``'s partition from the data table's committed files; its init instant.

    Args:
        storage: The data table's storage.
        config: The data table's config (name, version, time zone).
        timeline: The data table's timeline: only files of its completed instants are recorded.
        builder: The partition's builder.
        options: The writer's MDT options (the builder reads its own).
    """
    partition = builder.partition
    instant_time = next_init_instant(storage, config)
    for info in storage.list(partition_dir(partition), recursive=True):
        storage.delete(info.key)
    ctx = InitContext(storage, config, timeline, options, instant_time)
    count = builder.file_group_count(ctx)
    write_init_logs(storage, partition, count, instant_time)
    write_partition_base(ctx, builder, count)
    set_partition_state(storage, partition, enabled=True)
    builder.after_init(ctx)
    return instant_time


def write_partition_base(ctx: InitContext, builder: PartitionBuilder, count: int) -> None:
    """The bulk MDT delta commit at ``ctx.instant_time`` that gives each of the partition's
    ``count`` file groups receiving records its base HFile (keys routed by hash)."""
    partition = builder.partition
    writer = mdt_timeline_writer(ctx.storage, ctx.config.timeline_timezone)
    requested = mdt_requested(ctx.storage, writer, Action.DELTA_COMMIT, ctx.instant_time)
    inflight = writer.transition_to_inflight(requested)
    records = builder.init_records(ctx)
    stats = [
        write_base_file(ctx.storage, partition, file_group_id(partition, index), ctx.instant_time, upserts)
        for index, (upserts, _) in sorted(route(records.upserts, (), count).items())
        if upserts
    ]
    writer.complete(inflight, mdt_commit_metadata(stats, "BULK_INSERT_PREPPED"))


def set_partition_state(storage: StorageBackend, partition: str, *, enabled: bool) -> None:
    """List ``partition`` as complete (``enabled``) or remove it, Java ``setMetadataPartitionState``:
    both lists sorted and comma-joined; disabling ``files`` clears both."""
    props = load_properties(storage, repair=True)
    done = {p for p in props.get(TABLE_METADATA_PARTITIONS_KEY, "").split(",") if p.strip()}
    inflight = {p for p in props.get(TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, "").split(",") if p.strip()}
    inflight.discard(partition)
    if enabled:
        done.add(partition)
    elif partition == "files":
        done, inflight = set(), set()
    else:
        done.discard(partition)
    update_properties(
        storage,
        {
            TABLE_METADATA_PARTITIONS_KEY: ",".join(sorted(done)),
            TABLE_METADATA_PARTITIONS_INFLIGHT_KEY: ",".join(sorted(inflight)),
        },
    )
