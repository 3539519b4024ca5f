"""The ``clean`` table service: the policy of its options, on the kernel's cleaning machinery.

One :meth:`CleanService.run` does what Apache Hudi's ``clean()`` does after a commit:

1. finish every pending clean (a crashed run), oldest first;
2. if ``max_commits`` commits completed since the last clean, :meth:`CleanService.schedule` a new
   one, which first, with the ``LAZY`` failed-writes policy, rolls back the unfinished writes whose
   heartbeat expired (their instants would otherwise hold the retained history back forever);
3. execute it.

Under optimistic concurrency control planning and completing each hold the table lock (the host
takes it; the lock settings are the session's).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from hudi_framework import table_service_host
from hudi_framework.contracts.clean import CleanOutcome
from hudi_framework.contracts.service import TableService, TableServiceHost
from hudi_services_cleaning.options import CleanServiceOptions
from hudi_services_cleaning.planner import schedule_clean

__all__ = ["CleanService", "CleanServiceOptions"]


def _prepared(host: Any) -> TableServiceHost:
    bound = table_service_host(host)
    bound.prepare()
    return bound


class CleanService(TableService):
    """Cleaning (``clean.requested`` -> ``clean.inflight`` -> ``clean``).

    Every method takes the kernel's ``TableServiceHost``; a ``HudiTable`` is accepted too and bound
    to default settings.
    """

    action = "clean"

    def __init__(self, options: CleanServiceOptions | None = None, *, now: dt.datetime | None = None) -> None:
        """Build the service from its options; ``now`` fixes the clock of ``KEEP_LATEST_BY_HOURS`` (tests)."""
        self.options = options or CleanServiceOptions()
        self._now = now

    def rollback_failed_writes(self, host: Any) -> Sequence[object]:
        """Roll back failed writes as the ``LAZY`` policy does before a clean (nothing under ``EAGER``).

        Returns:
            One result per write rolled back.
        """
        return _prepared(host).rollback_failed_writes()

    def schedule(self, host: Any, instant_time: str | None = None) -> str | None:
        """Roll back expired failed writes (``LAZY``), then write a clean plan.

        Returns:
            The clean instant, or None if no file needs deleting.
        """
        bound = _prepared(host)
        bound.rollback_failed_writes()
        with bound.locked():
            return schedule_clean(bound, self.options, instant_time=instant_time, now=self._now)

    def execute(self, host: Any, instant: str) -> None:
        """Execute the plan of ``instant`` and complete it."""
        self.execute_plan(host, instant)

    def execute_plan(self, host: Any, instant: str) -> CleanOutcome:
        """Execute the plan of ``instant`` and return what it deleted."""
        return _prepared(host).execute_clean(instant)

    def run(self, host: Any, *, force: bool = False) -> list[CleanOutcome]:
        """Finish pending cleans, then, if due, :meth:`schedule` a clean (after the ``LAZY`` rollback) and execute it.

        Under ``EAGER`` the failed writes are the next writer's, but what is safe to remove under any
        policy (leftovers of completed writes, half-written metadata files) goes first; a writer's
        inline clean skips that, as the writer swept when it started.

        Args:
            host: The table, as the kernel hands it to the service.
            force: Plan a clean even if fewer than ``max_commits`` commits completed since the last one.

        Returns:
            One result per clean completed (pending ones first).
        """
        bound = _prepared(host)
        if not bound.lazy_failed_writes:
            bound.sweep_leftovers()
        results = [self.execute_plan(bound, instant) for instant in bound.pending_cleans()]
        bound.reload()
        if force or bound.commits_since_last_clean() >= self.options.max_commits:
            instant = self.schedule(bound)
            if instant is not None:
                results.append(self.execute_plan(bound, instant))
        return results
