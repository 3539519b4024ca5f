"""What a campaign child process runs: one step (the operation under test, or a template's failed write).

The module is preloaded by the forkserver (:mod:`tests.faults.campaign.runner`), so pyarrow, the
kernel, the plugins and what they import lazily are imported once and every child is a cheap fork. A child reports over
its pipe: ``("killed", n, label)`` just before it SIGKILLs itself, then, if it lives,
``("done", report)`` or ``("raised", report)``.
"""

from __future__ import annotations

import os
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

# Imported here so the forkserver has them: pyarrow imports pandas the first time it converts Python
# objects, and the S3 backend imports boto3 when it builds a client (each ~0.2-0.3 s per child otherwise).
import boto3.session  # noqa: F401
import botocore.config  # noqa: F401
import pandas  # type: ignore[import-untyped]  # noqa: F401

from hudi_framework.errors import CommitStateUnknownError
from tests.faults.campaign.points import Points
from tests.faults.campaign.scenarios import Scenario, StorageOptions, fail_write, operate


@dataclass(frozen=True, slots=True)
class Step:
    """One child's work.

    Attributes:
        action: ``operate``, or ``fail_write`` (the write a ``rollback_failed`` template leaves inflight).
        scenario: The scenario.
        base: The table's base URI.
        storage_options: Backend options (S3: the moto endpoint and fast retries).
        env: Environment the child sets first (the forkserver's environment is from its start).
        strip: Prefix removed from point labels.
        record: Record every point's label (the dry run).
        kill_at: SIGKILL at this point.
        fault_rate: Probability of an S3 fault per botocore call.
        fault_seed: Seed of the fault draws.
    """

    action: str
    scenario: Scenario
    base: str
    storage_options: StorageOptions = None
    env: dict[str, str] = field(default_factory=dict)
    strip: str = ""
    record: bool = False
    kill_at: int | None = None
    fault_rate: float = 0.0
    fault_seed: int = 0


def child_main(step: Step, conn: Connection) -> None:
    """Entry point of a child: install the hook, run the step, report."""
    os.environ.update(step.env)
    os.cpu_count = lambda: 1  # one thread per pool: the same call sequence on every run
    points = Points(
        conn, strip=step.strip, record=step.record, kill_at=step.kill_at, fault_rate=step.fault_rate,
        fault_seed=step.fault_seed,
    )  # fmt: skip
    points.install()
    report: dict[str, Any] = {}
    try:
        if step.action == "fail_write":
            fail_write(step.base, step.storage_options, before_kill=lambda: conn.send(("built",)))
        elif step.action == "operate":
            operate(step.scenario, step.base, step.storage_options)
        else:
            raise ValueError(f"unknown step {step.action!r}")
    except BaseException as e:  # reported to the parent, which judges it
        report["error"] = {
            "type": type(e).__name__,
            "message": str(e),
            "traceback": traceback.format_exc(limit=12),
            "commit_state_unknown": isinstance(e, CommitStateUnknownError),
        }
    report.update(points=points.count, labels=points.labels, injected=points.injected)
    conn.send(("raised" if "error" in report else "done", report))
    conn.close()
