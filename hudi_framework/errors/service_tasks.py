"""Errors of running a table service's independent tasks (in process, a process pool, Spark executors)."""

from __future__ import annotations

from hudi_framework.errors.services import TableServiceError

__all__ = ["ServiceTaskError", "ServiceWorkerLostError"]


class ServiceTaskError(TableServiceError):
    """A service task failed with an error that is not one of the project's own.

    The project's own errors raised by a task reach the caller as themselves; anything else (an
    ``OSError``, a bug) is reported as this error, naming the task.

    Attributes:
        runner: The runner's name (``in-process``, ``process-pool``, ``spark``).
        task_index: Position of the failed task in the list handed to the runner (None: unknown).
        reason: The task's error, as ``ClassName: message``.
    """

    def __init__(self, runner: str, task_index: int | None, reason: str) -> None:
        self.runner = runner
        self.task_index = task_index
        self.reason = reason
        which = f"task {task_index}" if task_index is not None else "a task"
        super().__init__(f"{which} of the {runner} service runner failed: {reason}")


class ServiceWorkerLostError(ServiceTaskError):
    """A worker process of the service runner died (killed, out of memory) before its task finished."""
