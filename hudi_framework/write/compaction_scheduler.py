"""Scheduling a compaction: list candidate file slices, let the strategy pick, write ``T.compaction.requested``.

The strategy (which slices, in what order, which partitions to list) is the compaction service
plugin's :class:`~hudi_framework.contracts.compaction.CompactionSelector`; this module is the
machinery around it. Candidates are the latest file slices with log files whose file group has no pending compaction,
log compaction or clustering (Java ``BaseHoodieCompactionPlanGenerator``). Only log files of delta
commits that completed before the compaction instant go into a plan: the instant time is chosen
first, and the requested file is created with exactly that time, which the timeline writer only
allows while it is newer than every instant and completion on the timeline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from hudi_framework.contracts.compaction import CompactionSelector
from hudi_framework.errors import CompactionPlanError, MergeStrategyNotFoundError, UnknownComponentError
from hudi_framework.layout.file_group import FileGroupId, FileSlice
from hudi_framework.read.merged_plan import table_merger
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.compaction_plan import (
    CompactionOperation,
    CompactionPlan,
    encode_compaction_plan,
    slice_metrics,
)
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action
from hudi_framework.timeline.naming import LAYOUT_V1
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import TableType
from hudi_framework.write.transaction import timeline_writer as base_timeline_writer

#: Default of ``hoodie.parquet.max.file.size``: the write IO assumed for a slice without base file.
DEFAULT_MAX_FILE_SIZE = 125_829_120


def timeline_writer(table: HudiTable) -> TimelineWriter:
    """A timeline writer for the table's layout and time zone, calling the table's commit hooks
    (and keeping its metadata table, when it has one, in step)."""
    return base_timeline_writer(table.storage, table.config, hooks=table.commit_hooks)


def _slice_groups(slices: Iterable[dict[str, Any]]) -> set[FileGroupId]:
    return {FileGroupId(s.get("partitionPath") or "", s["fileId"]) for s in slices if s.get("fileId")}


def busy_file_groups(timeline: Timeline) -> set[FileGroupId]:
    """File groups under a pending compaction, log compaction or clustering."""
    busy: set[FileGroupId] = set()
    for plans in (timeline.pending_compaction_plans(), timeline.pending_log_compaction_plans()):
        for plan in plans.values():
            busy |= _slice_groups(plan.get("operations") or ())
    for plan in timeline.pending_clustering_plans().values():
        for group in plan.get("inputGroups") or ():
            busy |= _slice_groups(group.get("slices") or ())
    return busy


def _check_schedulable(table: HudiTable, timeline: Timeline) -> None:
    if table.config.table_type is not TableType.MERGE_ON_READ:
        name = table.config.name
        raise CompactionPlanError("", f"table {name!r} is copy-on-write; only merge-on-read tables compact")
    if timeline.layout_version == LAYOUT_V1:
        # Table version 6 names new log files after their slice's base instant, so a write still in
        # flight could not tell which slice it belongs to (Java 0.x refuses the same way).
        pending = [i for i in timeline.pending() if i.action in WRITE_ACTIONS]
        if pending:
            raise CompactionPlanError(
                "", f"write {pending[0]} is still in flight; a v6 table compacts only between writes"
            )


def _operation(file_slice: FileSlice, instant: str, max_file_size: int) -> CompactionOperation | None:
    # Log files of delta commits completing after the compaction instant belong to the new slice.
    logs = [log for log in file_slice.log_files if (log.completion_time or log.instant_time) < instant]
    if not logs:
        return None
    usable = FileSlice.create(file_slice.file_group_id, file_slice.base_instant_time, file_slice.base_file, logs)
    return CompactionOperation.from_slice(usable, slice_metrics(usable, max_file_size))


def build_compaction_plan(
    table: HudiTable, strategy: CompactionSelector, instant: str, *, max_file_size: int = DEFAULT_MAX_FILE_SIZE
) -> CompactionPlan | None:
    """The plan a compaction at ``instant`` would run, or None when nothing qualifies.

    Args:
        table: The table (its timeline as loaded is used).
        strategy: The compaction service's strategy (which slices, in what order).
        instant: The compaction instant time.
        max_file_size: ``hoodie.parquet.max.file.size`` (write IO of slices without a base file).

    Raises:
        CompactionPlanError: The table is copy-on-write, or (v6) a write is in flight.
        MissingDataFileError: A file of a latest slice is named by the timeline but not in storage.
    """
    timeline = table.timeline
    _check_schedulable(table, timeline)
    partitions = strategy.filter_partitions(table.partitions())
    if not partitions:
        return None
    busy = busy_file_groups(timeline)
    # A slice missing a file the timeline names would be compacted from what is left of it.
    view = table.file_system_view(partitions=partitions, check_files=True)
    slices = view.latest_file_slices()
    view.check_files(slices)
    candidates = []
    for file_slice in slices:
        if file_slice.file_group_id in busy or not file_slice.has_log_files:
            continue
        op = _operation(file_slice, instant, max_file_size)
        if op is not None:
            candidates.append(op)
    chosen = strategy.order_and_filter(candidates)
    if not chosen:
        return None
    return CompactionPlan(operations=tuple(chosen))


def schedule_compaction(
    table: HudiTable,
    strategy: CompactionSelector,
    *,
    instant_time: str | None = None,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    action: Action = Action.COMPACTION,
    finish: Callable[[CompactionPlan], CompactionPlan] | None = None,
) -> str | None:
    """Plan a compaction and write its ``T.compaction.requested`` file.

    Args:
        table: The table.
        strategy: The compaction service's strategy.
        instant_time: The compaction instant; a new time after every instant by default.
        max_file_size: ``hoodie.parquet.max.file.size``.
        action: ``logcompaction`` plans a log compaction (``T.logcompaction.requested``).
        finish: Completes the plan before it is written (a log compaction's strategy fields).

    Returns:
        The compaction instant, or None when no file slice needs compacting (nothing is written).

    Raises:
        CompactionPlanError: The table cannot compact now, or a write completed while planning.
        IllegalTransitionError: ``instant_time`` is not newer than every instant on the timeline.
    """
    table.reload()
    writer = timeline_writer(table)
    timeline = table.timeline
    completed_before = {i.requested_time for i in timeline.completed()}
    floor = max(filter(None, (timeline.last_requested_time(), timeline.last_completion_time())), default=None)
    instant = instant_time or writer.generator.next(after=floor)
    plan = build_compaction_plan(table, strategy, instant, max_file_size=max_file_size)
    if plan is None:
        return None
    _check_merger_installed(table, instant)
    if finish is not None:
        plan = finish(plan)
    requested = writer.create_requested(action, instant, encode_compaction_plan(plan))
    # A delta commit that completed while we planned may have logs the plan does not name yet
    # that would fall into the compacted slice; drop the plan rather than lose them.
    late = [i for i in writer.timeline().completed() if i.requested_time not in completed_before]
    if any(i.requested_time != instant for i in late):
        writer.delete_instant(requested)
        raise CompactionPlanError(instant, "a write completed while the plan was made; schedule again")
    table.reload()
    return requested.requested_time


def _check_merger_installed(table: HudiTable, instant: str) -> None:
    """Refuse to plan what no installed merger can execute (the plan would stay pending forever)."""
    try:
        table_merger(table)
    except (MergeStrategyNotFoundError, UnknownComponentError) as e:
        raise CompactionPlanError(instant, f"the table's record merger is not installed here: {e}") from e
