"""Running the Spark job that writes data files, and making sure none of its tasks outlives it.

When a job fails, Spark aborts the stage and *asks* its other running tasks to stop; the call that
started the job returns at once. A task still running could write a file after the driver's
rollback listed the markers, leaving an orphan. Speculative duplicates of successful tasks are the
same problem after a success. :func:`isolated_job` therefore runs the job in its own job group and,
on exit (success or failure), cancels the group and waits until the status tracker reports no
active task in any of its stages; only then does the caller commit or roll back.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pyspark import SparkContext

__all__ = ["active_tasks", "isolated_job"]

_GROUP_PROPERTIES: Final = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")
_POLL_SECONDS: Final = 0.05


def active_tasks(sc: SparkContext, group: str) -> int:
    """Tasks of the group's jobs that are still running (as far as the status tracker knows)."""
    tracker = sc.statusTracker()
    active = 0
    for job_id in tracker.getJobIdsForGroup(group):
        job = tracker.getJobInfo(job_id)
        if job is None:
            continue
        for stage_id in job.stageIds:
            stage = tracker.getStageInfo(stage_id)
            if stage is not None:
                active += stage.numActiveTasks
    return active


@contextmanager
def isolated_job(sc: SparkContext, description: str, *, settle_timeout_s: float = 120.0) -> Iterator[str]:
    """Run the jobs started inside the block in a fresh job group; on exit, stop and await its tasks.

    The caller's job group (if any) is restored afterwards.

    Args:
        sc: The Spark context.
        description: Shown in Spark's UI and logs.
        settle_timeout_s: How long to wait for cancelled tasks to end.

    Yields:
        The job group id.

    Raises:
        TimeoutError: Tasks were still running after ``settle_timeout_s`` (raised on exit only
            when the block itself succeeded; the caller must not commit then).
    """
    group = f"hudi-fw-{uuid.uuid4().hex}"
    previous = {key: sc.getLocalProperty(key) for key in _GROUP_PROPERTIES}
    sc.setJobGroup(group, description, interruptOnCancel=True)
    failed = True
    try:
        yield group
        failed = False
    finally:
        try:
            sc.cancelJobGroup(group)
            deadline = time.monotonic() + settle_timeout_s
            while active_tasks(sc, group) and time.monotonic() < deadline:
                time.sleep(_POLL_SECONDS)
            if not failed and active_tasks(sc, group):
                raise TimeoutError(f"tasks of Spark job group {group} still run after {settle_timeout_s:g}s")
        finally:
            for key, value in previous.items():
                sc.setLocalProperty(key, value)  # type: ignore[arg-type]  # None removes the property
