"""The table service contract (compaction, cleaning, clustering).

A table service plans work as a requested instant (:meth:`TableService.schedule`) and executes it
later (:meth:`TableService.execute`). The split of work:

* the **service** (a plugin) owns the strategy and its options: which file slices a compaction
  plans, which files a clean deletes, when it is due. Its options are its own pydantic model of
  plain values, built from the settings section of the service (``services.compaction``,
  ``services.clean``: the fields the kernel does not read itself);
* the **kernel** owns the machinery and hands it over as a :class:`TableServiceHost`, bound to one
  table and the session's settings: timeline facts, file listings, plan files, slice merging,
  base-file writing, completing instants, the table lock. It also decides *when* a service runs
  after a commit (the triggers: ``services.compaction.inline``, ``max_delta_commits``...,
  ``services.clean.automatic``, ``max_commits``).

The kernel looks services up by the name its settings give (``services.compaction.service``,
``services.clean.service``), so another plugin can replace a built-in one on the same contract.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager

from hudi_framework.contracts.clean import CleanHost
from hudi_framework.contracts.clustering import ClusteringHost
from hudi_framework.contracts.compaction import CompactionHost
from hudi_framework.contracts.task_runner import InProcessRunner, ServiceTaskRunner

__all__ = ["TableService", "TableServiceHost"]


class TableServiceHost(CompactionHost, CleanHost, ClusteringHost):
    """The kernel's side of one table for a service run (every service's part of it)."""

    @property
    @abstractmethod
    def base_uri(self) -> str:
        """The table's base URI (for messages)."""

    @abstractmethod
    def prepare(self) -> None:
        """Make the table ready for a service run: a metadata table this project does not maintain is disabled.

        Services write instants and delete files a metadata table would not know about (format
        section 7), so each service call starts here.
        """

    @abstractmethod
    def reload(self) -> None:
        """Re-read the table's config and timeline (after the service or another writer changed them)."""

    @abstractmethod
    def locked(self) -> AbstractContextManager[None]:
        """Hold the table lock while planning under optimistic concurrency control (a no-op otherwise)."""

    @property
    def task_runner(self) -> ServiceTaskRunner:
        """Where the service's independent per-file-group tasks run: the engine of the job that
        started it (Spark executors, the local engine's process pool or the calling process); a host
        that does not say runs them in process."""
        return InProcessRunner()


__all__ = ["TableService"]


class TableService(ABC):
    """A service that plans work as a requested instant and executes it later."""

    #: Timeline action the service creates (``compaction``, ``clean``...).
    action: str = ""

    @abstractmethod
    def schedule(self, host: TableServiceHost, instant_time: str | None = None) -> str | None:
        """Plan work on the host's table; return the requested instant, or None if there is nothing to do.

        Args:
            host: The kernel's side of the table.
            instant_time: The instant to plan at; a new time after every instant by default.
        """

    @abstractmethod
    def execute(self, host: TableServiceHost, instant: str) -> None:
        """Run the plan of ``instant`` and complete it."""
