"""Running ``tests.faults.kill_writer`` in a subprocess and SIGKILLing it at its park point."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from tests.faults.park import PARK_ENV

ROOT = Path(__file__).resolve().parents[2]


def kill_writer(
    base: str,
    when: str,
    ready_dir: Path,
    rows: list[dict[str, object]],
    options: Mapping[str, str] | None = None,
    operation: str = "upsert",
    *,
    env: Mapping[str, str] | None = None,
    while_parked: Callable[[], None] | None = None,
    park: str | None = None,
) -> float:
    """Start a writer on ``base``, wait until it parks at ``when``, run ``while_parked``, SIGKILL it.

    Args:
        park: A park point (:mod:`tests.faults.park`); given, it replaces ``when``.
        operation: A write operation on ``rows``, or a table operation (see
            :mod:`tests.faults.kill_writer`).

    Returns:
        ``time.time()`` of the kill.
    """
    if park is not None:
        when = "park"
    ready = ready_dir / f"ready-{when}-{time.monotonic_ns()}"
    full_env = {
        **os.environ,
        **(env or {}),
        **({PARK_ENV: park} if park is not None else {}),
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "tests.faults.kill_writer", base, when, str(ready), json.dumps(rows),
            json.dumps(dict(options or {})), operation,
        ],
        cwd=ROOT, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            if proc.poll() is not None:
                _, err = proc.communicate()
                pytest.fail(f"writer exited early ({proc.returncode}): {err.decode()[-2000:]}")
            if time.monotonic() > deadline:
                pytest.fail("writer never reached the kill point")
            time.sleep(0.02)
        if while_parked is not None:
            while_parked()
        os.kill(proc.pid, signal.SIGKILL)
        killed_at = time.time()
        proc.wait(30)
        assert proc.returncode == -signal.SIGKILL
        return killed_at
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
