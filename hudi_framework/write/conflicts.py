"""Write-write conflicts under optimistic concurrency control.

A write conflicts with another instant when both touch one file group (partition, file id) and
the other one is either

* a commit (of any writer or table service) completed after this write started: its completion
  time is later than this write's requested time, so this write planned against a file slice that
  no longer is the latest; or
* a compaction or clustering scheduled after this write started and still pending: its plan was
  made without this write's files and would silently drop them.

The check runs under the table lock right before the commit (:mod:`hudi_framework.write.transaction`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hudi_framework.errors import WriteConflictError
from hudi_framework.timeline.metadata import ReplaceCommitMetadata

if TYPE_CHECKING:
    from hudi_framework.timeline.instant import Instant
    from hudi_framework.timeline.metadata import WriteStat
    from hudi_framework.timeline.timeline import Timeline

__all__ = ["FileGroup", "WriteBaseline", "check_write_conflicts", "file_groups_of_write", "find_write_conflict"]

#: (partition path, file id)
FileGroup = tuple[str, str]


def file_groups_of_write(
    stats: Iterable[WriteStat], replaced: Mapping[str, Iterable[str]] | None = None
) -> set[FileGroup]:
    """The file groups one write touches: every written file's group and every replaced group."""
    groups = {(s.partition_path or "", s.file_id) for s in stats if s.file_id}
    groups |= {(p, f) for p, ids in (replaced or {}).items() for f in ids}
    return groups


def _committed_groups(timeline: Timeline, instant: Instant) -> set[FileGroup]:
    metadata = timeline.read_commit_metadata(instant)
    groups = file_groups_of_write(metadata.write_stats())
    if isinstance(metadata, ReplaceCommitMetadata):
        groups |= set(metadata.replaced_file_ids())
    return groups


def _plan_groups(plan: Mapping[str, Any], *, clustering: bool) -> set[FileGroup]:
    if clustering:
        slices = [s for g in plan.get("inputGroups") or [] for s in g.get("slices") or []]
    else:
        slices = list(plan.get("operations") or [])
    return {(s.get("partitionPath") or "", s.get("fileId") or "") for s in slices}


@dataclass(frozen=True, slots=True)
class WriteBaseline:
    """What a write planned against: the instants completed, and the plans pending, at that moment.

    A pipeline reads file slices (and tags keys) before it creates its instant, so "since this
    write started" means since that timeline snapshot, not since the instant's requested time.
    """

    completed: frozenset[str]
    pending_plans: frozenset[str]

    @classmethod
    def of(cls, timeline: Timeline) -> WriteBaseline:
        """The baseline of a write planned against ``timeline``."""
        plans = set(timeline.pending_compaction_plans()) | set(timeline.pending_log_compaction_plans())
        plans |= set(timeline.pending_clustering_plans())
        return cls(
            frozenset(i.requested_time for i in timeline.commits_timeline()),
            frozenset(i.requested_time for i in plans),
        )


def _rivals(
    timeline: Timeline, started: str, baseline: WriteBaseline | None
) -> Iterable[tuple[Instant, set[FileGroup] | None]]:
    """(instant, its file groups or None to read them lazily) of every instant that may conflict."""
    for inst in timeline.commits_timeline():
        if inst.requested_time == started:
            continue
        new = inst.requested_time not in baseline.completed if baseline else (inst.completion_time or "") > started
        if new:
            yield inst, None
    plans = [(i, p, False) for i, p in timeline.pending_compaction_plans().items()]
    plans += [(i, p, False) for i, p in timeline.pending_log_compaction_plans().items()]
    plans += [(i, p, True) for i, p in timeline.pending_clustering_plans().items()]
    for inst, plan, clustering in sorted(plans, key=lambda x: x[0].requested_time):
        new = inst.requested_time not in baseline.pending_plans if baseline else inst.requested_time > started
        if new:
            yield inst, _plan_groups(plan, clustering=clustering)


def find_write_conflict(
    timeline: Timeline, instant: str, groups: set[FileGroup], baseline: WriteBaseline | None = None
) -> tuple[Instant, list[FileGroup]] | None:
    """The first instant that conflicts with the write ``instant`` touching ``groups``, and the overlap.

    Args:
        timeline: A fresh timeline, read under the table lock.
        instant: The requested time of the write being committed.
        groups: Its file groups (:func:`file_groups_of_write`).
        baseline: What the write planned against; without one, instants completed (or plans
            scheduled) after ``instant`` was requested count.
    """
    if not groups:
        return None
    for other, other_groups in _rivals(timeline, instant, baseline):
        touched = other_groups if other_groups is not None else _committed_groups(timeline, other)
        overlap = sorted(groups & touched)
        if overlap:
            return other, overlap
    return None


def check_write_conflicts(
    timeline: Timeline, instant: str, groups: set[FileGroup], baseline: WriteBaseline | None = None
) -> None:
    """Raise if the write ``instant`` conflicts (see :func:`find_write_conflict`).

    Raises:
        WriteConflictError: Naming both instants and the shared file groups (``partition/fileId``).
    """
    found = find_write_conflict(timeline, instant, groups, baseline)
    if found is not None:
        other, overlap = found
        raise WriteConflictError(instant, other.requested_time, [f"{p}/{f}" if p else f for p, f in overlap])
