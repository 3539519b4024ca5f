"""Table service tasks in Spark executors: the runner a Spark writer or job hands its services.

``map(fn, tasks)`` is one Spark job over ``range(n)`` with ``n`` partitions, one ``mapInArrow`` task
each: the service tasks are cut into ``n`` contiguous runs (up to :data:`TASKS_PER_CORE` per core of
the session, ``defaultParallelism``: enough for Spark to balance uneven tasks, while a Spark task
costs tens of milliseconds of scheduling and hand-off to a Python worker, as much as a small
compaction operation). Each run is pickled once on the driver (the job the tasks share is pickled
once per run, not once per task) and unpickled only by the Spark task that runs it; a result comes
back pickled in an Arrow column.

A DataFrame job, not an RDD: Spark forks the Python workers of SQL and RDD jobs from different
daemons, and every other Python job of a session (writes, reads) is a DataFrame job. An RDD job
would start a second daemon on the session's first service run (importing pyarrow and this
project again, 2 s of CPU) and fork workers without the write path's cached components. Python
workers rebuild storage and components from the task's ``WorkerSpec`` (the executors'
``PYTHONPATH`` and plugins are arranged as for writes, :func:`hudi_framework.spark.session.spark_session`).
The job runs in its own job group (:func:`~hudi_framework.spark.job_group.isolated_job`): on a
failure no task still runs when the caller rolls back.

Errors: a task's :class:`~hudi_framework.errors.HudiError` reaches the driver as its own class
(:mod:`~hudi_framework.spark.task_errors`), any other exception as
:class:`~hudi_framework.errors.ServiceTaskError` naming the task. A lost executor's task is retried
by Spark (``spark.task.maxFailures``; a task rewrites the same file names, so a retry is
idempotent); when Spark gives up, the failure is a ``ServiceTaskError``.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Final, TypeVar

import pyarrow as pa

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
#: The Spark tasks' output: each service task's index and its pickled result.
_RESULTS: Final = "index long, result binary"


def _run(fn: Callable[[T], R], index: int, task: T) -> R:
    """In the executor: ``fn(task)``, its error carried to the driver typed."""
    try:
        return fn(task)
    except HudiError as e:
        raise CarriedTaskError.carrying(e) from e
    except Exception as e:
        raise CarriedTaskError.carrying(ServiceTaskError(_NAME, index, f"{type(e).__name__}: {e}")) from e


def _run_runs(fn: Callable[[T], R], runs: Sequence[bytes], ids: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """In the executor: the runs whose numbers arrive in ``ids``, one output batch per run."""
    for batch in ids:
        for run in batch.column(0).to_pylist():
            items: list[tuple[int, T]] = pickle.loads(runs[run])
            results = [pickle.dumps(_run(fn, index, task), protocol=pickle.HIGHEST_PROTOCOL) for index, task in items]
            yield pa.RecordBatch.from_arrays(
                [pa.array([index for index, _ in items], pa.int64()), pa.array(results, pa.binary())],
                names=["index", "result"],
            )


def _cut(tasks: Sequence[T], runs: int) -> list[bytes]:
    """``tasks`` with their indexes in ``runs`` contiguous runs of nearly equal length, each pickled."""
    numbered = list(enumerate(tasks))
    size, extra = divmod(len(numbered), runs)
    out, start = [], 0
    for run in range(runs):
        end = start + size + (1 if run < extra else 0)
        out.append(pickle.dumps(numbered[start:end], protocol=pickle.HIGHEST_PROTOCOL))
        start = end
    return out


class SparkTaskRunner(ServiceTaskRunner):
    """Runs service tasks in the session's executors, a contiguous run of them per Spark task.

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
        runs = _cut(tasks, min(len(tasks), TASKS_PER_CORE * max(1, sc.defaultParallelism)))
        frame = self.spark.range(0, len(runs), numPartitions=len(runs))
        results = frame.mapInArrow(partial(_run_runs, fn, runs), _RESULTS)
        try:
            with typed_task_errors(), isolated_job(sc, f"hudi {label or 'service tasks'}"):
                collected = results.toArrow()
        except HudiError:
            raise
        except Exception as e:  # Spark gave up on a task without a carried error (a lost worker)
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise ServiceTaskError(self.name, None, first) from e
        order = collected.column("index").to_pylist()
        pickled = collected.column("result").to_pylist()
        by_index = sorted(zip(order, pickled, strict=True), key=lambda pair: pair[0])
        out: list[R] = [pickle.loads(result) for _, result in by_index]
        if len(out) != len(tasks):
            raise ServiceTaskError(self.name, None, f"{len(out)} results for {len(tasks)} tasks")
        return out
