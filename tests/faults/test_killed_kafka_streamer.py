"""``hudi-fw streamer --source-class JsonKafkaSource --continuous`` SIGKILLed at random points and restarted.

Twenty batches go to a 3-partition topic of the real broker (``kafka_broker``): half before the first
streamer starts, half while the streamers run and are killed. Each streamer is a subprocess started
with HoodieStreamer's flags only (no config file), killed with SIGKILL at a random moment once it has
started writing, and started again; a last run drains the topic and stops when idle. With ``insert``
(which never deduplicates against the table) a batch applied twice would leave duplicate keys and a
lost one missing keys; with ``upsert`` the table must hold each key's latest version. The table, read
by our reader and by hudi-rs, must equal the topic applied once, and the checkpoint of the last commit
(``streamer.checkpoint.key.v2``) must be the topic's end offsets.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2
from tests.faults.streamer_runs import kill_once_busy

pytestmark = pytest.mark.kafka
kafka = pytest.importorskip("kafka")

ROOT = Path(__file__).resolve().parents[2]
BATCHES = 20
PER_BATCH = 12
PARTITIONS = 3
#: Upsert variant: keys cycle over this many, so every key gets several versions across batches.
UPSERT_KEYS = 50

Row = dict[str, Any]


def _record(b: int, i: int, *, upsert: bool) -> Row:
    n = b * PER_BATCH + i
    k = n % UPSERT_KEYS if upsert else n
    key = f"k{k:03d}" if upsert else f"b{b:02d}-{i:02d}"
    # A key keeps its partition (the index is per partition).
    return {"id": key, "city": ["sf", "ny", "la"][k % 3], "batch": b, "ts": n}


def _create_topic(bootstrap: str, topic: str) -> None:
    admin = kafka.KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([kafka.admin.NewTopic(topic, PARTITIONS, 1)])
    finally:
        admin.close()


def _produce(bootstrap: str, topic: str, batches: range, *, upsert: bool, pause_s: float = 0.0) -> list[Row]:
    """Produce ``batches`` round-robin over the partitions (one flush per batch); the records sent."""
    sent: list[Row] = []
    producer = kafka.KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=0)
    try:
        for b in batches:
            for i in range(PER_BATCH):
                row = _record(b, i, upsert=upsert)
                producer.send(topic, value=json.dumps(row).encode(), partition=row["ts"] % PARTITIONS)
                sent.append(row)
            producer.flush()
            time.sleep(pause_s)
    finally:
        producer.close()
    return sent


def _streamer(
    base: Path, bootstrap: str, topic: str, *, op: str, table_type: str, final: bool
) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins"), os.environ.get("PYTHONPATH", "")]),
    }
    # Killed runs go idle for a while (the topic may be drained between productions); the final run
    # stops at its first idle round.
    idle = "1" if final else "1000"
    args = [
        "streamer",
        "--target-base-path", str(base), "--target-table", "kafka_events", "--table-type", table_type,
        "--source-class", "JsonKafkaSource", "--source-ordering-field", "ts", "--op", op,
        "--hoodie-conf", f"hoodie.streamer.source.kafka.topic={topic}",
        "--hoodie-conf", f"bootstrap.servers={bootstrap}",
        "--hoodie-conf", "auto.offset.reset=earliest",
        "--hoodie-conf", "hoodie.datasource.write.recordkey.field=id",
        "--hoodie-conf", "hoodie.datasource.write.partitionpath.field=city",
        "--source-limit", "30",  # records per round: at least eight rounds
        "--continuous", "--min-sync-interval-seconds", "0.2", "--stop-after-idle-rounds", idle,
        "--engine", "local",
    ]  # fmt: skip
    return subprocess.Popen(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()", *args],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def _files(base: Path) -> int:
    return sum(len(files) for _, _, files in os.walk(base))


def _kill_once_busy(proc: subprocess.Popen[bytes], base: Path, rng: random.Random) -> bool:
    """SIGKILL ``proc`` a random moment (up to 0.8 s) after it first writes; False if it ended first."""
    return kill_once_busy(proc, lambda: _files(base), rng, 0.8)


def _ours(base: Path) -> list[Row]:
    rows = read_table(HudiTable.open(str(base)), columns=["id", "city", "batch", "ts"]).to_pylist()
    return sorted(rows, key=lambda r: str(r["id"]))


def _hudi_rs(base: Path) -> list[Row]:
    table = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(str(base)).build().read(hudi.HudiReadOptions()))
    return sorted(table.select(["id", "city", "batch", "ts"]).to_pylist(), key=lambda r: str(r["id"]))


def _checkpoints(base: Path) -> list[str]:
    timeline = HudiTable.open(str(base)).timeline
    found = [
        (timeline.read_commit_metadata(i).extra_metadata or {}).get(CHECKPOINT_KEY_V2)
        for i in timeline.commits_timeline()
    ]
    return [str(c) for c in found if c is not None]


def _offsets(checkpoint: str) -> list[int]:
    return [int(part.split(":")[1]) for part in checkpoint.split(",")[1:]]


def _run(kafka_broker: Any, tmp_path: Path, *, op: str, table_type: str, kills: int, seed: int) -> None:
    topic = f"streamer-{uuid.uuid4().hex[:8]}"
    bootstrap = kafka_broker.bootstrap
    upsert = op == "UPSERT"
    _create_topic(bootstrap, topic)
    sent = _produce(bootstrap, topic, range(BATCHES // 2), upsert=upsert)
    late: list[Row] = []
    producer = threading.Thread(
        target=lambda: late.extend(_produce(bootstrap, topic, range(BATCHES // 2, BATCHES), upsert=upsert, pause_s=0.4))
    )
    base, rng = tmp_path / "table", random.Random(seed)
    killed = 0
    producer.start()
    try:
        for _ in range(kills):
            proc = _streamer(base, bootstrap, topic, op=op, table_type=table_type, final=False)
            killed += _kill_once_busy(proc, base, rng)
    finally:
        producer.join()
    assert killed >= kills - 1, "the runs must die mid-way, or the test proves nothing"
    final = _streamer(base, bootstrap, topic, op=op, table_type=table_type, final=True)
    out, err = final.communicate(timeout=300)
    assert final.returncode == 0, err.decode()[-3000:]
    assert "rounds (idle)" in out.decode()

    produced = sent + late
    if upsert:
        latest: dict[str, Row] = {}
        for row in produced:  # ts grows with every record: the last version sent wins
            latest[row["id"]] = row
        expected = sorted(latest.values(), key=lambda r: str(r["id"]))
    else:
        expected = sorted(produced, key=lambda r: str(r["id"]))
    assert _ours(base) == expected
    assert _hudi_rs(base) == expected
    checkpoints = _checkpoints(base)
    end = BATCHES * PER_BATCH // PARTITIONS
    assert checkpoints[-1] == f"{topic},0:{end},1:{end},2:{end}"
    for earlier, later in itertools.pairwise(checkpoints):
        assert all(a <= b for a, b in zip(_offsets(earlier), _offsets(later), strict=True)), "offsets never go back"


def test_killed_streamer_inserts_the_topic_once(kafka_broker: Any, tmp_path: Path) -> None:
    _run(kafka_broker, tmp_path, op="INSERT", table_type="MERGE_ON_READ", kills=3, seed=23)


@pytest.mark.slow
def test_killed_streamer_upserts_every_key_to_its_latest_version(kafka_broker: Any, tmp_path: Path) -> None:
    _run(kafka_broker, tmp_path, op="UPSERT", table_type="COPY_ON_WRITE", kills=3, seed=7)
