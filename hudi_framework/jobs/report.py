"""Rich output of ``hudi-fw run``: a progress bar per step while the job runs, then a summary.

:class:`ProgressObserver` implements :class:`~hudi_framework.jobs.runner.JobObserver`;
:func:`render_report` prints a :class:`~hudi_framework.jobs.result.JobReport`: the writes (instant,
rows in, inserted, updated, deleted, files, seconds), the verified read and the table's timeline.
"""

from __future__ import annotations

from types import TracebackType

from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, SpinnerColumn, TaskID, TextColumn
from rich.table import Table

from hudi_framework.config.enums import WriteEngine
from hudi_framework.console.render import timeline_table
from hudi_framework.jobs.result import JobReport, ReadReport
from hudi_framework.jobs.spec import JobPlan, StepPlan

__all__ = ["ProgressObserver", "read_summary", "render_report", "steps_table"]


class ProgressObserver:
    """Draws one progress bar per job step (a context manager around :class:`rich.progress.Progress`).

    Args:
        console: Where to draw.
    """

    def __init__(self, console: Console) -> None:
        """Prepare the progress display; it starts on ``__enter__``."""
        self._console = console
        self._progress = Progress(
            SpinnerColumn(finished_text="[green]✓[/]"),
            TextColumn("{task.description}"),
            BarColumn(bar_width=24),
            TextColumn("{task.completed:.0f}/{task.total:.0f}"),
            TextColumn("[dim]{task.fields[phase]}[/]"),
            console=console,
        )
        self._tasks: dict[int, TaskID] = {}

    def __enter__(self) -> ProgressObserver:
        """Start drawing."""
        self._progress.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Stop drawing (the last frame stays on screen)."""
        self._progress.stop()

    def job_planned(self, plan: JobPlan) -> None:
        """Print what the job will do and add a (waiting) bar for every step."""
        engine = plan.engine.value + (f" ({plan.job.spark_master})" if plan.engine is WriteEngine.SPARK else "")
        self._console.print(
            f"[bold]hudi-fw run[/]: table [bold]{plan.table_name}[/] at {plan.base_path} · engine {engine} · "
            f"source {plan.source_name}, {plan.job.rows:,} rows · {len(plan.job.batches)} change batches"
        )
        for step in plan.steps:
            description = f"{step.label:<8} {step.operation_name:<16}"
            self._tasks[step.index] = self._progress.add_task(
                description, total=len(step.phases), start=False, phase="waiting"
            )

    def status(self, message: str) -> None:
        """Print ``message`` above the bars."""
        self._console.print(f"[dim]{message}…[/]")

    def step_phase(self, step: StepPlan, phase: int) -> None:
        """Move the step's bar to ``phase``."""
        task = self._tasks[step.index]
        self._progress.start_task(task)
        self._progress.update(task, completed=phase, phase=step.phases[phase])

    def step_done(self, step: StepPlan, seconds: float) -> None:
        """Fill the step's bar."""
        task = self._tasks[step.index]
        self._progress.update(task, completed=len(step.phases), phase=f"done in {seconds:.2f} s")
        self._progress.stop_task(task)


def steps_table(report: JobReport) -> Table:
    """One row per write: operation, instant, row counts, files and time."""
    out = Table(
        title=f"{len(report.steps)} writes to {report.table_name} ({report.table_type}, engine {report.engine.value})",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    out.add_column("step", no_wrap=True)
    out.add_column("operation", overflow="fold")
    out.add_column("instant", no_wrap=True)
    for name in ("rows in", "inserted", "updated", "deleted", "files", "MB", "seconds"):
        out.add_column(name, justify="right", no_wrap=True)
    for step in report.steps:
        out.add_row(
            step.label,
            step.operation,
            step.instant.requested_time,
            f"{step.rows_in:,}",
            f"{step.inserted:,}",
            f"{step.updated:,}",
            f"{step.deleted:,}",
            f"{step.files_written:,}",
            f"{step.bytes_written / 1e6:.1f}",
            f"{step.seconds:.2f}",
        )
    return out


def read_summary(read: ReadReport) -> str:
    """One line: rows and checksum read back against the expected ones, and the verdict."""
    spark = f" · spark.read.format('hudi') counts {read.spark_rows:,}" if read.spark_rows is not None else ""
    verdict = "[green]verified ✓[/]" if read.matches else "[red]MISMATCH ✗[/]"
    return (
        f"read back {read.rows:,} rows (expected {read.expected_rows:,}) · checksum {read.checksum} "
        f"(expected {read.expected_checksum}){spark} in {read.seconds:.2f} s: {verdict}"
    )


def render_report(report: JobReport, console: Console) -> None:
    """Print the summary of a finished job."""
    console.print(steps_table(report))
    if report.read is not None:
        console.print(read_summary(report.read))
    console.print(timeline_table(report.timeline))
    created = "created and " if report.created else ""
    console.print(
        f"[bold]{report.table_name}[/] ({created}written at {report.base_path}): {report.final_rows:,} rows, "
        f"{len(report.timeline)} instants, {report.seconds:.1f} s in total. "
        f"Inspect it with [bold]hudi-fw show table {report.base_path}[/]"
    )
