"""Landing JSON files ingested by ``hudi-fw streamer --continuous`` with the real ``JsonDFSSource``,
SIGKILLed at random points and restarted: the table equals the files applied once, in order.

Twenty files of JSON lines land one after another, a few before the first streamer starts and the
rest while streamers run and are killed. Every file upserts rows: new keys, and later versions of keys
of earlier files (larger ``ts``), so the table must hold each key's version from the last file that
has it: a file applied out of order, or an older file applied again after a newer one, shows as an
older version; a lost file as a missing key or version. One file adds a column, another carries a
column's values as floats where earlier files had integers (long widened to double). The table, read
by our reader and by hudi-rs, is compared with the files applied in order.

On local disk (files written under a dot-name and renamed, as docs/sources.md says) and on moto S3
(one PUT per file; S3 keeps whole seconds, so the source's ``settle_ms`` holds files back until their
second is over). The short local variant runs by default; the ten-kill ones are ``slow``.
"""

from __future__ import annotations

import json
import os
import random
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2
from tests.faults.s3_faults import DUMMY_AWS_ENV, Place, admin_client
from tests.faults.streamer_runs import kill_once_busy, start_streamer, storage_section, table_objects

FILES = 20
ROWS_PER_FILE = 30
#: Keys cycle over this many: most files update keys earlier files inserted.
KEYS = 120
#: Files landed before the first streamer starts; the rest land while streamers run.
EARLY_FILES = 6
#: The file whose rows add the column ``note``, and the first whose ``amount`` values are floats.
NEW_COLUMN_FILE = 8
WIDENED_FILE = 13
COLUMNS = ["id", "city", "file", "ts", "amount", "note"]

Row = dict[str, Any]


def _rows_of_file(f: int, *, evolve: bool) -> list[Row]:
    rows = []
    for r in range(ROWS_PER_FILE):
        n = f * ROWS_PER_FILE + r
        k = (n * 7) % KEYS  # spread the updates over the keys
        row: Row = {"id": k, "city": ["sf", "ny", "la"][k % 3], "file": f, "ts": n, "amount": n}
        if evolve and f >= WIDENED_FILE:
            row["amount"] = n + 0.5
        if evolve and f >= NEW_COLUMN_FILE:
            row["note"] = f"note-{f}"
        rows.append(row)
    return rows


def _expected(files: int, *, evolve: bool) -> list[Row]:
    latest: dict[int, Row] = {}
    for f in range(files):
        for row in _rows_of_file(f, evolve=evolve):
            latest[row["id"]] = row
    out = []
    for row in latest.values():
        full = {c: row.get(c) for c in COLUMNS}
        if evolve:
            full["amount"] = float(full["amount"])
        else:
            full.pop("note")
        out.append(full)
    return sorted(out, key=lambda r: r["id"])


def _landing_uri(place: Place, tmp_path: Path) -> str:
    return place.uri.rsplit("/", 1)[0] + "/landing" if place.endpoint else str(tmp_path / "landing")


def _land(place: Place, landing: str, f: int, *, evolve: bool) -> None:
    data = "".join(json.dumps(row) + "\n" for row in _rows_of_file(f, evolve=evolve)).encode()
    name = f"batch-{f:03d}.json"
    if place.endpoint:  # one request: the object is complete when it appears
        bucket, _, prefix = landing.removeprefix("s3://").partition("/")
        admin_client(place.endpoint).put_object(Bucket=bucket, Key=f"{prefix}/{name}", Body=data)
    else:  # written under a hidden name, then renamed promptly
        Path(landing).mkdir(exist_ok=True)
        hidden = Path(landing) / f".{name}.tmp"
        hidden.write_bytes(data)
        hidden.rename(Path(landing) / name)


def _land_rest(place: Place, landing: str, *, evolve: bool, pause_s: float) -> None:
    for f in range(EARLY_FILES, FILES):
        time.sleep(pause_s)
        _land(place, landing, f, evolve=evolve)


def _config(tmp_path: Path, place: Place, landing: str, *, final: bool) -> Path:
    storage = storage_section(place)
    config = tmp_path / ("final.toml" if final else "streamer.toml")
    # S3 keeps whole seconds: a file must be older than its second before it is taken.
    settle = 2000 if place.endpoint else 0
    config.write_text(
        f"""
"hoodie.streamer.source.dfs.root" = "{landing}"

[table]
base_path = "{place.uri}"
name = "landed"
type = "MERGE_ON_READ"
record_key_fields = ["id"]
partition_fields = ["city"]
ordering_fields = ["ts"]

[write]
engine = "local"

[streamer]
source = "JsonDFSSource"
operation = "upsert"
source_limit = 1500          # bytes: one file (about 2.5 kB) per round
continuous = true
min_sync_interval_seconds = 0.2
stop_after_idle_rounds = {3 if final else 100000}

[streamer.source_options]
settle_ms = {settle}

{storage}"""
    )
    return config


def _kill_once_busy(config: Path, place: Place, rng: random.Random) -> bool:
    """Start a streamer and SIGKILL it a random moment after it first writes (an S3 round takes
    seconds: up to 3 s there, 2 s on local disk); False if it ended first."""
    return kill_once_busy(start_streamer(config), lambda: table_objects(place), rng, 3.0 if place.endpoint else 2.0)


def _ours(place: Place, columns: list[str]) -> list[Row]:
    table = read_table(HudiTable.open(place.uri, storage_options=place.options), columns=columns)
    return sorted(table.to_pylist(), key=lambda r: r["id"])


def _hudi_rs(place: Place, columns: list[str]) -> list[Row]:
    import hudi

    builder = hudi.HudiTableBuilder.from_base_uri(place.uri)
    if place.endpoint is not None:
        builder = builder.with_storage_options(
            {
                "aws_endpoint_url": place.endpoint,
                "aws_allow_http": "true",
                "aws_region": "us-east-1",
                "aws_access_key_id": DUMMY_AWS_ENV["AWS_ACCESS_KEY_ID"],
                "aws_secret_access_key": DUMMY_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
                "aws_virtual_hosted_style_request": "false",
            }
        )
    with pytest.MonkeyPatch.context() as mp:
        if place.endpoint is not None:  # hudi-rs 0.5 builds one of its stores from the environment alone
            mp.setenv("AWS_ENDPOINT_URL", place.endpoint)
        table = pa.Table.from_batches(builder.build().read(hudi.HudiReadOptions()))
    return sorted(table.select(columns).to_pylist(), key=lambda r: r["id"])


def _run(tmp_path: Path, place: Place, *, kills: int, evolve: bool, seed: int) -> None:
    landing = _landing_uri(place, tmp_path)
    for f in range(EARLY_FILES):
        _land(place, landing, f, evolve=evolve)
    # The rest land across the killed runs (each lives a few seconds).
    lander = threading.Thread(
        target=_land_rest, args=(place, landing), kwargs={"evolve": evolve, "pause_s": 0.35 * kills}
    )
    config, rng, killed = _config(tmp_path, place, landing, final=False), random.Random(seed), 0
    lander.start()
    try:
        early = start_streamer(config)  # one dies while starting up, before it writes anything
        time.sleep(rng.uniform(0.5, 2.0))
        os.kill(early.pid, signal.SIGKILL)
        early.communicate()
        for _ in range(kills):
            killed += _kill_once_busy(config, place, rng)
    finally:
        lander.join()
    assert killed >= kills - 1, "the runs must die mid-way, or the test proves nothing"
    committed = len(place.open().timeline.commits_timeline())
    if place.endpoint:
        time.sleep(2.5)  # the last file's settle time: the final run's idle rounds must not end before it
    final = start_streamer(_config(tmp_path, place, landing, final=True))
    out, err = final.communicate(timeout=300)
    assert final.returncode == 0, err.decode()[-3000:]
    assert "rounds (idle)" in out.decode()

    expected = _expected(FILES, evolve=evolve)
    columns = list(expected[0])
    assert _ours(place, columns) == expected
    assert _hudi_rs(place, columns) == expected
    timeline = place.open().timeline
    checkpoints = [
        (timeline.read_commit_metadata(i).extra_metadata or {}).get(CHECKPOINT_KEY_V2)
        for i in timeline.commits_timeline()
    ]
    recorded = [int(c) for c in checkpoints if c is not None]
    assert recorded == sorted(set(recorded)), "checkpoints (modification times) advance, never repeat"
    print(f"{place.uri}: {killed} kills, {committed} commits before the last run, {len(recorded)} checkpoints")


def test_killed_landing_streamer_local_short(tmp_path: Path) -> None:
    _run(tmp_path, Place(str(tmp_path / "t"), None), kills=3, evolve=True, seed=23)


@pytest.mark.slow
def test_killed_landing_streamer_ten_kills(tmp_path: Path, place: Place) -> None:
    _run(tmp_path, place, kills=10, evolve=True, seed=5)
