"""The Kafka sources against a real broker (KRaft on 127.0.0.1, the ``kafka_broker`` fixture).

Batches planned and read one after another, each resumed from the last one's checkpoint, hold every
record of the topic exactly once; checkpoints are Apache Hudi's strings; limits spread as it spreads
them; a foreign, malformed or expired checkpoint is refused (or, for expired offsets, skipped past as
Apache Hudi does by default); JSON and Avro values (bare and in Confluent's wire format) decode.
"""

from __future__ import annotations

import io
import json
import struct
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pytest

import hudi_sources_kafka
import hudi_storage_local
from hudi_framework import Components
from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.source import Source, SourcePlan, SourceSplit
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import CheckpointError, SourceError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, HudiPluginManager, build_plugin_manager
from hudi_framework.testing.source_contract import Land, SourceContract

pytestmark = pytest.mark.kafka
BYTE_ARRAY = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
kafka = pytest.importorskip("kafka")

AVRO_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "Trip",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "batch", "type": "int"},
        {"name": "fare", "type": ["null", "double"], "default": None},
    ],
}


def _manager() -> HudiPluginManager:
    """Only the plugins these tests use (the Kafka sources are not an installed entry point yet)."""
    return build_plugin_manager(load_entry_points=False, extra_plugins=[hudi_storage_local, hudi_sources_kafka])


class _Context:
    """The SourceContext a job hands its sources: storage opened with the job's settings."""

    def __init__(self) -> None:
        self._components = Components(_manager(), HudiSettings())

    def storage(self, uri: str) -> StorageBackend:
        return self._components.storage(uri)


@pytest.fixture(scope="module")
def registry() -> ComponentRegistry:
    return ComponentRegistry.from_manager(_manager())


@pytest.fixture(scope="module")
def context() -> _Context:
    return _Context()


@pytest.fixture
def topic(kafka_broker: Any) -> str:
    """A new 3-partition topic."""
    name = f"trips-{uuid.uuid4().hex[:8]}"
    _create(kafka_broker.bootstrap, name, 3)
    return name


def _create(bootstrap: str, name: str, partitions: int) -> None:
    admin = kafka.KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        admin.create_topics([kafka.admin.NewTopic(name, partitions, 1)])
    finally:
        admin.close()


def _produce(bootstrap: str, topic: str, records: list[tuple[int, bytes | None, bytes | None]]) -> None:
    """``(partition, key, value)`` records, in order, acknowledged."""
    producer = kafka.KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=0)
    try:
        for partition, key, value in records:
            producer.send(topic, key=key, value=value, partition=partition)
        producer.flush()
    finally:
        producer.close()


def _json_batch(batch: int, size: int) -> list[tuple[int, bytes | None, bytes | None]]:
    rows = [{"id": f"b{batch}-{i}", "batch": batch, "fare": i * 0.5} for i in range(size)]
    return [(i % 3, r["id"].encode(), json.dumps(r).encode()) for i, r in enumerate(rows)]  # type: ignore[union-attr]


def _source(registry: ComponentRegistry, name: str, options: Mapping[str, Any]) -> Source:
    return registry.build(ComponentKind.SOURCE, name, options)


def _read(source: Source, plan: SourcePlan, context: _Context) -> pa.Table:
    batches = [b for split in plan.splits for b in source.read(split, context)]
    return pa.Table.from_batches(batches) if batches else pa.table({})


def _json_options(bootstrap: str, topic: str, **extra: Any) -> dict[str, Any]:
    return {
        "hoodie.streamer.source.kafka.topic": topic,
        "bootstrap.servers": bootstrap,
        "auto.offset.reset": "earliest",
        **extra,
    }


def test_twenty_batches_resumed_from_checkpoints_are_read_exactly_once(
    kafka_broker: Any, topic: str, registry: ComponentRegistry, context: _Context
) -> None:
    bootstrap = kafka_broker.bootstrap
    produced: list[str] = []
    seen: list[str] = []
    checkpoint: str | None = None
    for batch in range(20):
        records = _json_batch(batch, 7 + batch % 5)
        _produce(bootstrap, topic, records)
        produced += [json.loads(v)["id"] for _, _, v in records if v is not None]
        # Each round is a restarted job: a new source, only the committed checkpoint carried over.
        source = _source(registry, "JsonKafkaSource", _json_options(bootstrap, topic))
        plan = source.plan(checkpoint, limit=8, context=context)
        again = _source(registry, "kafka-json", _json_options(bootstrap, topic)).plan(
            checkpoint, limit=8, context=context
        )
        assert again == plan  # an uncommitted batch is planned again identically
        rows = _read(source, plan, context)
        assert rows.num_rows == sum(s.size_hint for s in plan.splits) <= 8
        seen += rows.column("id").to_pylist() if rows.num_rows else []
        checkpoint = plan.checkpoint
    source = _source(registry, "org.apache.hudi.utilities.sources.JsonKafkaSource", _json_options(bootstrap, topic))
    while not (plan := source.plan(checkpoint, limit=50, context=context)).empty:
        seen += _read(source, plan, context).column("id").to_pylist()
        checkpoint = plan.checkpoint
    assert sorted(seen) == sorted(produced)
    assert len(seen) == len(set(seen))
    ends = [sum(1 for p, _, _ in _all_batches() if p == partition) for partition in range(3)]
    assert checkpoint == f"{topic},0:{ends[0]},1:{ends[1]},2:{ends[2]}"
    assert plan.checkpoint == checkpoint  # nothing new: the plan is empty and keeps the checkpoint


def _all_batches() -> list[tuple[int, bytes | None, bytes | None]]:
    return [r for batch in range(20) for r in _json_batch(batch, 7 + batch % 5)]


def test_a_limit_is_spread_over_partitions_and_max_events_applies_without_one(
    kafka_broker: Any, topic: str, registry: ComponentRegistry, context: _Context
) -> None:
    _produce(kafka_broker.bootstrap, topic, _json_batch(0, 30))  # 10 per partition
    source = _source(registry, "kafka-json", _json_options(kafka_broker.bootstrap, topic))
    plan = source.plan(None, limit=12, context=context)
    assert [(s.id, s.size_hint) for s in plan.splits] == [(f"{topic}-{p}:0-4", 4) for p in range(3)]
    assert plan.checkpoint == f"{topic},0:4,1:4,2:4"
    rows = _read(source, plan, context)
    # Partition p holds records p, p+3, p+6...: its first four are those below 12.
    assert sorted(rows.column("id").to_pylist()) == sorted(f"b0-{i}" for i in range(12))
    capped = _source(
        registry,
        "kafka-json",
        _json_options(kafka_broker.bootstrap, topic, **{"hoodie.deltastreamer.kafka.source.maxEvents": 5}),
    )
    assert sum(s.size_hint for s in capped.plan(plan.checkpoint, limit=None, context=context).splits) == 5


def test_min_partitions_cuts_a_partition_into_splits_read_exactly(
    kafka_broker: Any, registry: ComponentRegistry, context: _Context
) -> None:
    name = f"one-{uuid.uuid4().hex[:8]}"
    _create(kafka_broker.bootstrap, name, 1)
    _produce(kafka_broker.bootstrap, name, [(0, None, json.dumps({"n": i}).encode()) for i in range(100)])
    options = _json_options(kafka_broker.bootstrap, name, **{"hoodie.streamer.source.kafka.minPartitions": 4})
    source = _source(registry, "kafka-json", options)
    plan = source.plan(None, limit=None, context=context)
    assert [s.id for s in plan.splits] == [f"{name}-0:{a}-{a + 25}" for a in (0, 25, 50, 75)]
    for split in plan.splits:
        start, stop = split.payload["start"], split.payload["stop"]
        rows = pa.Table.from_batches(list(source.read(split, context)))
        assert rows.column("n").to_pylist() == list(range(start, stop))  # type: ignore[call-overload]


def test_latest_starts_at_the_end_and_resumes_from_there(
    kafka_broker: Any, topic: str, registry: ComponentRegistry, context: _Context
) -> None:
    _produce(kafka_broker.bootstrap, topic, _json_batch(0, 6))
    options = {**_json_options(kafka_broker.bootstrap, topic), "auto.offset.reset": "latest"}
    source = _source(registry, "kafka-json", options)
    first = source.plan(None, limit=None, context=context)
    assert first.empty
    assert first.checkpoint == f"{topic},0:2,1:2,2:2"
    _produce(kafka_broker.bootstrap, topic, _json_batch(1, 4))
    second = source.plan(first.checkpoint, limit=None, context=context)
    assert sorted(_read(source, second, context).column("id").to_pylist()) == [f"b1-{i}" for i in range(4)]


def test_foreign_malformed_or_impossible_checkpoints_are_refused(
    kafka_broker: Any, topic: str, registry: ComponentRegistry, context: _Context
) -> None:
    _produce(kafka_broker.bootstrap, topic, _json_batch(0, 3))
    source = _source(registry, "kafka-json", _json_options(kafka_broker.bootstrap, topic))
    for checkpoint, why in [
        ("other-topic,0:1,1:1,2:1", "checkpoint of topic 'other-topic'"),
        ("1700000000000", "expected 'topic,partition:offset"),
        (f"{topic},0:1,7:0", "has no partition 7"),
        (f"{topic},0:99,1:0,2:0", "ends at offset 1, before the checkpoint's 99"),
    ]:
        with pytest.raises(CheckpointError, match=why):
            source.plan(checkpoint, limit=None, context=context)
    missing = _source(registry, "kafka-json", _json_options(kafka_broker.bootstrap, f"absent-{uuid.uuid4().hex[:6]}"))
    with pytest.raises(SourceError, match="does not exist"):
        missing.plan(None, limit=None, context=context)


def test_expired_offsets_fail_with_fail_on_data_loss_else_resume_at_the_earliest(
    kafka_broker: Any, topic: str, registry: ComponentRegistry, context: _Context
) -> None:
    _produce(kafka_broker.bootstrap, topic, _json_batch(0, 30))  # 10 per partition
    admin = kafka.KafkaAdminClient(bootstrap_servers=kafka_broker.bootstrap)
    try:
        admin.delete_records({kafka.TopicPartition(topic, 0): 6})  # retention took offsets 0..5 of partition 0
    finally:
        admin.close()
    checkpoint = f"{topic},0:2,1:3,2:10"
    strict = _json_options(
        kafka_broker.bootstrap, topic, **{"hoodie.streamer.source.kafka.enable.failOnDataLoss": True}
    )
    with pytest.raises(CheckpointError, match=r"0:\{checkpoint=2,earliest=6\}"):
        _source(registry, "kafka-json", strict).plan(checkpoint, limit=None, context=context)
    source = _source(registry, "kafka-json", _json_options(kafka_broker.bootstrap, topic))
    plan = source.plan(checkpoint, limit=None, context=context)
    # Only the expired partition moves to its earliest offset; partition 1 keeps its checkpoint.
    covered = {(s.payload["partition"], o) for s in plan.splits for o in range(s.payload["start"], s.payload["stop"])}  # type: ignore[call-overload]
    assert covered == {(0, o) for o in range(6, 10)} | {(1, o) for o in range(3, 10)}
    assert plan.checkpoint == f"{topic},0:10,1:10,2:10"
    stale = SourceSplit(id="stale", payload={**plan.splits[0].payload, "start": 2})
    with pytest.raises(SourceError, match="no longer in Kafka"):
        list(source.read(stale, context))


def test_offset_columns_keys_and_tombstones(
    kafka_broker: Any, topic: str, registry: ComponentRegistry, context: _Context
) -> None:
    _produce(
        kafka_broker.bootstrap,
        topic,
        [(0, b"a", b'{"id": "a"}'), (0, b"gone", None), (0, None, b'{"id": "b"}'), (1, b"c", b'{"id": "c"}')],
    )
    options = _json_options(kafka_broker.bootstrap, topic, **{"hoodie.streamer.source.kafka.append.offsets": "true"})
    source = _source(registry, "kafka-json", options)
    plan = source.plan(None, limit=None, context=context)
    assert plan.checkpoint == f"{topic},0:3,1:1,2:0"  # past the tombstone, which has no row
    rows = _read(source, plan, context).sort_by("id")
    assert rows.select(["id", "_hoodie_kafka_source_offset", "_hoodie_kafka_source_partition"]).to_pylist() == [
        {"id": "a", "_hoodie_kafka_source_offset": 0, "_hoodie_kafka_source_partition": 0},
        {"id": "b", "_hoodie_kafka_source_offset": 2, "_hoodie_kafka_source_partition": 0},
        {"id": "c", "_hoodie_kafka_source_offset": 0, "_hoodie_kafka_source_partition": 1},
    ]
    assert rows.column("_hoodie_kafka_source_key").to_pylist() == ["a", None, "c"]
    assert all(t > 0 for t in rows.column("_hoodie_kafka_source_timestamp").to_pylist())


def _avro_value(record: dict[str, Any], confluent: bool) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(AVRO_SCHEMA), record)
    return (b"\x00" + struct.pack(">i", 7) if confluent else b"") + out.getvalue()


@pytest.mark.parametrize(
    "deserializer",
    [
        None,
        "org.apache.hudi.utilities.deser.KafkaAvroSchemaDeserializer",
        "org.apache.kafka.common.serialization.ByteArrayDeserializer",
    ],
)
def test_avro_values_with_a_schema_file(
    kafka_broker: Any,
    topic: str,
    registry: ComponentRegistry,
    context: _Context,
    tmp_path: Path,
    deserializer: str | None,
) -> None:
    confluent = deserializer != BYTE_ARRAY
    records = [{"id": f"r{i}", "batch": i // 4, "fare": None if i % 3 == 0 else i * 1.25} for i in range(12)]
    _produce(kafka_broker.bootstrap, topic, [(i % 3, None, _avro_value(r, confluent)) for i, r in enumerate(records)])
    schema_file = tmp_path / "trip.avsc"
    schema_file.write_text(json.dumps(AVRO_SCHEMA))
    options = {
        **_json_options(kafka_broker.bootstrap, topic),
        "hoodie.streamer.schemaprovider.source.schema.file": str(schema_file),
        **({"hoodie.streamer.source.kafka.value.deserializer.class": deserializer} if deserializer else {}),
    }
    source = _source(registry, "org.apache.hudi.utilities.sources.AvroKafkaSource", options)
    plan = source.plan(None, limit=None, context=context)
    assert plan.schema == pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("batch", pa.int32(), nullable=False),
            pa.field("fare", pa.float64()),
        ]
    )
    rows = _read(source, plan, context)
    assert rows.schema == plan.schema
    assert sorted(rows.to_pylist(), key=lambda r: r["id"]) == sorted(records, key=lambda r: str(r["id"]))


def test_avro_values_without_the_confluent_header_name_the_offset(
    kafka_broker: Any, topic: str, registry: ComponentRegistry, context: _Context
) -> None:
    _produce(kafka_broker.bootstrap, topic, [(0, None, _avro_value({"id": "x", "batch": 0, "fare": None}, False))])
    options = {
        **_json_options(kafka_broker.bootstrap, topic),
        "hoodie.deltastreamer.source.kafka.value.deserializer.schema": json.dumps(AVRO_SCHEMA),
    }
    source = _source(registry, "AvroKafkaSource", options)
    plan = source.plan(None, limit=None, context=context)
    with pytest.raises(SourceError, match=rf"split {topic}-0:0-1: the value at offset 0 does not start with Confluent"):
        _read(source, plan, context)


class TestKafkaJsonContract(SourceContract):
    """The shared source contract suite, on a fresh 3-partition topic per test."""

    SMALL_LIMIT = 2
    BAD_CHECKPOINTS = ("other-topic,0:0", "1700000000000", "x,0:zero")  # "" is no checkpoint, as in Apache Hudi

    @pytest.fixture
    def source(self, kafka_broker: Any, topic: str, registry: ComponentRegistry) -> Source:
        return _source(registry, "kafka-json", _json_options(kafka_broker.bootstrap, topic))

    @pytest.fixture
    def land(self, kafka_broker: Any, topic: str) -> Land:
        batches = iter(range(1000))

        def land() -> list[str]:
            records = _json_batch(next(batches), 5)
            _produce(kafka_broker.bootstrap, topic, records)
            return [json.loads(v)["id"] for _, _, v in records if v is not None]

        return land
