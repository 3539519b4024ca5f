"""The Kafka sources' options take Apache Hudi's keys, refuse what is not built, and need no client to import."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

import hudi_sources_kafka
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import PluginConfigError, SourceError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_sources_kafka.options import AvroKafkaSourceOptions, KafkaSourceOptions, OffsetReset
from hudi_storage_local.backend import LocalStorageProvider

BASE = {"hoodie.streamer.source.kafka.topic": "trips", "bootstrap.servers": "127.0.0.1:9"}


@pytest.fixture(scope="module")
def registry() -> ComponentRegistry:
    return ComponentRegistry.from_manager(
        build_plugin_manager(load_entry_points=False, extra_plugins=[hudi_sources_kafka])
    )


@pytest.mark.parametrize("prefix", ["hoodie.streamer.", "hoodie.deltastreamer."])
def test_both_spellings_of_apache_hudis_keys_are_taken(prefix: str) -> None:
    options = KafkaSourceOptions.model_validate(
        {
            f"{prefix}source.kafka.topic": "trips",
            "bootstrap.servers": "127.0.0.1:9",
            "auto.offset.reset": "earliest",
            f"{prefix}kafka.source.maxEvents": "7",
            f"{prefix}source.kafka.minPartitions": 4,
            f"{prefix}source.kafka.enable.failOnDataLoss": "true",
            f"{prefix}source.kafka.append.offsets": "true",
            f"{prefix}schemaprovider.source.schema.file": "/x.avsc",
        }
    )
    assert (options.topic, options.auto_offset_reset, options.max_events, options.min_partitions) == (
        "trips",
        OffsetReset.EARLIEST,
        7,
        4,
    )
    assert options.fail_on_data_loss
    assert options.append_offsets
    assert options.schema_file == "/x.avsc"


def test_defaults_are_apache_hudis() -> None:
    options = KafkaSourceOptions.model_validate(BASE)
    assert options.auto_offset_reset is OffsetReset.LATEST
    assert options.max_events == 5_000_000
    assert options.min_partitions == 0
    assert not options.fail_on_data_loss
    assert not options.append_offsets


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ({"auto.offset.reset": "group"}, "auto.offset.reset=group"),
        ({"auto.offset.reset": "none"}, "auto.offset.reset: Input should be"),
        ({"hoodie.streamer.source.kafka.checkpoint.type": "timestamp"}, "checkpoint.type='timestamp'"),
        ({"hoodie.streamer.kafka.source.maxEvents": 0}, "maxEvents: Input should be greater"),
        ({"group.id": "g"}, "group.id"),
    ],
)
def test_what_is_not_built_is_refused_by_name(registry: ComponentRegistry, extra: dict[str, Any], why: str) -> None:
    with pytest.raises(PluginConfigError, match=why):
        registry.build(ComponentKind.SOURCE, "kafka-json", {**BASE, **extra})


@pytest.mark.parametrize(
    ("extra", "why"),
    [
        ({}, "exactly one of hoodie.streamer.schemaprovider.source.schema.file"),
        (
            {"schema_file": "/a.avsc", "hoodie.streamer.source.kafka.value.deserializer.schema": "{}"},
            "exactly one of",
        ),
        (
            {"schema_file": "/a.avsc", "hoodie.streamer.source.kafka.value.deserializer.class": "com.acme.Deser"},
            "'com.acme.Deser' is not supported",
        ),
    ],
)
def test_avro_needs_one_schema_and_a_known_deserializer(extra: dict[str, Any], why: str) -> None:
    with pytest.raises(ValueError, match=why):
        AvroKafkaSourceOptions.model_validate({**BASE, **extra})


def test_confluent_framing_follows_the_deserializer() -> None:
    def framing(deserializer: str | None) -> bool:
        extra = {} if deserializer is None else {"hoodie.streamer.source.kafka.value.deserializer.class": deserializer}
        return AvroKafkaSourceOptions.model_validate({**BASE, "schema_file": "/a.avsc", **extra}).confluent_framing

    assert framing(None)
    assert framing("org.apache.hudi.utilities.deser.KafkaAvroSchemaDeserializer")
    assert not framing("org.apache.kafka.common.serialization.ByteArrayDeserializer")


def test_names_and_aliases_resolve(registry: ComponentRegistry) -> None:
    for name in ("kafka-json", "JsonKafkaSource", "org.apache.hudi.utilities.sources.JsonKafkaSource"):
        assert registry.get(ComponentKind.SOURCE, name).spec.name == "kafka-json"
    for name in ("kafka-avro", "AvroKafkaSource", "org.apache.hudi.utilities.sources.AvroKafkaSource"):
        assert registry.get(ComponentKind.SOURCE, name).spec.name == "kafka-avro"


def test_without_the_client_a_plan_names_the_missing_package(
    registry: ComponentRegistry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "kafka", None)  # import kafka now raises ImportError
    source = registry.build(ComponentKind.SOURCE, "kafka-json", BASE)  # building needs no client
    with pytest.raises(SourceError, match="pip install kafka-python"):
        source.plan(None, limit=None, context=None)  # type: ignore[arg-type]


def test_a_source_pickles_as_its_options(registry: ComponentRegistry) -> None:
    source = registry.build(ComponentKind.SOURCE, "kafka-avro", {**BASE, "schema_file": "/a.avsc"})
    copy = pickle.loads(pickle.dumps(source))
    assert type(copy) is type(source)
    assert copy.options == source.options  # type: ignore[attr-defined]


def test_an_unreadable_schema_file_names_it(registry: ComponentRegistry, tmp_path: Path) -> None:
    class Context:
        def storage(self, uri: str) -> StorageBackend:
            return LocalStorageProvider().open(uri)

    missing = tmp_path / "missing.avsc"
    source = registry.build(ComponentKind.SOURCE, "kafka-avro", {**BASE, "schema_file": str(missing)})
    with pytest.raises(SourceError, match=r"source 'kafka-avro': cannot read the schema file .*missing\.avsc"):
        source.row_schema(Context())  # type: ignore[attr-defined]
    bad = tmp_path / "bad.avsc"
    bad.write_text('{"type": "record", "name": "R", "fields": [{"name": "x", "type": ["int", "string"]}]}')
    source = registry.build(ComponentKind.SOURCE, "kafka-json", {**BASE, "schema_file": str(bad)})
    with pytest.raises(SourceError, match="has no row form"):
        source.row_schema(Context())  # type: ignore[attr-defined]
