"""Run a ``hudi-fw run`` job: create the table if missing, write, apply change batches, read back, verify.

The runner keeps an :class:`~hudi_framework.jobs.model.ExpectedTable` in step with every write and
compares the table read back with it (row count and content checksum). It reports progress to a
:class:`JobObserver` and returns a :class:`~hudi_framework.jobs.result.JobReport`; it prints nothing
itself (:mod:`hudi_framework.jobs.report` renders both).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

import pyarrow as pa

from hudi_framework.config.enums import WriteEngine
from hudi_framework.config.job import JobIngest, OnExistingTable
from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError, IncompatibleTableConfigError, JobError, TableNotFoundError
from hudi_framework.jobs.engine import BatchWriter, open_writer, spark_count, start_spark
from hudi_framework.jobs.generate import sample_rows, step_rng
from hudi_framework.jobs.landing import LandingWriter, landing_directory
from hudi_framework.jobs.model import ExpectedTable, content_checksum
from hudi_framework.jobs.result import JobReport, ReadReport, StepReport
from hudi_framework.jobs.source import SampleSource, open_source
from hudi_framework.jobs.spec import JobPlan, StepPlan, plan_job
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.table.table_config import TableConfig
from hudi_framework.vocabulary import WriteOperation

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["JobObserver", "run_job"]


class JobObserver(Protocol):
    """Receives a job's progress; :mod:`hudi_framework.jobs.report` draws it as progress bars."""

    def job_planned(self, plan: JobPlan) -> None:
        """The job's steps are known; nothing has been written yet."""
        ...

    def status(self, message: str) -> None:
        """Something outside the steps happens (the Spark session starts)."""
        ...

    def step_phase(self, step: StepPlan, phase: int) -> None:
        """``step`` enters ``step.phases[phase]``."""
        ...

    def step_done(self, step: StepPlan, seconds: float) -> None:
        """``step`` finished after ``seconds``."""
        ...


class _Silent:
    def job_planned(self, plan: JobPlan) -> None:
        pass

    def status(self, message: str) -> None:
        pass

    def step_phase(self, step: StepPlan, phase: int) -> None:
        pass

    def step_done(self, step: StepPlan, seconds: float) -> None:
        pass


def run_job(
    settings: HudiSettings, *, spark: SparkSession | None = None, observer: JobObserver | None = None
) -> JobReport:
    """Run the job ``settings.job`` describes on the table the other sections describe.

    Args:
        settings: All settings: ``table`` (base path, name, keys), ``write`` (engine, sizing),
            ``index``, ``merger``, ``storage`` and ``job``.
        spark: A session for the Spark engine; when None and ``write.engine`` is ``spark``, one is
            started with ``job.spark_master`` and ``job.spark_conf`` and stopped at the end. A given
            session is never stopped.
        observer: Receives progress.

    Returns:
        What the job did. Check :attr:`JobReport.verified`: a mismatch is reported, not raised.

    Raises:
        ConfigError: The base path or table name is missing.
        JobError: The source does not fit the table, or the table has commits and
            ``job.on_existing_table`` is ``fail``.
        IncompatibleTableConfigError: A table exists at the base path with other keys or type.
    """
    started = time.perf_counter()
    watcher: JobObserver = observer or _Silent()
    if not settings.table.base_path:
        raise ConfigError("no base path: set table.base_path in the config or pass --path")
    config = table_config_from_settings(settings)
    source = open_source(settings.job, config)
    table, created = _open_or_create(settings, config, source.schema)
    has_commits = table.latest_commit() is not None
    if has_commits and settings.job.on_existing_table is OnExistingTable.FAIL:
        raise JobError(f"table {config.name!r} at {table.base_uri} already has commits (job.on_existing_table = fail)")
    plan = plan_job(settings, overwrite_existing=has_commits)
    watcher.job_planned(plan)
    session, owned = (spark, None) if plan.engine is WriteEngine.SPARK else (None, None)
    if plan.engine is WriteEngine.SPARK and session is None:
        watcher.status(f"starting a Spark session on {settings.job.spark_master}")
        session = owned = start_spark(settings.job.spark_master, settings.job.spark_conf)
    try:
        master = session.sparkContext.master if session is not None else None
        run = _Run(settings, plan, table, source, session, watcher)
        steps, read = run.execute()
    finally:
        if owned is not None:
            owned.stop()
    return JobReport(
        table_name=config.name,
        base_path=table.base_uri,
        table_type=config.table_type.value,
        engine=plan.engine,
        spark_master=master,
        source=plan.source_name,
        created=created,
        steps=steps,
        expected_rows=run.model.num_rows,
        read=read,
        timeline=tuple(table.reload().timeline.instants),
        seconds=time.perf_counter() - started,
    )


def _open_or_create(settings: HudiSettings, config: TableConfig, schema: pa.Schema) -> tuple[HudiTable, bool]:
    base = settings.table.base_path or ""
    try:
        table = HudiTable.open(base, settings=settings)
    except TableNotFoundError:
        return HudiTable.create(base, config, schema=schema, settings=settings), True
    found = table.config
    mine = (config.name, config.table_type, config.record_key_fields, config.partition_fields, config.ordering_fields)
    theirs = (found.name, found.table_type, found.record_key_fields, found.partition_fields, found.ordering_fields)
    if mine != theirs:
        raise IncompatibleTableConfigError(
            f"the table at {table.base_uri} is {found.name!r} ({found.table_type.value}, keys "
            f"{list(found.record_key_fields)}, partitions {list(found.partition_fields)}, ordering "
            f"{list(found.ordering_fields)}); the config describes {config.name!r} ({config.table_type.value}, "
            f"keys {list(config.record_key_fields)}, partitions {list(config.partition_fields)}, ordering "
            f"{list(config.ordering_fields)}): use another --path"
        )
    return table, False


class _Run:
    """The steps of one run, sharing the table, the writer and the expected model."""

    def __init__(
        self,
        settings: HudiSettings,
        plan: JobPlan,
        table: HudiTable,
        source: SampleSource,
        spark: SparkSession | None,
        observer: JobObserver,
    ) -> None:
        self._settings = settings
        self._plan = plan
        self._table = table
        self._source = source
        self._spark = spark
        self._observer = observer
        self._writer: BatchWriter = open_writer(plan.engine, table, settings, spark)
        self._landing: tuple[LandingWriter, bool] | None = None
        if settings.job.ingest is JobIngest.STREAMER:
            directory, temporary = landing_directory(settings)
            self._landing = (LandingWriter(settings, directory, self._writer, spark), temporary)
            self._writer = self._landing[0]
        config = table.config
        self.model = ExpectedTable(source.schema, config.record_key_fields, config.partition_fields)

    def execute(self) -> tuple[tuple[StepReport, ...], ReadReport | None]:
        reports: list[StepReport] = []
        read: ReadReport | None = None
        try:
            for step in self._plan.steps:
                if step.operation is None:
                    read = self._read(step)
                else:
                    reports.append(self._write(step, step.operation))
        finally:
            if self._landing is not None:
                self._landing[0].close(remove=self._landing[1])
        return tuple(reports), read

    def _rows(self, step: StepPlan) -> pa.Table:
        batch = step.batch
        if batch is None:
            return self._source.initial()
        rng = step_rng(self._plan.job.seed, step.index)
        live = self.model.rows
        parts: list[pa.Table] = []
        if step.operation is WriteOperation.DELETE:
            parts.append(sample_rows(rng, live, batch.deletes))
        if batch.updates:
            parts.append(self._source.updates(rng, live, batch.updates))
        if batch.inserts:
            overwrite = step.operation is WriteOperation.INSERT_OVERWRITE
            parts.append(self._source.inserts(rng, batch.inserts, partitions=batch.partitions if overwrite else None))
        rows = pa.concat_tables(parts) if parts else self._source.schema.empty_table()
        if rows.num_rows == 0:
            raise JobError(f"{step.label} has no rows: the table is empty or the source has no rows left to insert")
        return rows

    def _write(self, step: StepPlan, operation: WriteOperation) -> StepReport:
        started = time.perf_counter()
        self._observer.step_phase(step, 0)
        rows = self._rows(step)
        self._observer.step_phase(step, 1)
        result = self._writer.write(rows, operation)
        self.model.apply(operation, rows)
        seconds = time.perf_counter() - started
        self._observer.step_done(step, seconds)
        requested = operation if operation is not result.operation else None
        return StepReport(step.index, step.label, rows.num_rows, result, seconds, requested)

    def _read(self, step: StepPlan) -> ReadReport:
        started = time.perf_counter()
        self._observer.step_phase(step, 0)
        rows = read_table(self._table.reload(), columns=self.model.rows.column_names)
        self._observer.step_phase(step, 1)
        checksum, expected = content_checksum(rows), self.model.checksum()
        spark_rows = None
        if self._spark is not None and len(step.phases) > 2:
            self._observer.step_phase(step, 2)
            # The whole storage section, credentials included: the read's tasks reach the table
            # only through these options (they travel pickled, like the write tasks' settings).
            everything = self._settings.to_spark_options(include_secrets=True)
            options = {k: v for k, v in everything.items() if k != "hoodie.base.path"}
            spark_rows = spark_count(self._spark, self._table.base_uri, options)
        seconds = time.perf_counter() - started
        self._observer.step_done(step, seconds)
        return ReadReport(rows.num_rows, checksum, self.model.num_rows, expected, seconds, spark_rows)
