"""The plan of a ``hudi-fw run`` job: its steps, from typed settings, before anything runs.

The job's settings are the ``[job]`` section (:class:`~hudi_framework.config.job.JobSettings`) plus
the table, write and index sections of the same :class:`~hudi_framework.config.HudiSettings`. The
plan fixes what each step does so a progress display can show every step up front.
"""

from __future__ import annotations

from dataclasses import dataclass

from hudi_framework.config.enums import WriteEngine
from hudi_framework.config.job import JobBatch, JobSettings, JobSource
from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError
from hudi_framework.vocabulary import WriteOperation

__all__ = ["READ_OPERATION", "JobPlan", "StepPlan", "plan_job"]

#: The operation column of the final read-back step.
READ_OPERATION = "snapshot read"


@dataclass(frozen=True, slots=True)
class StepPlan:
    """One step of a job: the initial load, a change batch, or the final read.

    Attributes:
        index: Position in the job (0 is the initial load; the read is last).
        label: Short name shown to users (``load``, ``batch 2``, ``read``).
        operation: The write operation, or None for the read step.
        batch: The configured change batch (None for the load and the read).
        phases: What the step goes through, in order; progress displays count these.
    """

    index: int
    label: str
    operation: WriteOperation | None
    batch: JobBatch | None
    phases: tuple[str, ...]

    @property
    def operation_name(self) -> str:
        """The operation as shown to users."""
        return self.operation.value if self.operation is not None else READ_OPERATION


@dataclass(frozen=True, slots=True)
class JobPlan:
    """What a job will do.

    Attributes:
        base_path: The table's base path or URI.
        table_name: The table's name.
        engine: Where writes run.
        job: The ``[job]`` settings.
        steps: The steps, in order; the last one is the read (or there is none when ``job.verify`` is off).
    """

    base_path: str
    table_name: str
    engine: WriteEngine
    job: JobSettings
    steps: tuple[StepPlan, ...]

    @property
    def source_name(self) -> str:
        """The data source as shown to users."""
        if self.job.source is JobSource.GENERATE:
            return f"generated trips (seed {self.job.seed})"
        return f"{self.job.source.value} {self.job.source_path}"


def _write_phases(engine: WriteEngine) -> tuple[str, ...]:
    return ("prepare rows", f"write ({engine.value})")


def plan_job(settings: HudiSettings, *, overwrite_existing: bool = False) -> JobPlan:
    """Plan the job that ``settings`` describe.

    Args:
        settings: All settings; ``table.base_path`` and ``table.name`` must be set.
        overwrite_existing: The table already has commits, so the initial load replaces its rows
            (``insert_overwrite_table``) instead of using ``job.initial_operation``.

    Returns:
        The plan.

    Raises:
        ConfigError: ``table.base_path`` or ``table.name`` is missing.
    """
    if not settings.table.base_path:
        raise ConfigError("no base path: set table.base_path in the config or pass --path")
    if not settings.table.name:
        raise ConfigError("table.name (hoodie.table.name) is required to run a job")
    job = settings.job
    engine = settings.write.engine
    initial = (
        WriteOperation.INSERT_OVERWRITE_TABLE if overwrite_existing else WriteOperation(job.initial_operation.value)
    )
    steps = [StepPlan(0, "load", initial, None, _write_phases(engine))]
    for number, batch in enumerate(job.batches, start=1):
        steps.append(StepPlan(number, f"batch {number}", batch.operation, batch, _write_phases(engine)))
    if job.verify:
        read_phases = ("read (python)", "verify") + (("count (spark)",) if engine is WriteEngine.SPARK else ())
        steps.append(StepPlan(len(steps), "read", None, None, read_phases))
    return JobPlan(
        base_path=settings.table.base_path,
        table_name=settings.table.name,
        engine=engine,
        job=job,
        steps=tuple(steps),
    )
