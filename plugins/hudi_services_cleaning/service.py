"""The ``clean`` table service: roll back expired failed writes, plan, execute; configured by ``HudiSettings``.

One :meth:`CleanService.run` does what Apache Hudi's ``clean()`` does after a commit:

1. finish every pending clean (a crashed run), oldest first;
2. if ``max_commits`` commits completed since the last clean, :meth:`CleanService.schedule` a new
   one, which first, with the ``LAZY`` failed-writes policy, rolls back the unfinished writes whose
   heartbeat expired (their instants would otherwise hold the retained history back forever);
3. execute it.

Under optimistic concurrency control planning and completing each hold the table lock.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.service import TableService
from hudi_framework.errors import TableError
from hudi_framework.lock import table_lock
from hudi_framework.services.clean_trigger import clean_due
from hudi_framework.table.metadata_table import disable_metadata_table
from hudi_framework.table.table import HudiTable
from hudi_framework.timeline.instant import Action
from hudi_framework.vocabulary import FailedWritesPolicy
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.failed_writes import rollback_failed_writes, sweep_leftovers
from hudi_framework.write.rollback import RollbackResult
from hudi_framework.write.transaction import timeline_writer
from hudi_services_cleaning.executor import CleanResult, execute_clean
from hudi_services_cleaning.planner import schedule_clean

__all__ = ["CleanService", "CleanServiceOptions"]


class CleanServiceOptions(BaseModel):
    """Options of the ``clean`` service: the session's settings (``services.clean``, ``write``, ``lock``)."""

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)

    settings: HudiSettings = Field(default_factory=HudiSettings)


class CleanService(TableService):
    """Cleaning (``clean.requested`` -> ``clean.inflight`` -> ``clean``)."""

    action = "clean"

    def __init__(self, options: CleanServiceOptions | None = None, *, now: dt.datetime | None = None) -> None:
        """Build the service from its options; ``now`` fixes the clock of ``KEEP_LATEST_BY_HOURS`` (tests)."""
        self.settings = (options or CleanServiceOptions()).settings
        self._now = now

    @staticmethod
    def _table(table: Any) -> HudiTable:
        if not isinstance(table, HudiTable):
            raise TableError(f"cleaning needs a HudiTable, got {type(table).__name__}")
        # Deleted files would stay listed in a metadata table we do not maintain (format section 7).
        if disable_metadata_table(table.storage):
            return table.reload()
        return table

    def _concurrency(self, table: HudiTable) -> WriteConcurrency:
        return WriteConcurrency.from_settings(self.settings, table)

    @contextlib.contextmanager
    def _locked(self, cc: WriteConcurrency) -> Iterator[None]:
        if cc.optimistic and cc.open_lock is not None:
            with table_lock(cc.open_lock(), table=cc.table, policy=cc.lock_policy):
                yield
        else:
            yield

    def rollback_failed_writes(self, table: Any) -> list[RollbackResult]:
        """Roll back failed writes as the ``LAZY`` policy does before a clean (nothing under ``EAGER``).

        Returns:
            One result per write rolled back.
        """
        hudi = self._table(table)
        cc = self._concurrency(hudi)
        if cc.failed_writes is not FailedWritesPolicy.LAZY:
            return []
        writer = timeline_writer(hudi.storage, hudi.config)
        results = rollback_failed_writes(hudi.storage, hudi.config, writer, cc.failed_writes, cc.heartbeat)
        hudi.reload()
        return results

    def schedule(self, table: Any, instant_time: str | None = None) -> str | None:
        """Roll back expired failed writes (``LAZY``), then write a clean plan for ``table``.

        Returns:
            The clean instant, or None if no file needs deleting.
        """
        hudi = self._table(table)
        self.rollback_failed_writes(hudi)
        with self._locked(self._concurrency(hudi)):
            return schedule_clean(hudi, self.settings.services.clean, instant_time=instant_time, now=self._now)

    def execute(self, table: Any, instant: str) -> None:
        """Execute the plan of ``instant`` and complete it."""
        self.execute_plan(table, instant)

    def execute_plan(self, table: Any, instant: str) -> CleanResult:
        """Execute the plan of ``instant`` and return what it deleted."""
        hudi = self._table(table)
        return execute_clean(hudi, instant, self._concurrency(hudi))

    def run(self, table: Any, *, force: bool = False) -> list[CleanResult]:
        """Finish pending cleans, then, if due, :meth:`schedule` a clean (after the ``LAZY`` rollback) and execute it.

        Under ``EAGER`` the failed writes are the next writer's, but what is safe to remove under any
        policy (leftovers of completed writes, half-written metadata files) goes first; a writer's
        inline clean skips that, as the writer swept when it started.

        Args:
            table: The table.
            force: Plan a clean even if fewer than ``max_commits`` commits completed since the last one.

        Returns:
            One result per clean completed (pending ones first).
        """
        hudi = self._table(table)
        if self._concurrency(hudi).failed_writes is not FailedWritesPolicy.LAZY:
            sweep_leftovers(hudi.storage, hudi.reload().timeline)
        results = [self.execute_plan(hudi, i.requested_time) for i in hudi.reload().timeline.pending({Action.CLEAN})]
        if force or clean_due(hudi.reload().timeline, self.settings.services.clean.max_commits):
            instant = self.schedule(hudi)
            if instant is not None:
                results.append(self.execute_plan(hudi, instant))
        return results
