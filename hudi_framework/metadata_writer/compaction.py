"""Compacting the metadata table (MDT): every file group with log files gets a new base HFile.

Once ``hoodie.metadata.compact.max.delta.commits`` delta commits completed since the MDT's last
compaction, one ``compaction`` (Apache Hudi's plan, completed as a ``commit`` with ``COMPACT``) at a
fresh instant merges each file group's latest slice (the base file, then the log blocks of
completed MDT instants in order, DELETE blocks removing keys) with its partition builder's merge
rule, and writes the merged records as the group's new base file.

A compaction is skipped while the data timeline has a pending instant whose MDT delta commit
completed (a crashed write): its records must stay in a log file its rollback can delete.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata_writer.file_groups import write_base_file
from hudi_framework.metadata_writer.mdt_timeline import mdt_commit_metadata, mdt_timeline_writer
from hudi_framework.metadata_writer.partition_builder import PartitionBuilder
from hudi_framework.metadata_writer.slice_records import SliceRecords
from hudi_framework.metadata_writer.sync import kept_partitions
from hudi_framework.services.compaction_plan import CompactionOperation, CompactionPlan, encode_compaction_plan
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.instant_time import InstantTimeGenerator
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import TimelineTimezone

__all__ = ["compact_metadata_table"]


def compact_metadata_table(
    storage: StorageBackend,
    config: TableConfig,
    data_timeline: Timeline | Callable[[], Timeline],
    *,
    max_delta_commits: int,
    mdt_timeline: Timeline | None = None,
) -> str | None:
    """Compact the MDT when it is due; the compaction instant, or None.

    ``data_timeline`` may be a loader, called only when a compaction is due; ``mdt_timeline`` is the
    MDT's timeline if the caller loaded it."""
    writer = mdt_timeline_writer(storage, config.timeline_timezone)
    if mdt_timeline is None:
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
    if callable(data_timeline):
        data_timeline = data_timeline()
    if any(i.requested_time in mdt_done for i in data_timeline.pending()):
        return None
    mdt = MetadataTable.open(storage, load_properties(storage))
    if mdt is None:
        return None
    listed = set(config.metadata_partitions)
    work: list[tuple[PartitionBuilder, FileSlice]] = [
        (builder, file_slice)
        for builder in kept_partitions(config)
        if builder.partition in listed
        for file_slice in mdt.file_slices(builder.partition)
        if file_slice.log_files
    ]
    if not work:
        return None
    instant_time = writer.generator.next(after=max(mdt_timeline.instants[-1].requested_time, _newest(data_timeline)))
    plan = CompactionPlan(
        operations=tuple(
            CompactionOperation(
                file_group=s.file_group_id,
                base_instant_time=s.base_instant_time,
                delta_file_names=tuple(s.log_file_names),
                data_file_name=s.base_file_name,
            )
            for _, s in work
        )
    )
    requested = writer.create_requested(Action.COMPACTION, instant_time, content=encode_compaction_plan(plan))
    inflight = writer.transition_to_inflight(requested)
    merger = SliceRecords(storage, mdt)
    stats = [
        write_base_file(storage, builder.partition, s.file_id, instant_time, merger.merge(builder, s))
        for builder, s in work
    ]
    writer.complete(inflight, mdt_commit_metadata(stats, "COMPACT", compacted=True))
    # The next data instant must be newer than the compaction: its MDT delta commit then belongs
    # to the new slice and never shares the compaction's time.
    clock = InstantTimeGenerator(TimelineTimezone(config.timeline_timezone))
    while clock.next() <= instant_time:
        time.sleep(0.001)
    return instant_time


def _newest(timeline: Timeline) -> str:
    return timeline.instants[-1].requested_time if timeline.instants else ""
