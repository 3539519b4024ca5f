"""Scheduling a clustering: list candidate file slices, let the strategy group them, write the plan.

The strategy (which partitions, which slices, how they are grouped, the execution's parameters) is
the clustering service plugin's :class:`~hudi_framework.contracts.clustering.ClusteringSelector`;
this module is the machinery around it. Candidates are the latest file slices whose file group no
pending compaction, log compaction or clustering holds (Java
``ClusteringPlanStrategy.getFileSlicesEligibleForClustering``). The plan is written as
``T.clustering.requested`` (layout 2) or ``T.replacecommit.requested`` (layout 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from hudi_framework.contracts.clustering import ClusteringSelector, PlannedGroup
from hudi_framework.contracts.compaction import (
    TOTAL_IO_MB,
    TOTAL_IO_READ_MB,
    TOTAL_IO_WRITE_MB,
    TOTAL_LOG_FILES,
    TOTAL_LOG_FILES_SIZE,
)
from hudi_framework.errors import ClusteringPlanError
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clustering_plan import ClusteringGroup, ClusteringPlan, SliceInfo, encode_clustering_plan
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action
from hudi_framework.timeline.naming import LAYOUT_V1
from hudi_framework.write.compaction_scheduler import DEFAULT_MAX_FILE_SIZE, busy_file_groups, timeline_writer

__all__ = ["SliceCandidate", "build_clustering_plan", "schedule_clustering"]

_MB: Final = 1024 * 1024


@dataclass(frozen=True, slots=True)
class SliceCandidate:
    """A latest file slice as a clustering strategy sees it (a contract ``ClusteringCandidate``).

    Attributes:
        file_slice: The slice.
        max_file_size: ``hoodie.parquet.max.file.size``: the size assumed for a slice without base file.
    """

    file_slice: FileSlice
    max_file_size: int = DEFAULT_MAX_FILE_SIZE

    @property
    def partition_path(self) -> str:
        """The file group's partition path."""
        return self.file_slice.partition_path

    @property
    def file_id(self) -> str:
        """The file group's id."""
        return self.file_slice.file_id

    @property
    def base_file_size(self) -> int | None:
        """Bytes of the base file; None without one."""
        base = self.file_slice.base_file
        return (base.size or 0) if base is not None else None

    @property
    def estimated_size(self) -> int:
        """The base file's bytes, or the max file size without one."""
        size = self.base_file_size
        return size if size is not None else self.max_file_size


def _group_metrics(slices: Sequence[SliceCandidate]) -> dict[str, float]:
    """Java ``FileSliceMetricUtils.addFileSliceCommonMetrics`` over a group: bytes summed, then in whole MB."""
    logs = sum(log.size for c in slices for log in c.file_slice.log_files if log.size is not None and log.size >= 0)
    read = sum(c.base_file_size or 0 for c in slices)
    write = sum(c.base_file_size or c.max_file_size for c in slices)
    read_mb, write_mb = (read + logs) // _MB, write // _MB
    return {
        TOTAL_LOG_FILES: float(sum(len(c.file_slice.log_files) for c in slices)),
        TOTAL_IO_MB: float(read_mb + write_mb),
        TOTAL_IO_READ_MB: float(read_mb),
        TOTAL_LOG_FILES_SIZE: float(logs),
        TOTAL_IO_WRITE_MB: float(write_mb),
    }


def _check_schedulable(table: HudiTable) -> None:
    timeline = table.timeline
    if timeline.layout_version == LAYOUT_V1:
        # Table version 6 names new log files after their slice's base instant: a write still in
        # flight could append to a slice the plan rewrites without the plan knowing.
        pending = [i for i in timeline.pending() if i.action in WRITE_ACTIONS and i not in _clustering(table)]
        if pending:
            raise ClusteringPlanError(
                "", f"write {pending[0]} is still in flight; a v6 table clusters only between writes"
            )


def _clustering(table: HudiTable) -> set[object]:
    return set(table.timeline.pending_clustering_plans())


def build_clustering_plan(
    table: HudiTable, strategy: ClusteringSelector, *, max_file_size: int = DEFAULT_MAX_FILE_SIZE
) -> ClusteringPlan | None:
    """The plan a clustering would run, or None when nothing qualifies (nothing is written).

    Args:
        table: The table (its timeline as loaded is used).
        strategy: The clustering service's plan strategy.
        max_file_size: ``hoodie.parquet.max.file.size`` (the size assumed for slices without base file).

    Raises:
        MissingDataFileError: A file of a latest slice is named by the timeline but not in storage.
    """
    partitions = strategy.filter_partitions(table.partitions())
    if not partitions:
        return None
    busy = busy_file_groups(table.timeline)
    view = table.file_system_view(partitions=partitions, check_files=True)
    slices = view.latest_file_slices()
    view.check_files(slices)
    candidates: dict[str, list[SliceCandidate]] = {p: [] for p in partitions}
    for file_slice in slices:
        if file_slice.file_group_id not in busy:
            candidates.setdefault(file_slice.partition_path, []).append(SliceCandidate(file_slice, max_file_size))
    planned: list[PlannedGroup[SliceCandidate]] = strategy.plan_groups(
        MappingProxyType({p: tuple(c) for p, c in candidates.items() if c})
    )
    groups = []
    uri = table.storage.uri
    for group in planned:
        if not group.slices:
            continue
        if len({c.partition_path for c in group.slices}) != 1:
            raise ClusteringPlanError("", "a clustering group must hold file slices of one partition")
        groups.append(
            ClusteringGroup(
                slices=tuple(SliceInfo.of(c.file_slice, uri) for c in group.slices),
                num_output_file_groups=max(1, group.num_output_file_groups),
                metrics=MappingProxyType(_group_metrics(group.slices)),
            )
        )
    if not groups:
        return None
    return ClusteringPlan(
        input_groups=tuple(groups),
        strategy_params=MappingProxyType(dict(strategy.strategy_params())),
        preserve_hoodie_metadata=strategy.preserve_hoodie_metadata,
    )


def schedule_clustering(
    table: HudiTable,
    strategy: ClusteringSelector,
    *,
    instant_time: str | None = None,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
) -> str | None:
    """Plan a clustering and write its requested file.

    Args:
        table: The table.
        strategy: The clustering service's plan strategy.
        instant_time: The clustering instant; a new time after every instant by default.
        max_file_size: ``hoodie.parquet.max.file.size``.

    Returns:
        The clustering instant, or None when no file slice qualifies (nothing is written).

    Raises:
        ClusteringPlanError: The table cannot be clustered now, or a write completed while planning.
        IllegalTransitionError: ``instant_time`` is not newer than every instant on the timeline.
    """
    table.reload()
    _check_schedulable(table)
    writer = timeline_writer(table)
    timeline = table.timeline
    completed_before = {i.requested_time for i in timeline.completed()}
    plan = build_clustering_plan(table, strategy, max_file_size=max_file_size)
    if plan is None:
        return None
    floor = max(filter(None, (timeline.last_requested_time(), timeline.last_completion_time())), default=None)
    instant = instant_time or writer.generator.next(after=floor)
    requested = writer.create_requested(Action.CLUSTERING, instant, encode_clustering_plan(plan))
    # A write that completed while we planned may have added a slice the plan does not name; the
    # clustering would replace its file group without it.
    late = [i for i in writer.timeline().completed() if i.requested_time not in completed_before]
    if late:
        writer.delete_instant(requested)
        raise ClusteringPlanError(instant, "a write completed while the plan was made; schedule again")
    table.reload()
    return requested.requested_time
