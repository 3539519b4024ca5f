"""The plugin registers six key generators under their names, Apache Hudi type names and class names."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pytest

from hudi_framework.contracts.keygen import KeyGenerator
from hudi_framework.errors import InvalidConfigValueError, PluginConfigError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from tests.unit.keygen.conftest import MakeKeyGen

EXPECTED = {
    "simple": ("SIMPLE", "SimpleKeyGenerator", "SimpleAvroKeyGenerator"),
    "complex": ("COMPLEX", "ComplexKeyGenerator", "ComplexAvroKeyGenerator"),
    "non-partition": ("NON_PARTITION", "NonpartitionedKeyGenerator", "NonpartitionedAvroKeyGenerator"),
    "timestamp": ("TIMESTAMP", "TimestampBasedKeyGenerator", "TimestampBasedAvroKeyGenerator"),
    "custom": ("CUSTOM", "CustomKeyGenerator", "CustomAvroKeyGenerator"),
    "global-delete": ("GLOBAL_DELETE", "GlobalDeleteKeyGenerator", "GlobalAvroDeleteKeyGenerator"),
}


def test_names(keygen_registry: ComponentRegistry) -> None:
    assert keygen_registry.names(ComponentKind.KEYGEN) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_aliases_resolve_to_the_component(keygen_registry: ComponentRegistry, name: str) -> None:
    hudi_type, cls, avro_cls = EXPECTED[name]
    for alias in (
        hudi_type,
        f"{hudi_type}_AVRO",
        f"org.apache.hudi.keygen.{cls}",
        f"org.apache.hudi.keygen.{avro_cls}",
    ):
        assert keygen_registry.get(ComponentKind.KEYGEN, alias).spec.name == name


def test_spark_sql_key_generator_is_complex(keygen_registry: ComponentRegistry) -> None:
    spec = keygen_registry.get(ComponentKind.KEYGEN, "org.apache.spark.sql.hudi.command.SqlKeyGenerator").spec
    assert spec.name == "complex"


def test_installed_entry_point_is_found() -> None:
    registry = ComponentRegistry.from_manager(build_plugin_manager())
    assert set(EXPECTED) <= set(registry.names(ComponentKind.KEYGEN))


def test_options_model_forbids_unknown_options(make_keygen: MakeKeyGen) -> None:
    with pytest.raises(PluginConfigError, match="record_key_field"):
        make_keygen("simple", record_key_field="id")


def test_record_key_fields_are_required(make_keygen: MakeKeyGen) -> None:
    with pytest.raises(PluginConfigError, match="record_key_fields"):
        make_keygen("simple", record_key_fields=[])


def test_comma_separated_fields_are_accepted(make_keygen: MakeKeyGen) -> None:
    kg = make_keygen("complex", record_key_fields="a, b,", partition_fields="p")
    assert kg.record_key_fields == ("a", "b")
    assert kg.partition_fields == ("p",)
    assert kg.hudi_type == "COMPLEX"
    assert kg.describe() == {"type": "COMPLEX", "record_key_fields": ["a", "b"], "partition_fields": ["p"]}


@pytest.mark.parametrize(
    ("name", "options", "match"),
    [
        ("simple", {"record_key_fields": ["a", "b"]}, "one record key field"),
        ("simple", {"record_key_fields": ["a"], "partition_fields": ["p", "q"]}, "at most one partition field"),
        ("timestamp", {"record_key_fields": ["a"], "partition_fields": ["p", "q"]}, "one partition field"),
        ("timestamp", {"record_key_fields": ["a"], "partition_fields": ["p"]}, "timestamp options"),
        ("custom", {"record_key_fields": ["a"], "partition_fields": ["p"]}, "field:type"),
        ("custom", {"record_key_fields": ["a"], "partition_fields": ["p:DAY"]}, "SIMPLE or TIMESTAMP"),
        ("custom", {"record_key_fields": ["a"], "partition_fields": ["p:timestamp"]}, "timestamp options"),
    ],
)
def test_invalid_configurations_fail_when_built(
    make_keygen: MakeKeyGen, name: str, options: dict[str, object], match: str
) -> None:
    with pytest.raises(InvalidConfigValueError, match=match):
        make_keygen(name, **options)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_generators_pickle(make_keygen: MakeKeyGen, name: str) -> None:
    partition = {"timestamp": ["ts"], "custom": ["ts:TIMESTAMP", "p:simple"]}.get(name, ["p"])
    kg = make_keygen(
        name,
        record_key_fields=["id"],
        partition_fields=partition,
        timestamp={"timestamp_type": "EPOCHMILLISECONDS", "output_date_format": "yyyy/MM/dd"},
    )
    clone = pickle.loads(pickle.dumps(kg))
    assert isinstance(clone, KeyGenerator)
    batch = pa.table({"id": [1, 2], "p": ["x", "y"], "ts": pa.array([0, 86_400_000], pa.int64())})
    assert clone.record_keys(batch).equals(kg.record_keys(batch))
    assert clone.partition_paths(batch).equals(kg.partition_paths(batch))
