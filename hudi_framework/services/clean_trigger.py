"""When a clean is due (``hoodie.clean.trigger.strategy`` ``NUM_COMMITS``, ``hoodie.clean.max.commits``).

Java's ``CleanPlanActionExecutor.needsCleaning``: count the completed commits after the newest
completed commit the last completed clean saw (``lastCompletedCommitTimestamp`` of its metadata),
or every completed commit when the table never cleaned, and clean when the count reaches
``max_commits`` (1 by default: after every commit).
"""

from __future__ import annotations

from hudi_framework.config.services import CleanSettings
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import CleanerPolicy

__all__ = ["clean_due", "commits_since_last_clean", "nothing_to_clean"]


def commits_since_last_clean(timeline: Timeline) -> int:
    """Completed commits (any write action) after the last completed clean's newest commit."""
    commits = timeline.commits_timeline()
    cleans = timeline.completed({Action.CLEAN})
    if cleans:
        data = timeline.read_bytes(cleans[-1])
        if data:
            last = decode_clean_metadata(data, path=timeline.file_key(cleans[-1])).last_completed_commit
            return sum(1 for c in commits if c.requested_time > last)
    return len(commits)


def clean_due(timeline: Timeline, max_commits: int) -> bool:
    """Whether ``max_commits`` commits completed since the last clean."""
    return commits_since_last_clean(timeline) >= max_commits


def nothing_to_clean(timeline: Timeline, settings: CleanSettings) -> bool:
    """True when a clean planned on ``timeline`` surely deletes nothing, decided without listing files.

    ``KEEP_LATEST_COMMITS`` keeps every file slice until more than ``commits_retained`` commits
    completed: with no earliest commit to retain there is nothing old enough (a pending instant only
    moves that commit earlier), so the plan is empty. Other policies need the file listing: False.
    """
    if settings.policy is not CleanerPolicy.KEEP_LATEST_COMMITS:
        return False
    return len(timeline.commits_timeline()) <= settings.commits_retained
