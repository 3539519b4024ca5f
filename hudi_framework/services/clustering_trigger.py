"""When clustering is due after a write (``hoodie.clustering.inline.max.commits`` / ``async.max.commits``).

Java's ``ClusteringPlanActionExecutor.getPlan``: count the completed commits (commits, delta
commits, replacecommits) after the last clustering instant, pending or completed (all of them when
the table never clustered), and schedule once the count reaches the limit: ``max_commits`` for
inline clustering, ``async_max_commits`` when only scheduling (``schedule_inline``,
``async_enabled``).
"""

from __future__ import annotations

from hudi_framework.config.services import ClusteringSettings
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import WriteOperationType

__all__ = ["clustering_due", "commits_since_clustering", "last_clustering"]


def last_clustering(timeline: Timeline) -> str | None:
    """Requested time of the newest clustering, pending or completed (None if the table never clustered)."""
    found = [i.requested_time for i in timeline.pending_clustering_plans()]
    # Newest first: only the metadata of replacecommits after the last clustering is read.
    for inst in reversed(timeline.completed({Action.REPLACE_COMMIT})):
        if timeline.read_commit_metadata(inst).operation_type == WriteOperationType.CLUSTER.value:
            found.append(inst.requested_time)
            break
    return max(found, default=None)


def commits_since_clustering(timeline: Timeline) -> int:
    """Completed commits requested after the last clustering."""
    since = last_clustering(timeline) or ""
    return sum(1 for i in timeline.commits_timeline() if i.is_completed and i.requested_time > since)


def clustering_due(timeline: Timeline, settings: ClusteringSettings) -> bool:
    """Whether a clustering is to be scheduled now."""
    if settings.inline:
        limit = settings.max_commits
    elif settings.schedule_inline or settings.async_enabled:
        limit = settings.async_max_commits
    else:
        return False
    return commits_since_clustering(timeline) >= limit
