"""Running ``hudi-fw streamer`` as a separate process for the kill tests, and watching its table."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.faults.s3_faults import Place, admin_client

ROOT = Path(__file__).resolve().parents[2]


def start_streamer(config: Path) -> subprocess.Popen[bytes]:
    """``hudi-fw streamer <config>`` in a new process that imports this checkout (and its plugins)."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins"), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()", "streamer", str(config)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def table_objects(place: Place) -> int:
    """How many files the table has: grows as soon as a streamer writes anything."""
    if place.endpoint:
        bucket, _, prefix = place.uri.removeprefix("s3://").partition("/")
        listed = admin_client(place.endpoint).list_objects_v2(Bucket=bucket, Prefix=prefix + "/")
        return int(listed.get("KeyCount", 0))
    return sum(len(files) for _, _, files in os.walk(place.uri))


def storage_section(place: Place) -> str:
    """The ``[storage.s3]`` section of a streamer config for ``place`` (empty on local disk)."""
    if not place.endpoint:
        return ""
    return f'[storage.s3]\nendpoint_url = "{place.endpoint}"\nregion = "us-east-1"\naddressing_style = "path"\n'


def kill_once_busy(
    proc: subprocess.Popen[bytes], files: Callable[[], int], rng: random.Random, max_delay_s: float
) -> bool:
    """Wait until ``proc`` writes something (``files()`` changes), let it run up to ``max_delay_s``
    more (in its round's write, the commit, or a later round), then SIGKILL it. A run that finds
    nothing new writes nothing: it is killed idle after 20 s.

    Returns:
        Whether it was killed (False: it ended first, successfully).
    """
    before, deadline = files(), time.monotonic() + 20
    while files() == before and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(rng.uniform(0.0, max_delay_s))
    if proc.poll() is not None:
        _, err = proc.communicate()
        assert proc.returncode == 0, err.decode()[-3000:]
        return False
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    return True
