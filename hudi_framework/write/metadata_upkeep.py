"""The metadata table's (MDT) upkeep before each write and table service: build it, delete it, compact it.

Run at the start of every write and table service (Apache Hudi: ``initializeMetadataTable`` and the
MDT's ``performTableServices``):

* ``hoodie.metadata.enable=false``: the MDT is deleted (properties first);
* ``true``: it is built from a listing when the table has none, then compacted once
  ``hoodie.metadata.compact.max.delta.commits`` delta commits completed since its last compaction:
  the ``files`` file group gets a new base HFile of its merged records at a fresh instant (a
  ``compaction`` planned with Apache Hudi's plan, completed as a ``commit`` with ``COMPACT``).

A compaction is skipped while the data timeline has a pending instant whose MDT delta commit
completed (a crashed write): its records must stay in a log file its rollback can delete.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.file_group import FileGroupId
from hudi_framework.log.hfile_records import encode_hfile_base_file
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import METADATA_TABLE_DIR, MetadataPartition, file_group_id
from hudi_framework.metadata.writer import (
    listing_records,
    mdt_commit_metadata,
    mdt_timeline_writer,
    mdt_write_stat,
    metadata_record_schema_text,
    prepare_metadata_table,
)
from hudi_framework.services.compaction_plan import CompactionOperation, CompactionPlan, encode_compaction_plan
from hudi_framework.table.metadata_table import disable_metadata_table
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.instant_time import InstantTimeGenerator
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import TimelineTimezone

__all__ = ["compact_metadata_table", "metadata_table_upkeep"]

_WRITE_TOKEN = "0-0-0"


def metadata_table_upkeep(
    storage: StorageBackend,
    config: TableConfig,
    timeline: Callable[[], Timeline],
    *,
    enabled: bool,
    max_delta_commits: int,
) -> bool:
    """Build, delete or compact the MDT as ``enabled`` says; True when ``hoodie.properties`` changed.

    Args:
        storage: The data table's storage.
        config: The data table's config.
        timeline: Loads the data table's timeline (only when the MDT is enabled).
        enabled: ``hoodie.metadata.enable``.
        max_delta_commits: ``hoodie.metadata.compact.max.delta.commits``.
    """
    if not enabled:
        return disable_metadata_table(storage)
    changed = prepare_metadata_table(storage, config, timeline)
    compact_metadata_table(storage, config, timeline(), max_delta_commits=max_delta_commits)
    return changed


def compact_metadata_table(
    storage: StorageBackend, config: TableConfig, data_timeline: Timeline, *, max_delta_commits: int
) -> str | None:
    """Compact the MDT ``files`` partition when it is due; the compaction instant, or None."""
    writer = mdt_timeline_writer(storage, config.timeline_timezone)
    mdt_timeline = writer.timeline()
    if mdt_timeline.pending():
        return None  # an MDT write in flight or crashed: its data instant's rollback settles it first
    completed = mdt_timeline.completed()
    compactions = [i for i in completed if i.action is Action.COMMIT]
    since = max((i.completion_time or "" for i in compactions), default="")
    deltas = [i for i in completed if i.action is Action.DELTA_COMMIT and (i.completion_time or "") > since]
    if len(deltas) < max_delta_commits:
        return None
    mdt_done = {i.requested_time for i in deltas}
    if any(i.requested_time in mdt_done for i in data_timeline.pending()):
        return None
    mdt = MetadataTable.open(storage, load_properties(storage))
    if mdt is None:
        return None
    (current,) = mdt.file_slices(MetadataPartition.FILES)
    records = listing_records(mdt.files())
    instant_time = writer.generator.next(after=max(mdt_timeline.instants[-1].requested_time, _newest(data_timeline)))
    group = FileGroupId(MetadataPartition.FILES.value, file_group_id(MetadataPartition.FILES, 0))
    plan = CompactionPlan(
        operations=(
            CompactionOperation(
                file_group=group,
                base_instant_time=current.base_instant_time,
                delta_file_names=tuple(current.log_file_names),
                data_file_name=current.base_file_name,
            ),
        )
    )
    requested = writer.create_requested(Action.COMPACTION, instant_time, content=encode_compaction_plan(plan))
    inflight = writer.transition_to_inflight(requested)
    content = encode_hfile_base_file(records, metadata_record_schema_text(with_meta_fields=True))
    name = f"{group.file_id}_{_WRITE_TOKEN}_{instant_time}.hfile"
    storage.write(f"{METADATA_TABLE_DIR}/{group.key(name)}", content)
    stat = mdt_write_stat(name, len(content), len(records), base=True)
    writer.complete(inflight, mdt_commit_metadata([stat], "COMPACT", compacted=True))
    # The next data instant must be newer than the compaction: its MDT delta commit then belongs
    # to the new slice and never shares the compaction's time.
    clock = InstantTimeGenerator(TimelineTimezone(config.timeline_timezone))
    while clock.next() <= instant_time:
        time.sleep(0.001)
    return instant_time


def _newest(timeline: Timeline) -> str:
    return timeline.instants[-1].requested_time if timeline.instants else ""
