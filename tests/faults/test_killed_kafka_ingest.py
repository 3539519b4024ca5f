"""Kafka into a table with the ingesting process SIGKILLed at random moments and restarted.

Twenty batches produced to a 3-partition topic are ingested by :mod:`tests.faults.kafka_ingest` (plan
from the table's checkpoint, read, insert with the checkpoint in the same commit) which is killed
several times at random points and restarted: the table holds every record of the topic exactly
once (inserts do not deduplicate, so a batch applied twice would show), read by our reader and hudi-rs.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from tests.faults.kafka_ingest import last_checkpoint

pytestmark = pytest.mark.kafka
kafka = pytest.importorskip("kafka")
ROOT = Path(__file__).resolve().parents[2]
KILLS = 5


def _produce_twenty_batches(bootstrap: str, topic: str) -> list[dict[str, Any]]:
    admin = kafka.KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([kafka.admin.NewTopic(topic, 3, 1)])
    finally:
        admin.close()
    rows = [{"id": f"b{b:02d}-{i}", "batch": b, "ts": b * 100 + i} for b in range(20) for i in range(12)]
    producer = kafka.KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=0)
    try:
        for n, row in enumerate(rows):
            producer.send(topic, value=json.dumps(row).encode(), partition=n % 3)
        producer.flush()
    finally:
        producer.close()
    return rows


def _ingest(base: Path, bootstrap: str, topic: str, progress: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins"), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.faults.kafka_ingest", str(base), bootstrap, topic, "10", str(progress)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip


def test_killed_and_restarted_ingest_applies_the_topic_once(kafka_broker: Any, tmp_path: Path) -> None:
    topic = f"ingest-{uuid.uuid4().hex[:8]}"
    produced = _produce_twenty_batches(kafka_broker.bootstrap, topic)
    base = tmp_path / "table"
    HudiTable.create(str(base), new_table_config("kafka_trips", record_key_fields=["id"], ordering_fields=["ts"]))
    progress = tmp_path / "progress"
    rng = random.Random(23)
    kills = 0
    while kills < KILLS:
        proc = _ingest(base, kafka_broker.bootstrap, topic, progress)
        # Kill somewhere in the first rounds: after startup (imports), inside a plan, read or commit.
        time.sleep(rng.uniform(1.0, 3.5))
        if proc.poll() is not None:
            break  # it finished everything before the kill
        proc.kill()
        proc.wait(timeout=30)
        kills += 1
    final = _ingest(base, kafka_broker.bootstrap, topic, progress)
    _, err = final.communicate(timeout=300)
    assert final.returncode == 0, err.decode()[-3000:]

    table = HudiTable.open(str(base))
    assert last_checkpoint(table) == f"{topic},0:80,1:80,2:80"
    ours = read_table(table).select(["id", "batch", "ts"]).to_pylist()
    expected = sorted(produced, key=lambda r: str(r["id"]))
    assert sorted(ours, key=lambda r: r["id"]) == expected  # every record, once
    theirs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(str(base)).build().read(hudi.HudiReadOptions()))
    assert sorted(theirs.select(["id", "batch", "ts"]).to_pylist(), key=lambda r: r["id"]) == expected
    committed = progress.read_text().splitlines() if progress.exists() else []
    assert kills >= 1, "the ingest finished before any kill"
    print(f"{kills} kills; {len(committed)} batches committed by the killed and final runs")
