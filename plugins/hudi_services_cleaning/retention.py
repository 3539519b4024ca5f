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

from hudi_framework.contracts.clean import CleanHost, ServiceInstant
from hudi_services_cleaning.options import CleanServiceOptions

__all__ = ["earliest_commit_to_retain"]


def earliest_commit_to_retain(
    host: CleanHost, settings: CleanServiceOptions, *, now: dt.datetime | None = None
) -> ServiceInstant | None:
    """The earliest completed commit whose file slices the policy keeps, or None.

    Args:
        host: The table, as the kernel hands it to the service.
        settings: The service's options.
        now: The current time (aware), for ``KEEP_LATEST_BY_HOURS``; the wall clock by default.
    """
    completed = host.commits()
    if settings.policy == "KEEP_LATEST_COMMITS":
        retained = settings.commits_retained
        if len(completed) <= retained:
            return None
        nth = completed[len(completed) - retained]
        pending = [i for i in host.commits(include_pending=True) if i.is_pending]
        if pending and nth.requested_time > pending[0].requested_time:
            before = [c for c in completed if c.requested_time < pending[0].requested_time]
            return before[-1] if before else None
        return nth
    if settings.policy == "KEEP_LATEST_BY_HOURS":
        moment = now if now is not None else dt.datetime.now(dt.UTC)
        cutoff = host.instant_time_before(moment, settings.hours_retained)
        return next((c for c in completed if c.requested_time >= cutoff), None)
    return None
