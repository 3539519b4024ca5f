"""Starting campaign children: forks of a forkserver that imported the kernel once.

A child that outlives its timeout is SIGKILLed by us (its own process) and reported as hung.
"""

from __future__ import annotations

import multiprocessing
import signal
import time
from dataclasses import dataclass, field
from typing import Any, Final

from tests.faults.campaign.worker import Step, child_main

#: Seconds a step may take before it counts as hung.
STEP_TIMEOUT_S: Final = 180.0
_PRELOAD: Final = ["tests.faults.campaign.zygote"]


@dataclass
class StepReport:
    """What a child did.

    Attributes:
        exitcode: The child's exit code (``-9``: killed).
        killed_at: ``(point number, label)`` when the hook killed it.
        built: The ``rollback_failed`` template reached its deliberate kill.
        points: Storage calls counted.
        labels: ``(label, mutating)`` of every point (record mode).
        injected: S3 faults injected, described.
        error: ``type``, ``message``, ``traceback``, ``commit_state_unknown`` when the step raised.
        hung: The child outlived the timeout.
    """

    exitcode: int | None = None
    killed_at: tuple[int, str] | None = None
    built: bool = False
    points: int = 0
    labels: list[tuple[str, bool]] = field(default_factory=list)
    injected: list[str] = field(default_factory=list)
    error: dict[str, Any] | None = None
    hung: bool = False

    @property
    def finished(self) -> bool:
        """The step ran to its end (successfully or with an exception) and the child exited."""
        return self.exitcode == 0 and not self.hung and self.killed_at is None

    def describe(self) -> str:
        """One line for failure reports."""
        if self.hung:
            return "hung (killed after the step timeout)"
        if self.killed_at is not None:
            return f"SIGKILLed at storage call {self.killed_at[0]}: {self.killed_at[1]}"
        if self.error is not None:
            return f"raised {self.error['type']}: {self.error['message']}"
        if self.exitcode != 0:
            return f"child died with exit code {self.exitcode}"
        return "completed"


def _context() -> Any:
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_PRELOAD)  # ignored once the server runs
    return ctx


def run_step(step: Step, timeout_s: float = STEP_TIMEOUT_S) -> StepReport:
    """Run ``step`` in a fresh child and collect its report."""
    ctx = _context()
    receiver, sender = ctx.Pipe(duplex=False)
    child = ctx.Process(target=child_main, args=(step, sender), daemon=True, name=f"campaign-{step.action}")
    child.start()
    sender.close()
    report = StepReport()
    deadline = time.monotonic() + timeout_s
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                report.hung = True
                child.kill()
                break
            if not receiver.poll(min(remaining, 1.0)):
                continue
            try:
                message = receiver.recv()
            except EOFError:
                break
            _absorb(report, message)
    finally:
        receiver.close()
        child.join(30)
        if child.is_alive():
            child.kill()
            child.join(30)
    report.exitcode = child.exitcode
    if report.killed_at is not None or report.built:
        assert report.exitcode == -signal.SIGKILL, f"{step.action} announced its kill but exited {report.exitcode}"
    return report


def _absorb(report: StepReport, message: tuple[Any, ...]) -> None:
    kind = message[0]
    if kind == "killed":
        report.killed_at = (int(message[1]), str(message[2]))
    elif kind == "built":
        report.built = True
    else:
        body = message[1]
        report.points = body["points"]
        report.labels = body["labels"]
        report.injected = body["injected"]
        report.error = body.get("error")
