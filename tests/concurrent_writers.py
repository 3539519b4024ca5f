"""Races writers for concurrency tests: every writer plans, then all write and commit at once."""

from __future__ import annotations

import threading
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.write import client as client_module
from hudi_framework.write.client import WriteClient
from hudi_framework.write.pipeline import WriteResult
from hudi_framework.write.target_task import write_target


def race_upserts(
    monkeypatch: pytest.MonkeyPatch, jobs: list[tuple[WriteClient, pa.Table]], *, timeout_s: float = 120
) -> list[WriteResult | Exception]:
    """Run ``client.upsert(data)`` of every job in its own thread, held at a barrier before writing files.

    Returns each writer's result or the exception it raised, in job order.
    """
    barrier = threading.Barrier(len(jobs), timeout=60)

    def synchronised(*args: Any, **kwargs: Any) -> Any:
        barrier.wait()  # every writer has started and planned; now all write and commit at once
        return write_target(*args, **kwargs)

    monkeypatch.setattr(client_module, "write_target", synchronised)
    results: list[WriteResult | Exception] = [RuntimeError("not run")] * len(jobs)

    def run(i: int, client: WriteClient, data: pa.Table) -> None:
        try:
            results[i] = client.upsert(data)
        except Exception as exc:  # the test inspects what each writer got
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i, c, d)) for i, (c, d) in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout_s)
    monkeypatch.undo()
    return results
