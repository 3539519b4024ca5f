"""Rich output of ``hudi-fw streamer``: a live status while a round runs, a line per round, a summary.

:class:`StreamerProgress` implements :class:`~hudi_framework.streamer.job.StreamerObserver`;
:func:`render_summary` prints a :class:`~hudi_framework.streamer.job.StreamerReport`.
"""

from __future__ import annotations

from types import TracebackType

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.status import Status
from rich.table import Table

from hudi_framework.streamer.async_services import AsyncServiceRun
from hudi_framework.streamer.job import RoundReport, StreamerReport

__all__ = ["StreamerProgress", "render_summary", "rounds_table"]


def _cp(checkpoint: str | None) -> str:
    return escape(checkpoint) if checkpoint is not None else "(start)"


class StreamerProgress:
    """A spinner naming the round's phase, and one printed line per finished round (a context manager)."""

    def __init__(self, console: Console) -> None:
        """Draw on ``console`` once entered."""
        self._console = console
        self._status: Status = console.status("starting", spinner="dots")

    def __enter__(self) -> StreamerProgress:
        """Start the spinner."""
        self._status.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        """Stop the spinner."""
        self._status.stop()

    def status(self, message: str) -> None:
        """Show ``message`` next to the spinner."""
        self._status.update(escape(message))

    def round_started(self, number: int, resumed_from: str | None) -> None:
        """Planning starts."""
        self._status.update(f"round {number}: planning from checkpoint {_cp(resumed_from)}")

    def round_planned(self, number: int, splits: int) -> None:
        """Reading and writing starts."""
        if splits:
            self._status.update(f"round {number}: reading {splits:,} splits and writing")

    def round_done(self, report: RoundReport) -> None:
        """Print the round's line."""
        head = f"round {report.number}"
        if not report.committed:
            self._console.print(f"[dim]{head}: nothing new after {_cp(report.resumed_from)}[/]")
            self._status.update(f"waiting after round {report.number}")
            return
        services = f" · services: {', '.join(report.services)}" if report.services else ""
        failed = (
            f" · [red]{len(report.post_commit_failures)} post-commit failures[/]" if report.post_commit_failures else ""
        )
        self._console.print(
            f"[green]✓[/] {head}: {report.splits:,} splits · {report.rows:,} rows ({report.inserts:,} inserted, "
            f"{report.updates:,} updated) · commit {report.instant} · checkpoint {_cp(report.checkpoint)} · "
            f"{report.seconds:.2f} s{services}{failed}"
        )
        self._status.update(f"waiting after round {report.number}")

    def service_done(self, run: AsyncServiceRun) -> None:
        """Print the background service's line."""
        self._console.print(f"[cyan]⚙[/] background {run.service} {run.instant} completed in {run.seconds:.2f} s")


def rounds_table(report: StreamerReport) -> Table:
    """One row per round that committed."""
    out = Table(
        title=f"{report.commits} commits to {report.table_name} (engine {report.engine.value})",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    out.add_column("round", justify="right", no_wrap=True)
    out.add_column("instant", no_wrap=True)
    out.add_column("checkpoint", overflow="fold")
    for name in ("splits", "rows", "inserted", "updated", "seconds"):
        out.add_column(name, justify="right", no_wrap=True)
    for r in report.rounds:
        if r.committed:
            out.add_row(
                str(r.number), r.instant, _cp(r.checkpoint), f"{r.splits:,}", f"{r.rows:,}", f"{r.inserts:,}",
                f"{r.updates:,}", f"{r.seconds:.2f}",
            )  # fmt: skip
    return out


def render_summary(report: StreamerReport, console: Console) -> None:
    """Print the summary of a finished run."""
    if report.commits:
        console.print(rounds_table(report))
    rate = report.rows / report.seconds if report.seconds > 0 else 0.0
    console.print(
        f"[bold]{report.table_name}[/] at {report.base_path}: {len(report.rounds)} rounds ({report.stopped_by}), "
        f"{report.commits} commits, {report.rows:,} rows from {escape(report.source)} in {report.seconds:.1f} s "
        f"({rate:,.0f} rows/s)"
    )
    if report.background:
        done = ", ".join(f"{run.service} {run.instant}" for run in report.background)
        console.print(f"background table services: {done}")
