"""``hudi-fw streamer --continuous`` SIGKILLed at random points and restarted: every batch applied once.

A landing directory holds JSON-lines files whose rows all have distinct keys, ingested with
``insert`` (which never deduplicates against the table): a batch applied twice would leave
duplicate keys, a lost batch missing ones. The streamer is killed several times at random moments
(during start-up, planning, writing, committing, between rounds), then run to the end; the table,
read by our reader and by hudi-rs, must hold every landed row exactly once, and the checkpoints of
its commits must advance file by file, in order.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import hudi
import pyarrow as pa
import pytest

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2

pytestmark = pytest.mark.slow  # eight streamer processes: about a minute

ROOT = Path(__file__).resolve().parents[2]
FILES = 20
ROWS_PER_FILE = 40


def _land(landing: Path) -> list[tuple[int, int]]:
    landing.mkdir()
    rows = []
    for f in range(FILES):
        lines = []
        for r in range(ROWS_PER_FILE):
            key = f * 1000 + r
            rows.append((key, f))
            lines.append(json.dumps({"id": key, "file": f, "city": ["sf", "ny", "la"][key % 3], "ts": f}))
        (landing / f"batch-{f:03d}.json").write_text("\n".join(lines) + "\n")
    return sorted(rows)


def _config(tmp_path: Path, base: str, landing: Path) -> Path:
    config = tmp_path / "streamer.toml"
    config.write_text(
        f"""
[table]
base_path = "{base}"
name = "landed"
type = "MERGE_ON_READ"
record_key_fields = ["id"]
partition_fields = ["city"]
ordering_fields = ["ts"]

[write]
engine = "local"

[plugins]
modules = ["tests.unit.streamer.landing_source"]

[streamer]
source = "TestLandingSource"
operation = "insert"
source_limit = 1000          # one file per round
continuous = true
stop_after_idle_rounds = 1

[streamer.source_options]
root = "{landing}"

"""
    )
    return config


def _start(config: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.Popen(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()", "streamer", str(config)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _files(base: str) -> int:
    return sum(len(files) for _, _, files in os.walk(base))


def _kill_once_busy(config: Path, base: str, rng: random.Random) -> bool:
    """Start a streamer, wait until it writes something, let it run a random moment more, SIGKILL it.

    Returns:
        Whether it was killed (False: it finished first).
    """
    proc = _start(config)
    before, deadline = _files(base), time.monotonic() + 120
    while _files(base) == before and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(rng.uniform(0.0, 0.4))  # somewhere in this round's write, its commit, or the next round
    if proc.poll() is not None:
        proc.communicate()
        return False
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    return True


def _rows_ours(base: str) -> list[tuple[int, int]]:
    table = read_table(HudiTable.open(base), columns=["id", "file"])
    return sorted((r["id"], r["file"]) for r in table.to_pylist())


def _rows_hudi_rs(base: str) -> list[tuple[int, int]]:
    table = hudi.HudiTableBuilder.from_base_uri(base).build()
    rows = pa.Table.from_batches(table.read(hudi.HudiReadOptions())).to_pylist()
    return sorted((r["id"], r["file"]) for r in rows)


def test_streamer_killed_at_random_points_applies_every_batch_once(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    expected = _land(landing)
    base = str(tmp_path / "table")
    config = _config(tmp_path, base, landing)
    rng = random.Random(23)
    early = _start(config)  # one dies while starting up, before it writes anything
    time.sleep(0.3)
    os.kill(early.pid, signal.SIGKILL)
    early.communicate()
    kills = sum(_kill_once_busy(config, base, rng) for _ in range(6))
    assert kills >= 4, "most runs must die mid-way, or the test proves nothing"
    table = HudiTable.open(base)
    assert len(table.timeline.commits_timeline()) < FILES, "the kills left batches for the last run"
    final = _start(config)
    out, err = final.communicate(timeout=300)
    assert final.returncode == 0, err.decode()[-3000:]
    assert "rounds (idle)" in out.decode()

    assert _rows_ours(base) == expected
    assert _rows_hudi_rs(base) == expected
    table = HudiTable.open(base)
    timeline = table.timeline
    checkpoints = [
        (timeline.read_commit_metadata(i).extra_metadata or {}).get(CHECKPOINT_KEY_V2)
        for i in timeline.commits_timeline()
    ]
    recorded = [c for c in checkpoints if c is not None]
    assert recorded == sorted(set(recorded)), "checkpoints advance, never repeat"
    assert recorded[-1] == f"file:batch-{FILES - 1:03d}.json"


def test_sigterm_lets_the_current_round_commit_then_stops_with_a_summary(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    _land(landing)
    base = str(tmp_path / "table")
    config = _config(tmp_path, base, landing)
    config.write_text(config.read_text().replace("stop_after_idle_rounds = 1", "min_sync_interval_seconds = 0.5"))
    proc = _start(config)
    before, deadline = _files(base), time.monotonic() + 120
    while _files(base) == before and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)  # mid-round, most likely: the round still completes
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()[-3000:]
    assert "SIGTERM: stopping after the current round" in out.decode()
    assert "(SIGTERM)" in out.decode()
    table = HudiTable.open(base)
    assert table.timeline.pending() == [], "no half-written round is left behind"
    committed = len(table.timeline.commits_timeline())
    assert 1 <= committed < FILES
    assert _rows_ours(base) == [r for r in _land_rows() if r[1] < committed]


def _land_rows() -> list[tuple[int, int]]:
    return sorted((f * 1000 + r, f) for f in range(FILES) for r in range(ROWS_PER_FILE))
