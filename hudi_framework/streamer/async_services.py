"""Table services beside a continuous streamer: the compaction and clustering plans its rounds schedule
are executed in a background thread while the next rounds ingest (Apache Hudi's HoodieStreamer runs
asynchronous compaction and clustering services the same way in continuous mode).

The rounds only schedule (``services.compaction.schedule_inline``, ``services.clustering.async_enabled``);
:class:`AsyncTableServices` executes every pending plan, oldest first, on the engine the rounds
write with (Spark executors on the Spark engine). Commits of both threads hold the table lock
(``write.serialize_commits``), so a compaction's completion and metadata-table sync never interleave
with a round's. Plans never touch what a round writes: a compaction rewrites the slices it planned
(a round's updates of those file groups go to new log files after the plan), and a round updating a
file group under clustering is refused by the clustering update strategy, as in Apache Hudi.

Backpressure: before a round plans, :meth:`AsyncTableServices.wait_for_backlog` waits while more
plans are pending than ``streamer.max_pending_compactions`` / ``max_pending_clustering`` allow.
A failed service stops the streamer (the error is raised in the rounds' thread at its next check),
as Apache Hudi's streamer shuts down when its async compaction fails; the plan stays requested and
the next run executes it again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.task_runner import ServiceTaskRunner
from hudi_framework.errors import TableNotFoundError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.write.service_host import ServiceHost, open_table_service

__all__ = ["AsyncServiceRun", "AsyncTableServices"]

#: How often a wait re-checks a stop signal it cannot be woken by.
_POLL_SECONDS: Final = 0.5


@dataclass(frozen=True, slots=True)
class AsyncServiceRun:
    """One plan the background thread executed.

    Attributes:
        service: ``compaction`` or ``clustering``.
        instant: The plan's instant time.
        seconds: Wall time of the execution.
    """

    service: str
    instant: str
    seconds: float


def _pending_compactions(timeline: Timeline) -> list[str]:
    return sorted(i.requested_time for i in timeline.pending({Action.COMPACTION}))


def _pending_clustering(timeline: Timeline) -> list[str]:
    return sorted(i.requested_time for i in timeline.pending_clustering_plans())


#: The pending plans of each service, oldest first.
_PENDING: Final[Mapping[str, Callable[[Timeline], list[str]]]] = MappingProxyType(
    {"compaction": _pending_compactions, "clustering": _pending_clustering}
)


class AsyncTableServices:
    """A background thread that executes the table's pending compaction and clustering plans.

    Args:
        settings: The streamer's settings (``table.base_path``, ``services.*``, ``streamer.max_pending_*``).
        compaction: Execute compaction plans.
        clustering: Execute clustering plans.
        runner: Where the plans' tasks run (None: the local engine's runner).
        on_run: Called in the background thread after each executed plan.
    """

    def __init__(
        self,
        settings: HudiSettings,
        *,
        compaction: bool,
        clustering: bool,
        runner: ServiceTaskRunner | None = None,
        on_run: Callable[[AsyncServiceRun], None] | None = None,
    ) -> None:
        self._settings = settings
        self._slots = tuple(
            slot for slot, on in (("compaction", compaction), ("clustering", clustering)) if on
        )  # compaction first: Apache Hudi's order, and it frees the ingestion's backpressure soonest
        self._runner = runner
        self._on_run = on_run
        self._cond = threading.Condition()
        self._woken = False
        self._closing = False  # finish what is pending, then end
        self._halting = False  # end after the plan running now
        self._failure: BaseException | None = None
        self._thread: threading.Thread | None = None
        self.runs: list[AsyncServiceRun] = []

    def start(self) -> None:
        """Start the thread (a daemon: a second stop signal ends the process without waiting for it);
        plans pending from an earlier run are executed first."""
        self._thread = threading.Thread(target=self._main, name="hudi-streamer-services", daemon=True)
        self._thread.start()
        self.wake()

    def wake(self) -> None:
        """A round committed: new plans may be pending."""
        with self._cond:
            self._woken = True
            self._cond.notify_all()

    def raise_failure(self) -> None:
        """Raise the error a service failed with, if one did."""
        with self._cond:
            failure = self._failure
        if failure is not None:
            raise failure

    def wait_for_backlog(self, table: HudiTable, stopped: Callable[[], bool]) -> None:
        """Wait while more compaction or clustering plans are pending than the streamer allows.

        Raises:
            HudiError: A service failed meanwhile.
        """
        streamer = self._settings.streamer
        limits = {"compaction": streamer.max_pending_compactions, "clustering": streamer.max_pending_clustering}
        while not stopped():
            self.raise_failure()
            timeline = table.reload().timeline
            if all(len(_PENDING[slot](timeline)) < limits[slot] for slot in self._slots):
                return
            with self._cond:
                self._woken = True
                self._cond.notify_all()
                self._cond.wait(_POLL_SECONDS)

    def close(self, *, drain: bool, wait: bool = True) -> None:
        """End the thread: with ``drain``, after every pending plan ran; else after the running one.

        Args:
            drain: Execute every pending plan first.
            wait: Wait for the thread; False when the run is being torn down (an error, a second
                signal): the daemon thread dies with the process and its plan's attempt is rolled
                back and run again by the next run, as after a crash.

        Raises:
            HudiError: A service failed (``drain``: also while draining).
        """
        with self._cond:
            if drain:
                self._closing = True
            else:
                self._halting = True
            self._cond.notify_all()
        if self._thread is not None and wait:
            self._thread.join()
        if drain:
            self.raise_failure()

    def _main(self) -> None:
        try:
            while True:
                with self._cond:
                    while not (self._woken or self._closing or self._halting):
                        self._cond.wait()
                    if self._halting:
                        return
                    self._woken = False
                    closing = self._closing
                ran = self._run_pending()
                if closing and not ran:
                    return
        except BaseException as e:  # handed to the rounds' thread; the thread ends
            with self._cond:
                self._failure = e
                self._cond.notify_all()

    def _run_pending(self) -> bool:
        """Execute every plan pending now (oldest first per service); True if any ran."""
        settings = self._settings
        try:
            table = HudiTable.open(settings.table.base_path or "", settings=settings)
        except TableNotFoundError:  # the first round has not created it yet
            return False
        ran = False
        for slot in self._slots:
            service, _ = open_table_service(table, settings, slot)
            host = ServiceHost(table, settings, runner=self._runner)
            for instant in _PENDING[slot](table.reload().timeline):
                with self._cond:
                    if self._halting:
                        return ran
                started = time.perf_counter()
                service.execute(host, instant)
                run = AsyncServiceRun(slot, instant, time.perf_counter() - started)
                with self._cond:
                    self.runs.append(run)
                    self._cond.notify_all()
                if self._on_run is not None:
                    self._on_run(run)
                ran = True
        return ran
