"""Table service tasks in Spark executors: the runner a Spark writer or job hands its services.

``map(fn, tasks)`` is one Spark job: ``parallelize(tasks, n).map(fn).collect()``, one Spark task
per service task (a compaction operation, a partition's deletes) up to :data:`TASKS_PER_CORE` per
core of the session (``defaultParallelism``); beyond that each Spark task runs a contiguous run of
service tasks in turn (a Spark task costs tens of milliseconds of scheduling and hand-off to a
Python worker, as much as a small compaction operation). Python workers rebuild storage and
components from the task's ``WorkerSpec`` (the executors' ``PYTHONPATH``
and plugins are arranged as for writes, :func:`hudi_framework.spark.session.spark_session`). The
job runs in its own job group (:func:`~hudi_framework.spark.job_group.isolated_job`): on a failure
no task still runs when the caller rolls back.

Errors: a task's :class:`~hudi_framework.errors.HudiError` reaches the driver as its own class
(:mod:`~hudi_framework.spark.task_errors`), any other exception as
:class:`~hudi_framework.errors.ServiceTaskError` naming the task. A lost executor's task is retried
by Spark (``spark.task.maxFailures``; a task rewrites the same file names, so a retry is
idempotent); when Spark gives up, the failure is a ``ServiceTaskError``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Final, TypeVar

from hudi_framework.contracts.task_runner import ServiceTaskRunner
from hudi_framework.errors import HudiError, ServiceTaskError
from hudi_framework.spark.job_group import isolated_job
from hudi_framework.spark.task_errors import CarriedTaskError, typed_task_errors

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["TASKS_PER_CORE", "SparkTaskRunner"]

T = TypeVar("T")
R = TypeVar("R")

_NAME = "spark"
#: Spark tasks per core of the session at most (enough for Spark to balance uneven service tasks).
TASKS_PER_CORE: Final = 4


def _run(fn: Callable[[T], R], item: tuple[int, T]) -> tuple[int, R]:
    """In the executor: ``fn(task)``, its error carried to the driver typed."""
    index, task = item
    try:
        return index, fn(task)
    except HudiError as e:
        raise CarriedTaskError.carrying(e) from e
    except Exception as e:
        raise CarriedTaskError.carrying(ServiceTaskError(_NAME, index, f"{type(e).__name__}: {e}")) from e


class SparkTaskRunner(ServiceTaskRunner):
    """Runs service tasks in the session's executors, one Spark task each.

    Args:
        spark: The session of the writer or job that started the service.
    """

    name = _NAME

    def __init__(self, spark: SparkSession) -> None:
        self.spark = spark

    def map(
        self, fn: Callable[[T], R], tasks: Sequence[T], *, work_bytes: int | None = None, label: str = ""
    ) -> list[R]:
        """Run every task in an executor; results in task order."""
        if not tasks:
            return []
        sc = self.spark.sparkContext
        slices = min(len(tasks), TASKS_PER_CORE * max(1, sc.defaultParallelism))
        rdd = sc.parallelize(list(enumerate(tasks)), slices).map(partial(_run, fn))
        try:
            with typed_task_errors(), isolated_job(sc, f"hudi {label or 'service tasks'}"):
                collected = rdd.collect()
        except HudiError:
            raise
        except Exception as e:  # Spark gave up on a task without a carried error (a lost worker)
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ServiceTaskError(self.name, None, first) from e
        out = [result for _, result in sorted(collected, key=lambda pair: pair[0])]
        if len(out) != len(tasks):
            raise ServiceTaskError(self.name, None, f"{len(out)} results for {len(tasks)} tasks")
        return out
