"""The earliest commit a clean retains history from (Java ``CleanerUtils.getEarliestCommitToRetain``).

* ``KEEP_LATEST_COMMITS``: with more than ``commits_retained`` completed commits, the
  ``commits_retained``-th newest one. A pending write, compaction or clustering older than that
  caps it: the retained commit is then the newest completed one before the earliest pending
  instant, so nothing a pending instant may still need is ever cleaned.
* ``KEEP_LATEST_BY_HOURS``: the oldest completed commit requested at or after *now* minus
  ``hours_retained``, in the timeline's time zone.
* ``KEEP_LATEST_FILE_VERSIONS``: none (that policy counts slices, not commits).

"Commits" are the completed instants of the commits timeline: commit, deltacommit, replacecommit
(compaction and clustering complete as those).
"""

from __future__ import annotations

import datetime as dt

from hudi_framework.config.services import CleanSettings
from hudi_framework.timeline.instant import Instant
from hudi_framework.timeline.instant_time import datetime_to_instant_time
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.vocabulary import CleanerPolicy, TimelineTimezone

__all__ = ["earliest_commit_to_retain", "hours_cutoff"]


def hours_cutoff(now: dt.datetime, hours: int, timezone: TimelineTimezone) -> str:
    """The instant time ``hours`` before ``now`` (an aware datetime), in the timeline time zone."""
    return datetime_to_instant_time(now - dt.timedelta(hours=hours), timezone)


def earliest_commit_to_retain(
    timeline: Timeline, settings: CleanSettings, *, now: dt.datetime | None = None
) -> Instant | None:
    """The earliest completed commit whose file slices the policy keeps, or None.

    Args:
        timeline: The table's timeline.
        settings: ``services.clean``.
        now: The current time (aware), for ``KEEP_LATEST_BY_HOURS``; the wall clock by default.
    """
    completed = timeline.commits_timeline()
    if settings.policy is CleanerPolicy.KEEP_LATEST_COMMITS:
        retained = settings.commits_retained
        if len(completed) <= retained:
            return None
        nth = completed[len(completed) - retained]
        pending = [i for i in timeline.commits_timeline(include_pending=True) if i.is_pending]
        if pending and nth.requested_time > pending[0].requested_time:
            before = [c for c in completed if c.requested_time < pending[0].requested_time]
            return before[-1] if before else None
        return nth
    if settings.policy is CleanerPolicy.KEEP_LATEST_BY_HOURS:
        moment = now if now is not None else dt.datetime.now(dt.UTC)
        cutoff = hours_cutoff(moment, settings.hours_retained, timeline.timezone)
        return next((c for c in completed if c.requested_time >= cutoff), None)
    return None
