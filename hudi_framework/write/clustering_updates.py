"""Writers and pending clustering (``hoodie.clustering.updates.strategy``).

A pending clustering rewrites its input file groups from the slices it planned and then replaces
them; anything a later write puts into those file groups would be dropped when it completes. So,
as Apache Hudi does, a write never picks such a file group as a small file for its inserts
(``UpsertPartitioner.filterSmallFilesInClustering``), and an update or delete of a row stored in one
is refused with :class:`~hudi_framework.errors.ClusteringUpdateError` before anything is written
(``SparkRejectUpdateStrategy``, the default and the only strategy here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from hudi_framework.errors import ClusteringUpdateError
from hudi_framework.timeline.timeline import Timeline

__all__ = ["clustering_file_groups", "reject_clustering_updates"]


def clustering_file_groups(timeline: Timeline) -> dict[tuple[str, str], str]:
    """(partition, file id) -> the pending clustering instant whose plan rewrites that file group."""
    out: dict[tuple[str, str], str] = {}
    for inst, plan in timeline.pending_clustering_plans().items():
        for group in plan.get("inputGroups") or ():
            for info in group.get("slices") or ():
                if info.get("fileId"):
                    out[(info.get("partitionPath") or "", info["fileId"])] = inst.requested_time
    return out


def reject_clustering_updates(located: Iterable[tuple[str, str]], clustering: Mapping[tuple[str, str], str]) -> None:
    """Refuse a write whose updates or deletes land in file groups under pending clustering.

    Args:
        located: (partition, file id) of every file group the write updates or deletes rows in.
        clustering: From :func:`clustering_file_groups`.

    Raises:
        ClusteringUpdateError: Naming the (first) clustering instant and its file groups the write touches.
    """
    if not clustering:
        return
    hit = sorted({fg for fg in located if fg in clustering})
    if not hit:
        return
    instant = min(clustering[fg] for fg in hit)
    raise ClusteringUpdateError(instant, [f"{p}/{f}" if p else f for p, f in hit if clustering[(p, f)] == instant])
