"""The local engine's service task runners: a process pool, and the choice between it and the caller's process.

The pool starts its workers with the ``spawn`` method, never ``fork``: the parent may hold threads
(a lock's lease renewal, a thread pool) or a JVM whose state a forked child would inherit half-way.
A spawned worker imports the project afresh (the parent's ``sys.path`` included, so a worktree or
plugin directory on ``PYTHONPATH`` is seen) and rebuilds storage and components from the task's
``WorkerSpec``, as a Spark executor does.

A task's :class:`~hudi_framework.errors.HudiError` comes back as its own class (rebuilt from its
class, ``args`` and attributes; an error class's own ``__init__`` may not accept ``args`` back, so
plain pickling of the exception would fail); any other exception as
:class:`~hudi_framework.errors.ServiceTaskError`, and a worker that died (killed, out of memory) as
:class:`~hudi_framework.errors.ServiceWorkerLostError`. On a failure the tasks not started are
cancelled and the running ones awaited before ``map`` raises, so that no task writes a file after
the caller rolled back. A worker whose parent died (``kill -9`` of the job) exits by itself within
a second instead of waiting for work forever.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any, TypeVar

from hudi_framework.config.services import ServiceExecutionSettings
from hudi_framework.contracts.task_runner import InProcessRunner, ServiceTaskRunner
from hudi_framework.errors import HudiError, ServiceTaskError, ServiceWorkerLostError

__all__ = ["LocalTaskRunner", "ProcessPoolRunner", "usable_cpus"]

T = TypeVar("T")
R = TypeVar("R")


def usable_cpus() -> int:
    """CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class _Failed:
    """A task's error, as the worker sends it back."""

    error_class: type[HudiError] | None
    args: tuple[Any, ...]
    state: dict[str, Any]
    reason: str

    def error(self, runner: str, index: int) -> HudiError:
        if self.error_class is None:
            return ServiceTaskError(runner, index, self.reason)
        rebuilt = self.error_class.__new__(self.error_class)
        rebuilt.args = self.args
        rebuilt.__dict__.update(self.state)
        return rebuilt


def _plain(value: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``value`` that pickle (an error's attributes may hold a live object)."""
    out = {}
    for key, item in value.items():
        try:
            pickle.dumps(item)
        except Exception:
            continue
        out[key] = item
    return out


#: How often a worker checks that the process that started it is alive.
_PARENT_POLL_S = 1.0


def _exit_with_parent(parent: int) -> None:
    """Pool initializer: a daemon thread ends the worker once ``parent`` is gone (re-parented)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="hudi-fw-parent-watch", daemon=True).start()


def _call(fn: Callable[[T], R], task: T) -> R | _Failed:
    """Run in the worker: ``fn(task)``, or its error as plain data."""
    try:
        return fn(task)
    except HudiError as e:
        args = e.args
        try:
            pickle.dumps(args)
        except Exception:
            args = (str(e),)
        return _Failed(type(e), args, _plain(vars(e)), f"{type(e).__name__}: {e}")
    except Exception as e:
        return _Failed(None, (), {}, f"{type(e).__name__}: {e}")


class ProcessPoolRunner(ServiceTaskRunner):
    """Runs the tasks in a pool of spawned worker processes (one pool per ``map``).

    Args:
        workers: Processes, at most one per task.
    """

    name = "process-pool"

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], *, work_bytes: int | None = None, label: str = ""
    ) -> list[R]:
        """Run every task in the pool; results in task order."""
        if not tasks:
            return []
        pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(tasks)),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_exit_with_parent,
            initargs=(os.getpid(),),
        )
        try:
            futures: list[Future[R | _Failed]] = [pool.submit(_call, fn, task) for task in tasks]
            out: list[R] = []
            for index, future in enumerate(futures):
                try:
                    result = future.result()
                except BrokenProcessPool as e:
                    raise ServiceWorkerLostError(
                        self.name, index, f"a worker process died before the task finished ({label or 'tasks'})"
                    ) from e
                except Exception as e:  # the task or its result could not be pickled
                    raise ServiceTaskError(self.name, index, f"{type(e).__name__}: {e}") from e
                if isinstance(result, _Failed):
                    raise result.error(self.name, index)
                out.append(result)
            return out
        finally:
            # On a failure: cancel what has not started, await what runs (nothing writes after we return).
            pool.shutdown(wait=True, cancel_futures=True)


class LocalTaskRunner(ServiceTaskRunner):
    """The local engine's runner: the process pool for work big enough to pay for its workers, else in process.

    The pool is used when there are two tasks or more, ``services.execution.local_workers`` (or the
    usable CPUs) allows two processes or more, and the work is at least
    ``services.execution.local_min_bytes`` (or its size is unknown).

    Args:
        settings: ``services.execution``.
    """

    name = "local"

    def __init__(self, settings: ServiceExecutionSettings | None = None) -> None:
        self.settings = settings or ServiceExecutionSettings()

    def chosen(self, tasks: int, work_bytes: int | None) -> ServiceTaskRunner:
        """The runner ``tasks`` tasks reading ``work_bytes`` bytes (None: unknown) run on."""
        workers = min(self.settings.local_workers or usable_cpus(), tasks)
        small = work_bytes is not None and work_bytes < self.settings.local_min_bytes
        if workers < 2 or small:
            return InProcessRunner()
        return ProcessPoolRunner(workers)

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], *, work_bytes: int | None = None, label: str = ""
    ) -> list[R]:
        """Run the tasks on :meth:`chosen`'s runner."""
        return self.chosen(len(tasks), work_bytes).map(fn, tasks, work_bytes=work_bytes, label=label)
