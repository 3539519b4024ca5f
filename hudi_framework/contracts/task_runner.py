"""Running a table service's independent tasks on the engine of the job that started it.

A service (compaction, cleaning, clustering) plans on the driver, then has many independent pieces
of work: one per file slice to compact, per partition to clean, per group to cluster. It hands them
to a :class:`ServiceTaskRunner` as ``runner.map(fn, tasks)`` and gets the results back in order,
then commits on the driver. The kernel picks the runner from the engine of the job: in process,
a process pool (the local engine) or Spark executors (``SparkWriteClient``, Spark jobs).

What crosses the boundary, so that every runner can run the same call:

* ``fn`` is a module-level function (picklable by reference);
* each task is a small picklable description (a plan operation plus how to rebuild the storage
  and components, e.g. the kernel's ``WorkerSpec``): never a table, a plugin manager, a storage
  client or a session;
* each result is small and picklable (a write stat, a partition's delete result).

Errors: a task raising one of the project's errors (:class:`~hudi_framework.errors.HudiError`)
makes ``map`` raise that error, as its own class; any other exception is reported as
:class:`~hudi_framework.errors.ServiceTaskError` naming the task; a worker process that died as
:class:`~hudi_framework.errors.ServiceWorkerLostError`. A failed ``map`` has no partial result:
the service rolls its instant back as it would after an in-process failure.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import TypeVar

from hudi_framework.errors import HudiError, ServiceTaskError

__all__ = ["InProcessRunner", "ServiceTaskRunner"]

T = TypeVar("T")
R = TypeVar("R")


class ServiceTaskRunner(ABC):
    """Runs independent tasks of a table service and returns their results in task order."""

    #: Shown in errors and logs (``in-process``, ``process-pool``, ``spark``).
    name: str = ""

    @abstractmethod
    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], *, work_bytes: int | None = None, label: str = ""
    ) -> list[R]:
        """``[fn(t) for t in tasks]``, run where this runner runs tasks.

        Args:
            fn: A module-level function (runners that leave the process pickle it by reference).
            tasks: Picklable task descriptions.
            work_bytes: Bytes the tasks read in total (None: unknown); a runner may run small
                work in process, where starting workers would cost more than it saves.
            label: What the tasks are (``compaction 20260101``), for job names and logs.

        Raises:
            HudiError: A task raised it (re-raised as its own class).
            ServiceTaskError: A task raised another exception.
            ServiceWorkerLostError: A worker process died.
        """


class InProcessRunner(ServiceTaskRunner):
    """Runs the tasks one after another in the calling process (no pickling)."""

    name = "in-process"

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], *, work_bytes: int | None = None, label: str = ""
    ) -> list[R]:
        """Call ``fn`` on each task in turn."""
        out = []
        for index, task in enumerate(tasks):
            try:
                out.append(fn(task))
            except HudiError:
                raise
            except Exception as e:
                raise ServiceTaskError(self.name, index, f"{type(e).__name__}: {e}") from e
        return out
