"""Every example job config in ``configs/`` loads and validates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hudi_framework import Components
from hudi_framework.config import HudiSettings
from hudi_framework.vocabulary import RecordMergeMode, TableType, WriteOperation

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
CONFIG_FILES = sorted(p for p in CONFIGS.iterdir() if p.suffix in {".toml", ".yaml", ".yml"})


def test_configs_directory_has_the_required_examples() -> None:
    names = {p.name for p in CONFIG_FILES}
    assert {
        "local-cow.toml",
        "mor-event-time.toml",
        "s3-dynamodb-multiwriter.yaml",
        "hoodie-options.toml",
    } <= names
    assert all(p.suffix in {".toml", ".yaml", ".yml"} for p in CONFIGS.iterdir() if p.is_file())


@pytest.mark.parametrize("path", CONFIG_FILES, ids=[p.name for p in CONFIG_FILES])
def test_config_file_validates(path: Path) -> None:
    settings = HudiSettings.load(path, env=False)
    assert settings.table.name
    assert settings.table.base_path
    assert settings.table.record_key_fields
    # The JSON form (what Spark executors receive) loads back to the same settings; the examples
    # hold no secrets, which JSON masks.
    assert HudiSettings.load(overrides=json.loads(settings.model_dump_json()), env=False) == settings


def test_local_cow_example() -> None:
    settings = HudiSettings.load(CONFIGS / "local-cow.toml", env=False)
    assert settings.table.type is TableType.COPY_ON_WRITE
    assert settings.storage.backend is None  # chosen by the base path's scheme


def test_mor_example_uses_event_time_and_inline_compaction() -> None:
    settings = HudiSettings.load(CONFIGS / "mor-event-time.toml", env=False)
    assert settings.table.type is TableType.MERGE_ON_READ
    assert settings.merger.effective_mode(settings.table.ordering_fields) is RecordMergeMode.EVENT_TIME_ORDERING
    assert settings.services.compaction.inline
    assert settings.services.compaction.max_delta_commits == 3
    assert settings.index.component.name == "bloom"


def test_s3_example_is_multi_writer_with_dynamodb() -> None:
    settings = HudiSettings.load(CONFIGS / "s3-dynamodb-multiwriter.yaml", env=False)
    assert settings.lock.provider == "dynamodb"
    assert settings.lock.options["table"] == "hudi-locks"
    assert settings.write.effective_failed_writes_policy.value == "LAZY"
    assert Components.from_settings(settings).storage_spec(settings.table.base_path or "").options == {
        "max_attempts": 10,
        "region": "eu-west-1",
    }


def test_hoodie_example_maps_onto_typed_fields() -> None:
    settings = HudiSettings.load(CONFIGS / "hoodie-options.toml", env=False)
    assert settings.table.name == "hoodie_style"
    assert settings.table.base_path == "/tmp/hudi/hoodie_style"
    assert settings.table.partition_fields == ("region", "day")
    assert settings.table.key_generator is not None
    assert settings.table.key_generator.name == "complex"
    assert settings.write.operation is WriteOperation.UPSERT
    assert settings.services.clean.commits_retained == 8


def test_streamer_examples_hand_their_source_keys_to_the_source() -> None:
    kafka = HudiSettings.load(CONFIGS / "streamer-kafka.toml", env=False)
    assert kafka.streamer.source == "JsonKafkaSource"
    assert kafka.streamer.source_options == {
        "hoodie.streamer.source.kafka.topic": "events",
        "bootstrap.servers": "127.0.0.1:9092",
        "auto.offset.reset": "earliest",
        "hoodie.streamer.kafka.source.maxEvents": "100000",
    }
    s3 = HudiSettings.load(CONFIGS / "streamer-s3.toml", env=False)
    assert s3.streamer.source_options == {
        "hoodie.streamer.source.dfs.root": "s3://landing-bucket/events",
        "settle_ms": 5000,
    }
    assert s3.table.base_path == "s3://lake-bucket/hudi/events"
    assert s3.table.type is TableType.COPY_ON_WRITE
