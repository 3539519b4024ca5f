"""The example streamer configs run as a user runs them: ``hudi-fw streamer configs/streamer-<x>.toml``.

Each example is copied with only its addresses pointed at the test's services (the topic and broker,
the buckets and the moto endpoint); every other setting is the file's own, and the command line has
no flag. The streamer runs continuously, ingests what is there, and stops on SIGTERM with its summary.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2
from tests.faults.s3_faults import FAST_RETRY, admin_client, new_bucket, s3_options

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs"
EVENTS = [
    {"event_id": f"e{n % 40:02d}", "region": ["eu", "us"][n % 40 % 2], "ts": n, "amount": n * 10} for n in range(90)
]


def _latest(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    latest = {e["event_id"]: e for e in events}  # ts grows: the last version of a key wins
    return sorted(latest.values(), key=lambda e: e["event_id"])


def _example(name: str, tmp_path: Path, replacements: dict[str, str]) -> Path:
    text = (CONFIGS / name).read_text()
    for old, new in replacements.items():
        assert old in text, f"{name} no longer has {old!r}"
        text = text.replace(old, new)
    config = tmp_path / name
    config.write_text(text)
    return config


def _run_until(config: Path, done: Callable[[], bool]) -> str:
    """``hudi-fw streamer <config>`` until ``done()``, then SIGTERM; its output."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins"), os.environ.get("PYTHONPATH", "")]),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()", "streamer", str(config)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 180
    try:
        while not done() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.3)
        assert proc.poll() is None, "a continuous streamer runs until stopped"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err.decode()[-3000:]
    assert "(SIGTERM)" in out.decode()
    return out.decode()


def _checkpoint(table: HudiTable) -> str | None:
    timeline = table.timeline
    for instant in reversed(timeline.commits_timeline()):
        extra = timeline.read_commit_metadata(instant).extra_metadata or {}
        if CHECKPOINT_KEY_V2 in extra:
            return str(extra[CHECKPOINT_KEY_V2])
    return None


def _rows(table: HudiTable) -> list[dict[str, Any]]:
    rows = read_table(table, columns=["event_id", "region", "ts", "amount"]).to_pylist()
    return sorted(rows, key=lambda r: r["event_id"])


@pytest.mark.kafka
def test_the_kafka_example_config_ingests_a_topic(kafka_broker: Any, tmp_path: Path) -> None:
    kafka = pytest.importorskip("kafka")
    topic = f"events-{uuid.uuid4().hex[:8]}"
    admin = kafka.KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap)
    try:
        admin.create_topics([kafka.admin.NewTopic(topic, 3, 1)])
    finally:
        admin.close()
    producer = kafka.KafkaProducer(bootstrap_servers=kafka_broker.bootstrap, acks="all")
    try:
        for n, event in enumerate(EVENTS):
            producer.send(topic, value=json.dumps(event).encode(), partition=n % 3)
        producer.flush()
    finally:
        producer.close()
    base = tmp_path / "kafka_events"
    config = _example(
        "streamer-kafka.toml",
        tmp_path,
        {
            '"hoodie.streamer.source.kafka.topic" = "events"': f'"hoodie.streamer.source.kafka.topic" = "{topic}"',
            '"bootstrap.servers" = "127.0.0.1:9092"': f'"bootstrap.servers" = "{kafka_broker.bootstrap}"',
            'base_path = "/tmp/hudi/kafka_events"': f'base_path = "{base}"',
        },
    )
    end = f"{topic},0:30,1:30,2:30"

    def drained() -> bool:
        return (base / ".hoodie" / "hoodie.properties").exists() and _checkpoint(HudiTable.open(str(base))) == end

    _run_until(config, drained)
    table = HudiTable.open(str(base))
    assert table.config.table_type.value == "MERGE_ON_READ"
    assert _rows(table) == _latest(EVENTS)


@pytest.mark.s3
def test_the_s3_example_config_ingests_landing_files(
    endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    landing, lake = new_bucket(endpoint, monkeypatch), new_bucket(endpoint, monkeypatch)
    client = admin_client(endpoint)
    for f in range(3):
        body = "".join(json.dumps(e) + "\n" for e in EVENTS[f * 30 : (f + 1) * 30])
        client.put_object(Bucket=landing, Key=f"events/part-{f}.json", Body=body.encode())
        time.sleep(1.1)  # distinct seconds: the files are taken in landing order
    config = _example(
        "streamer-s3.toml",
        tmp_path,
        {
            '"s3://landing-bucket/events"': f'"s3://{landing}/events"',
            '"s3://lake-bucket/hudi/events"': f'"s3://{lake}/hudi/events"',
            'region = "eu-west-1"': f'region = "us-east-1"\nendpoint_url = "{endpoint}"\naddressing_style = "path"',
        },
    )
    uri, options = f"s3://{lake}/hudi/events", s3_options(endpoint, **FAST_RETRY)

    last = client.head_object(Bucket=landing, Key="events/part-2.json")["LastModified"]
    end = str(int(last.timestamp() * 1000))  # the checkpoint: the last modification time, epoch ms

    def ingested() -> bool:
        listed = client.list_objects_v2(Bucket=lake, Prefix="hudi/events/.hoodie/hoodie.properties")
        return bool(listed.get("KeyCount")) and _checkpoint(HudiTable.open(uri, storage_options=options)) == end

    out = _run_until(config, ingested)
    table = HudiTable.open(uri, storage_options=options)
    assert table.config.table_type.value == "COPY_ON_WRITE"
    assert _rows(table) == _latest(EVENTS), out
