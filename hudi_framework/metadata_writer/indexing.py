"""Apache Hudi's asynchronous ``indexing`` action: building a metadata-table (MDT) partition of an
existing table while writers go on committing.

Apache Hudi's ``HoodieIndexer`` modes ``schedule``, ``execute`` and ``scheduleAndExecute``:

* **schedule** (:func:`schedule_indexing`, a short section under the table lock):
  ``<T>.indexing.requested`` on the data timeline holds a ``HoodieIndexPlan`` (the partition, and
  ``indexUptoInstant``: the last instant of the contiguous completed write timeline); the
  partition's file groups get their init logs at ``T``; the data table lists the partition in
  ``hoodie.table.metadata.partitions.inflight``. From then on every writer's MDT delta commit also
  writes the partition (Apache Hudi's writers update inflight partitions too), and no reader uses
  it (readers trust ``hoodie.table.metadata.partitions`` only).
* **execute** (:func:`execute_indexing`, no lock held while building): ``<T>.indexing.inflight``;
  the partition's base files come from the table's committed file slices as the schedule left
  them, in an MDT delta commit at ``T`` (Apache Hudi initialises an asynchronously built partition
  at the indexing instant's time). Every instant completed after the schedule is in the
  partition's logs (its writer put it there) and not in the base, so base plus logs is the table's
  state, whatever the partition's merge rule (column statistics add counts).
* **complete** (short, under the table lock): the catch-up check (every write, clean and rollback
  completed since the schedule has its MDT instant: writers made them), then the partition moves
  to ``hoodie.table.metadata.partitions`` and ``<T>.indexing`` completes with a
  ``HoodieIndexCommitMetadata``.

One difference from Apache Hudi 1.x, which marks the partition inflight and writes its init logs
at the start of execute, not at schedule: here writers log to the partition from the schedule on,
so no instant completed between schedule and execute can be missed. Apache Hudi's execute refuses a
plan whose partition is already inflight, so a plan scheduled here is executed here.

A killed indexer leaves the plan pending and the partition inflight (readers ignore it, writers
keep logging to it); running it again completes the plan: the killed attempt's base files and MDT
instant go first. An error while executing aborts the plan: the partition is unlisted and
deleted, and the indexing instant goes, as Apache Hudi's abort does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Final

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import IndexingError
from hudi_framework.layout.naming import LogFileName
from hudi_framework.metadata.records import TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, MetadataPartition
from hudi_framework.metadata_writer import builders
from hudi_framework.metadata_writer.file_groups import file_group_count, partition_dir, write_init_logs
from hudi_framework.metadata_writer.initialize import (
    create_metadata_table,
    initialize_partition,
    set_partition_state,
    write_partition_base,
)
from hudi_framework.metadata_writer.mdt_timeline import mdt_timeline_writer
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.metadata_writer.partition_builder import InitContext, PartitionBuilder
from hudi_framework.table.properties import load_properties, update_properties
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.avro_container import AvroSchemaName, write_container
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_framework.timeline.naming import parse_instant_file_name
from hudi_framework.timeline.timeline import Timeline, timeline_dir
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import TimelineTimezone

__all__ = [
    "INDEXABLE_PARTITIONS",
    "IndexPlan",
    "abort_indexing",
    "execute_indexing",
    "index_upto_instant",
    "partitions_being_indexed",
    "pending_index_plans",
    "schedule_indexing",
]

#: ``HoodieIndexPlan`` / ``HoodieIndexPartitionInfo`` / ``HoodieIndexCommitMetadata`` version.
INDEX_PLAN_VERSION: Final = 1
#: MDT partitions the indexer builds (``files`` comes with the MDT itself).
INDEXABLE_PARTITIONS: Final = (
    MetadataPartition.COLUMN_STATS.value,
    MetadataPartition.BLOOM_FILTERS.value,
    MetadataPartition.RECORD_INDEX.value,
    MetadataPartition.PARTITION_STATS.value,
)
_FILES = MetadataPartition.FILES.value
#: Data instants a writer gives an MDT instant of the same time.
_SYNCED_ACTIONS: Final = WRITE_ACTIONS | {Action.CLEAN, Action.ROLLBACK}

#: Opens the table lock for a ``with`` block.
TableLock = Callable[[], AbstractContextManager[object]]
#: Called with a step name (``scheduled``, ``built``) as the indexer passes it.
Step = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class IndexPlan:
    """One ``indexing`` instant's plan.

    Attributes:
        instant_time: The indexing instant ``T`` (also the MDT instant of the partitions' base).
        partitions: The MDT partitions it builds.
        index_upto_instant: The last instant of the contiguous completed write timeline when it
            was scheduled.
    """

    instant_time: str
    partitions: tuple[str, ...]
    index_upto_instant: str


def _partition_infos(partitions: Sequence[str], upto: str, extra: dict[str, str] | None) -> list[dict[str, Any]]:
    return [
        {"version": INDEX_PLAN_VERSION, "metadataPartitionPath": p, "indexUptoInstant": upto, "extraMetadata": extra}
        for p in partitions
    ]


def _config(storage: StorageBackend) -> TableConfig:
    return TableConfig.from_properties(load_properties(storage))


def _data_writer(storage: StorageBackend, config: TableConfig) -> TimelineWriter:
    # No MDT sync: an indexing instant changes no data file, and Apache Hudi gives it no MDT instant.
    return TimelineWriter(
        storage,
        layout_version=config.timeline_layout_version,
        timeline_path=config.timeline_path,
        timezone=TimelineTimezone(config.timeline_timezone),
    )


def _inflight(config: TableConfig) -> set[str]:
    return {p for p in config.extra.get(TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, "").split(",") if p.strip()}


def index_upto_instant(timeline: Timeline) -> str | None:
    """The last instant of the contiguous completed write timeline (Java
    ``getContiguousCompletedWriteTimeline().lastInstant()``): completed writes up to the first
    pending one."""
    last = None
    for inst in timeline.instants:
        if inst.comparable_action not in WRITE_ACTIONS:
            continue
        if not inst.is_completed:
            break
        last = inst.requested_time
    return last


def pending_index_plans(timeline: Timeline) -> list[IndexPlan]:
    """The plans of the timeline's pending ``indexing`` instants, oldest first."""
    plans = []
    for inst in timeline.pending({Action.INDEXING}):
        record = timeline.read_avro(inst, State.REQUESTED)
        infos = (record.record.get("indexPartitionInfos") if record is not None else None) or []
        partitions = tuple(str(i["metadataPartitionPath"]) for i in infos if i.get("metadataPartitionPath"))
        upto = next((str(i["indexUptoInstant"]) for i in infos if i.get("indexUptoInstant")), "")
        plans.append(IndexPlan(inst.requested_time, partitions, upto))
    return plans


def partitions_being_indexed(config: TableConfig, timeline: Callable[[], Timeline]) -> set[str]:
    """The inflight MDT partitions a pending ``indexing`` instant builds: writers log to them and
    neither build nor drop them (the timeline is loaded only when a partition is inflight)."""
    inflight = _inflight(config)
    if not inflight:
        return set()
    return inflight & {p for plan in pending_index_plans(timeline()) for p in plan.partitions}


def _builder(partition: str, config: TableConfig) -> PartitionBuilder:
    builder = builders.builder_for(partition)
    if builder is None or partition not in INDEXABLE_PARTITIONS:
        raise IndexingError(partition, f"not an index the indexer builds ({', '.join(INDEXABLE_PARTITIONS)})")
    if not builder.applies_to(config):
        raise IndexingError(partition, "this table cannot have it (partition_stats: partitioned tables only; "
                            "record_index: tables with meta fields)")  # fmt: skip
    return builder


def _set_inflight(storage: StorageBackend, partition: str) -> None:
    """List ``partition`` in ``hoodie.table.metadata.partitions.inflight`` (Java
    ``setMetadataPartitionsInflight``: sorted, comma-joined)."""
    props = load_properties(storage, repair=True)
    inflight = {p for p in props.get(TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, "").split(",") if p.strip()}
    update_properties(storage, {TABLE_METADATA_PARTITIONS_INFLIGHT_KEY: ",".join(sorted(inflight | {partition}))})


def _open_partition(
    storage: StorageBackend, config: TableConfig, partition: str, instant_time: str, count: int
) -> None:
    """Under the lock: the partition's init logs at the indexing instant, then its inflight listing."""
    for info in storage.list(partition_dir(partition), recursive=True):
        storage.delete(info.key)
    write_init_logs(storage, partition, count, instant_time)
    _set_inflight(storage, partition)


def schedule_indexing(
    storage: StorageBackend, partition: str, options: MetadataWriteOptions, lock: TableLock
) -> IndexPlan | None:
    """Schedule building ``partition``; its plan (a pending one when there is one already), or None
    when the partition is built.

    Args:
        storage: The data table's storage.
        partition: The MDT partition (``record_index``, ``column_stats``...).
        options: The MDT options (the partition's file-group count and columns).
        lock: Opens the table lock (held only while the plan is written).

    Raises:
        IndexingError: The partition is not one the indexer builds, or the table has no completed
            write to index.
    """
    config = _config(storage)
    builder = _builder(partition, config)
    timeline = _data_writer(storage, config).timeline()
    # An estimate from the data files, taken before the lock (it reads every base file's footer).
    count = builder.file_group_count(InitContext(storage, config, timeline, options, ""))
    with lock():
        config = _config(storage)
        writer = _data_writer(storage, config)
        timeline = writer.timeline()
        for plan in pending_index_plans(timeline):
            if partition in plan.partitions:
                if partition in _inflight(config) or partition in config.metadata_partitions:
                    return plan
                # Killed while scheduling, before any writer logged to it: scheduled again.
                abort_indexing(storage, plan)
                timeline = writer.timeline()
        if partition in config.metadata_partitions:
            return None
        upto = index_upto_instant(timeline)
        if upto is None:
            raise IndexingError(partition, "the table has no completed write to index")
        if _FILES not in config.metadata_partitions:
            # Apache Hudi too builds the MDT's files partition synchronously before an index.
            create_metadata_table(storage, config)
            initialize_partition(storage, config, timeline, builders.partition_builders()[0], options)
            config = _config(storage)
        plan_record = {"version": INDEX_PLAN_VERSION, "indexPartitionInfos": _partition_infos([partition], upto, {})}
        requested = writer.create_requested(
            Action.INDEXING, content=write_container(AvroSchemaName.INDEX_PLAN, plan_record)
        )
        _open_partition(storage, config, partition, requested.requested_time, count)
    return IndexPlan(requested.requested_time, (partition,), upto)


def execute_indexing(
    storage: StorageBackend,
    plan: IndexPlan,
    options: MetadataWriteOptions,
    lock: TableLock,
    *,
    step: Step | None = None,
) -> None:
    """Build the plan's partitions without holding the table lock, then complete the plan (a short
    section under the lock). An error aborts the plan (:func:`abort_indexing`).

    Args:
        storage: The data table's storage.
        plan: A pending plan (:func:`schedule_indexing`, :func:`pending_index_plans`).
        options: The MDT options.
        lock: Opens the table lock.
        step: Called with ``built`` once the base files are written (tests use it).

    Raises:
        IndexingError: The plan is not one this indexer can run (left as it is), or it cannot
            complete (its partition was dropped meanwhile, an instant completed since the schedule
            has no MDT instant, building failed): then it was aborted.
    """
    config = _config(storage)
    writer = _data_writer(storage, config)
    instant = writer.timeline().get(plan.instant_time, Action.INDEXING)
    if instant.is_completed:
        return
    for partition in plan.partitions:
        _builder(partition, config)
        if partition not in _inflight(config) and partition not in config.metadata_partitions:
            # Killed inside its schedule, or scheduled by Apache Hudi (whose execute lists the
            # partition inflight): writers have not logged to it since the plan, so it cannot
            # complete here. Left as it is; scheduling the partition again replaces it.
            raise IndexingError(partition, f"indexing instant {plan.instant_time} was never fully scheduled here")
    try:
        if instant.state is State.REQUESTED:
            instant = writer.transition_to_inflight(instant)
        for partition in plan.partitions:
            if partition not in _config(storage).metadata_partitions:
                _build_base(storage, plan, partition, options)
        if step is not None:
            step("built")
        with lock():
            _complete(storage, writer, plan, instant, options)
    except IndexingError:
        with lock():
            abort_indexing(storage, plan)
        raise
    except Exception as e:
        with lock():
            abort_indexing(storage, plan)
        raise IndexingError(",".join(plan.partitions), f"building failed and the plan was aborted: {e}") from e


def _build_base(storage: StorageBackend, plan: IndexPlan, partition: str, options: MetadataWriteOptions) -> None:
    """The partition's base files from the table's latest committed file slices, at MDT ``T``."""
    config = _config(storage)
    builder = _builder(partition, config)
    t = plan.instant_time
    mdt_writer = mdt_timeline_writer(storage, config.timeline_timezone)
    # A killed attempt's base files and MDT instant go; the init logs and the writers' logs stay.
    for info in storage.list(partition_dir(partition)):
        if LogFileName.try_parse(info.name) is None and info.name.endswith(f"_{t}.hfile"):
            storage.delete(info.key)
    for inst in mdt_writer.timeline().instants:
        if inst.requested_time == t:
            mdt_writer.delete_instant(inst, allow_completed=True)
    count = file_group_count(partition, storage.list(partition_dir(partition)))
    if count == 0:
        raise IndexingError(partition, "its file groups are gone (the metadata table was deleted meanwhile)")
    ctx = InitContext(storage, config, _timeline_at_schedule(storage, config, t), options, t)
    write_partition_base(ctx, builder, count)


def _timeline_at_schedule(storage: StorageBackend, config: TableConfig, instant_time: str) -> Timeline:
    """The data timeline as the schedule left it: instants completed after it (under the lock, so
    with a later completion time) count as pending. Their records are in the partition's logs
    already, and column statistics merge by adding counts, so the base must not hold them too."""
    layout = config.timeline_layout_version
    files = storage.list(timeline_dir(layout, config.timeline_path))

    def before(name: str) -> bool:
        parsed = parse_instant_file_name(name, layout)
        return (
            parsed is None or not parsed.instant.is_completed or (parsed.instant.completion_time or "") < instant_time
        )

    return Timeline(
        storage,
        [f for f in files if before(f.name)],
        layout_version=layout,
        timeline_path=config.timeline_path,
        timezone=TimelineTimezone(config.timeline_timezone),
    )


def _complete(
    storage: StorageBackend, writer: TimelineWriter, plan: IndexPlan, instant: Instant, options: MetadataWriteOptions
) -> None:
    """Under the lock: check the catch-up, list the partitions as complete, complete the instant."""
    config = _config(storage)
    inflight = _inflight(config)
    for partition in plan.partitions:
        if partition not in inflight and partition not in config.metadata_partitions:
            raise IndexingError(partition, "it was unlisted while being built (a writer without the metadata "
                                "table deleted it, or a restore did)")  # fmt: skip
    timeline = writer.timeline()
    mdt_done = {i.requested_time for i in mdt_timeline_writer(storage, config.timeline_timezone).timeline().completed()}
    if plan.instant_time not in mdt_done:
        raise IndexingError(",".join(plan.partitions), f"its MDT instant {plan.instant_time} did not complete")
    # Catch-up: Apache Hudi's indexer writes the MDT records of instants completed after the plan
    # that have no MDT instant; here every writer logs to the inflight partition, so each must have one.
    for inst in timeline.completed(_SYNCED_ACTIONS):
        if (inst.completion_time or "") > plan.instant_time and inst.requested_time not in mdt_done:
            raise IndexingError(
                ",".join(plan.partitions),
                f"instant {inst.requested_time} completed after the plan without a metadata-table instant",
            )
    for partition in plan.partitions:
        set_partition_state(storage, partition, enabled=True)
        builder = _builder(partition, config)
        builder.after_init(InitContext(storage, _config(storage), timeline, options, plan.instant_time))
    caught_up = index_upto_instant(timeline) or plan.index_upto_instant
    record = {
        "version": INDEX_PLAN_VERSION,
        "operationType": None,
        "indexPartitionInfos": _partition_infos(plan.partitions, caught_up, None),
    }
    writer.complete(instant, write_container(AvroSchemaName.INDEX_COMMIT_METADATA, record))


def abort_indexing(storage: StorageBackend, plan: IndexPlan) -> None:
    """Undo a pending plan (under the table lock): its partitions are unlisted (properties first,
    so no writer logs to them any more), their files and MDT instant go, then the indexing instant."""
    config = _config(storage)
    for partition in plan.partitions:
        if partition in config.metadata_partitions:
            continue  # listed complete by the attempt that died: the index stands
        set_partition_state(storage, partition, enabled=False)
        for info in storage.list(partition_dir(partition), recursive=True):
            storage.delete(info.key)
    if not any(p in config.metadata_partitions for p in plan.partitions):
        mdt_writer = mdt_timeline_writer(storage, config.timeline_timezone)
        for inst in mdt_writer.timeline().instants:
            if inst.requested_time == plan.instant_time:
                mdt_writer.delete_instant(inst, allow_completed=True)
    writer = _data_writer(storage, config)
    for inst in writer.timeline().instants:
        if inst.requested_time == plan.instant_time and inst.action is Action.INDEXING and inst.is_pending:
            writer.delete_instant(inst)
