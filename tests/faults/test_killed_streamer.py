"""``hudi-fw streamer --continuous`` SIGKILLed at random points and restarted: every batch applied once.

A landing directory holds JSON-lines files whose rows all have distinct keys, ingested with
``insert`` (which never deduplicates against the table): a batch applied twice would leave
duplicate keys, a lost batch missing ones. The streamer is killed several times at random moments
(during start-up, planning, writing, committing, between rounds), then run to the end; the table,
read by our reader and by hudi-rs, must hold every landed row exactly once, and the checkpoints of
its commits must advance file by file, in order. On local disk and on moto S3 (landing files and
table both in the bucket).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2
from tests.faults.s3_faults import Place, admin_client, hudi_rs
from tests.faults.streamer_runs import start_streamer, storage_section, table_objects

pytestmark = pytest.mark.slow  # eight streamer processes: about a minute

FILES = 20
ROWS_PER_FILE = 40

Rows = list[tuple[int, str, int]]


def _landing_uri(place: Place, tmp_path: Path) -> str:
    return place.uri.rsplit("/", 1)[0] + "/landing" if place.endpoint else str(tmp_path / "landing")


def _land(place: Place, landing: str) -> Rows:
    rows: Rows = []
    for f in range(FILES):
        lines = []
        for r in range(ROWS_PER_FILE):
            key = f * 1000 + r
            city = ["sf", "ny", "la"][key % 3]
            rows.append((key, city, f))
            lines.append(json.dumps({"id": key, "file": f, "city": city, "ts": f}))
        data, name = ("\n".join(lines) + "\n").encode(), f"batch-{f:03d}.json"
        if place.endpoint:
            bucket, _, prefix = landing.removeprefix("s3://").partition("/")
            admin_client(place.endpoint).put_object(Bucket=bucket, Key=f"{prefix}/{name}", Body=data)
        else:
            Path(landing).mkdir(exist_ok=True)
            (Path(landing) / name).write_bytes(data)
    return sorted(rows)


def _config(tmp_path: Path, place: Place, landing: str, *, streamer: str = "stop_after_idle_rounds = 1") -> Path:
    storage = storage_section(place)
    config = tmp_path / "streamer.toml"
    config.write_text(
        f"""
[table]
base_path = "{place.uri}"
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
{streamer}

[streamer.source_options]
root = "{landing}"

{storage}"""
    )
    return config


def _wait_until_writing(proc: subprocess.Popen[bytes], place: Place) -> None:
    before, deadline = table_objects(place), time.monotonic() + 120
    while table_objects(place) == before and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)


def _kill_once_busy(config: Path, place: Place, rng: random.Random) -> bool:
    """Start a streamer, wait until it writes something, let it run a random moment more, SIGKILL it.

    Returns:
        Whether it was killed (False: it finished first).
    """
    proc = start_streamer(config)
    _wait_until_writing(proc, place)
    time.sleep(rng.uniform(0.0, 0.4))  # somewhere in this round's write, its commit, or the next round
    if proc.poll() is not None:
        proc.communicate()
        return False
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    return True


def _rows_ours(place: Place) -> Rows:
    table = read_table(HudiTable.open(place.uri, storage_options=place.options), columns=["id", "city", "ts"])
    return sorted((r["id"], r["city"], r["ts"]) for r in table.to_pylist())


def test_streamer_killed_at_random_points_applies_every_batch_once(tmp_path: Path, place: Place) -> None:
    landing = _landing_uri(place, tmp_path)
    expected = _land(place, landing)
    config = _config(tmp_path, place, landing)
    rng = random.Random(23)
    early = start_streamer(config)  # one dies while starting up, before it writes anything
    time.sleep(0.3)
    os.kill(early.pid, signal.SIGKILL)
    early.communicate()
    kills = sum(_kill_once_busy(config, place, rng) for _ in range(6))
    assert kills >= 4, "most runs must die mid-way, or the test proves nothing"
    table = place.open()
    assert len(table.timeline.commits_timeline()) < FILES, "the kills left batches for the last run"
    final = start_streamer(config)
    out, err = final.communicate(timeout=300)
    assert final.returncode == 0, err.decode()[-3000:]
    assert "rounds (idle)" in out.decode()

    assert _rows_ours(place) == expected
    assert hudi_rs(place.uri, place.endpoint) == expected
    table = place.open()
    timeline = table.timeline
    checkpoints = [
        (timeline.read_commit_metadata(i).extra_metadata or {}).get(CHECKPOINT_KEY_V2)
        for i in timeline.commits_timeline()
    ]
    recorded = [c for c in checkpoints if c is not None]
    assert recorded == sorted(set(recorded)), "checkpoints advance, never repeat"
    assert recorded[-1] == f"file:batch-{FILES - 1:03d}.json"


def test_sigterm_lets_the_current_round_commit_then_stops_with_a_summary(tmp_path: Path, place: Place) -> None:
    landing = _landing_uri(place, tmp_path)
    expected = _land(place, landing)
    config = _config(tmp_path, place, landing, streamer="min_sync_interval_seconds = 0.5")
    proc = start_streamer(config)
    _wait_until_writing(proc, place)
    proc.send_signal(signal.SIGTERM)  # mid-round, most likely: the round still completes
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err.decode()[-3000:]
    assert "SIGTERM: stopping after the current round" in out.decode()
    assert "(SIGTERM)" in out.decode()
    table = place.open()
    assert table.timeline.pending() == [], "no half-written round is left behind"
    committed = len(table.timeline.commits_timeline())
    assert 1 <= committed < FILES
    assert _rows_ours(place) == [r for r in expected if r[2] < committed]
