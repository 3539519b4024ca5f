"""When inline compaction is due (``hoodie.compact.inline.trigger.strategy``).

Java's ``ScheduleCompactionActionExecutor.needCompact``: count the completed delta commits since the
last compaction (or since the first delta commit when the table never compacted) and the seconds
elapsed since that instant, then compare them with ``max_delta_commits`` / ``max_delta_seconds`` as
the trigger strategy says. ``NUM_COMMITS_AFTER_LAST_REQUEST`` counts from the last *scheduled*
compaction, pending or not, so a pending plan does not make every later write schedule another.
"""

from __future__ import annotations

from dataclasses import dataclass

from hudi_framework.config.services import CompactionSettings
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.instant_time import parse_instant_time
from hudi_framework.timeline.naming import LAYOUT_V1
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import CompactionTriggerStrategy


@dataclass(frozen=True, slots=True)
class DeltaCommitsSince:
    """Delta commits since the last compaction.

    Attributes:
        count: Completed delta commits after ``since``.
        since: Requested time of the last compaction, or of the first delta commit if none.
    """

    count: int
    since: str


def _last_compaction(timeline: Timeline, *, include_pending: bool) -> Instant | None:
    # On a merge-on-read table only compaction completes as a commit.
    found = [
        i
        for i in timeline.by_action(Action.COMMIT)
        if i.is_completed or (include_pending and i.action is Action.COMPACTION)
    ]
    return found[-1] if found else None


def delta_commits_since_compaction(timeline: Timeline, *, after_last_request: bool = False) -> DeltaCommitsSince | None:
    """Count completed delta commits since the last compaction (Java ``CompactionUtils``).

    Args:
        timeline: The table's timeline.
        after_last_request: Count from the last scheduled compaction, pending or completed.

    Returns:
        The count and its starting instant; None when the table has no delta commit at all.
    """
    deltas = timeline.completed({Action.DELTA_COMMIT})
    last = _last_compaction(timeline, include_pending=after_last_request)
    if last is None:
        return DeltaCommitsSince(len(deltas), deltas[0].requested_time) if deltas else None
    t = last.requested_time
    if timeline.layout_version == LAYOUT_V1:
        count = sum(1 for d in deltas if d.requested_time > t)
    else:
        # Layout 2: a delta commit that started before the compaction but finished after it wrote
        # its log files into the compaction's new slice, so it counts (completion-time order).
        count = sum(1 for d in deltas if d.requested_time != t and (d.completion_time or d.requested_time) > t)
    return DeltaCommitsSince(count, t)


def _seconds_between(earlier: str, later: str) -> float:
    return (parse_instant_time(later) - parse_instant_time(earlier)).total_seconds()


def compaction_due(timeline: Timeline, settings: CompactionSettings, now_instant: str) -> bool:
    """Whether the trigger strategy asks for a compaction now.

    Args:
        timeline: The table's timeline.
        settings: ``services.compaction``.
        now_instant: The current instant time (the time the compaction would be scheduled at).
    """
    strategy = settings.trigger_strategy
    info = delta_commits_since_compaction(
        timeline, after_last_request=strategy is CompactionTriggerStrategy.NUM_COMMITS_AFTER_LAST_REQUEST
    )
    if info is None:
        return False
    by_num = info.count >= settings.max_delta_commits
    by_time = _seconds_between(info.since, now_instant) >= settings.max_delta_seconds
    if strategy in (CompactionTriggerStrategy.NUM_COMMITS, CompactionTriggerStrategy.NUM_COMMITS_AFTER_LAST_REQUEST):
        return by_num
    if strategy is CompactionTriggerStrategy.TIME_ELAPSED:
        return by_time
    if strategy is CompactionTriggerStrategy.NUM_OR_TIME:
        return by_num or by_time
    return by_num and by_time
