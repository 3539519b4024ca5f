"""TableConfig: typed view of hoodie.properties, per-version keys."""

from __future__ import annotations

import pytest

from hudi_framework.errors import TableVersionError
from hudi_framework.table.table_config import TableConfig, new_table_config
from hudi_framework.vocabulary import EVENT_TIME_STRATEGY_ID, RecordMergeMode, TableType, key_generator_type_of_class


def test_v9_keys() -> None:
    cfg = new_table_config("trips", table_type="mor", record_key_fields=["id"], partition_fields=["city"],
                           ordering_fields=["ts"], hive_style_partitioning=True)  # fmt: skip
    p = cfg.to_properties()
    assert p["hoodie.table.version"] == "9"
    assert p["hoodie.table.initial.version"] == "9"
    assert p["hoodie.timeline.layout.version"] == "2"
    assert p["hoodie.table.ordering.fields"] == "ts"
    assert "hoodie.table.precombine.field" not in p
    assert p["hoodie.record.merge.mode"] == "EVENT_TIME_ORDERING"
    assert "hoodie.compaction.payload.class" not in p
    assert p["hoodie.table.keygenerator.type"] == "SIMPLE"
    assert p["hoodie.table.format"] == "native"
    assert p["hoodie.table.type"] == "MERGE_ON_READ"


def test_v8_keys() -> None:
    p = new_table_config("t", version=8, record_key_fields=["id"], ordering_fields=["ts"]).to_properties()
    assert p["hoodie.table.precombine.field"] == "ts"
    assert p["hoodie.record.merge.strategy.id"] == EVENT_TIME_STRATEGY_ID
    assert p["hoodie.compaction.payload.class"].endswith("DefaultHoodieRecordPayload")
    assert p["hoodie.table.keygenerator.type"] == "NON_PARTITION"


def test_v6_keys() -> None:
    p = new_table_config("t", version=6, record_key_fields=["a", "b"], partition_fields=["p"]).to_properties()
    assert p["hoodie.timeline.layout.version"] == "1"
    assert p["hoodie.table.keygenerator.class"] == "org.apache.hudi.keygen.ComplexKeyGenerator"
    assert "hoodie.table.initial.version" not in p
    assert "hoodie.record.merge.mode" not in p
    assert p["hoodie.compaction.payload.class"].endswith("OverwriteWithLatestAvroPayload")


def test_round_trip_preserves_unknown_keys() -> None:
    props = new_table_config("t", record_key_fields=["id"]).to_properties() | {"hoodie.custom.thing": "x"}
    cfg = TableConfig.from_properties(props)
    assert cfg.extra["hoodie.custom.thing"] == "x"
    assert cfg.to_properties() == props


@pytest.mark.parametrize(
    ("cls", "expected"),
    [
        ("org.apache.hudi.keygen.SimpleKeyGenerator", "SIMPLE"),
        ("org.apache.hudi.keygen.ComplexAvroKeyGenerator", "COMPLEX"),
        ("org.apache.hudi.keygen.NonpartitionedKeyGenerator", "NON_PARTITION"),
        ("org.apache.hudi.keygen.TimestampBasedKeyGenerator", "TIMESTAMP"),
        ("org.apache.hudi.keygen.CustomKeyGenerator", "CUSTOM"),
    ],
)
def test_keygen_class_mapping(cls: str, expected: str) -> None:
    assert key_generator_type_of_class(cls) == expected


def test_inferred_merge_mode() -> None:
    assert new_table_config("t", record_key_fields=["id"]).merge_mode is RecordMergeMode.COMMIT_TIME_ORDERING
    v6 = TableConfig.from_properties({"hoodie.table.name": "t", "hoodie.table.version": "6"})
    assert v6.effective_merge_mode is RecordMergeMode.COMMIT_TIME_ORDERING
    assert v6.table_type is TableType.COPY_ON_WRITE


@pytest.mark.parametrize(("version", "layout"), [("7", "2"), ("5", "1"), ("9", "1"), ("6", "2"), ("x", "1")])
def test_unsupported_or_inconsistent_versions(version: str, layout: str) -> None:
    with pytest.raises(TableVersionError):
        TableConfig.from_properties(
            {
                "hoodie.table.name": "t",
                "hoodie.table.version": version,
                "hoodie.timeline.layout.version": layout,
            }
        )


@pytest.mark.parametrize(("version", "persisted"), [(6, "region,ts"), (8, "region:SIMPLE,ts:TIMESTAMP"),
                                                    (9, "region:SIMPLE,ts:TIMESTAMP")])  # fmt: skip
def test_custom_partition_field_types_are_persisted_from_version_8(version: int, persisted: str) -> None:
    cfg = new_table_config(
        "t", version=version, record_key_fields=["id"], partition_fields=["region:SIMPLE", "ts:TIMESTAMP"],
        key_generator_type="CUSTOM",
    )  # fmt: skip
    props = cfg.to_properties()
    assert props["hoodie.table.partition.fields"] == persisted
    assert TableConfig.from_properties(props).partition_fields == ("region", "ts")
