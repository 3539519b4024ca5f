"""The kernel helper: TableConfig -> TableKeySettings -> a key generator from the registry."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.contracts.keygen import ComplexKeyEncoding, KeyGenerator, TimeUnit
from hudi_framework.errors import InvalidConfigValueError, PluginConfigError, PluginError, UnknownComponentError
from hudi_framework.plugin import ComponentRegistry, ComponentSpec, build_plugin_manager, hookimpl
from hudi_framework.table.keys import build_key_generator, key_generator_options, typed_partition_fields
from hudi_framework.table.table_config import TableConfig, new_table_config
from hudi_framework.vocabulary import TimestampType, key_generator_component
from hudi_keygen_builtin import KeyGenOptions


@pytest.mark.parametrize(
    ("name", "component"),
    [
        ("SIMPLE", "simple"),
        ("simple_avro", "simple"),
        ("COMPLEX", "complex"),
        ("NON_PARTITION", "non-partition"),
        ("NON_PARTITION_AVRO", "non-partition"),
        ("TIMESTAMP", "timestamp"),
        ("CUSTOM_AVRO", "custom"),
        ("GLOBAL_DELETE", "global-delete"),
        ("org.apache.hudi.keygen.SimpleKeyGenerator", "simple"),
        ("org.apache.hudi.keygen.NonpartitionedAvroKeyGenerator", "non-partition"),
        ("org.apache.hudi.keygen.TimestampBasedKeyGenerator", "timestamp"),
        ("org.apache.hudi.keygen.GlobalAvroDeleteKeyGenerator", "global-delete"),
        ("org.apache.spark.sql.hudi.command.SqlKeyGenerator", "complex"),
        ("SPARK_SQL", "complex"),
        ("complex", "complex"),
        ("com.acme.MyKeyGenerator", "com.acme.MyKeyGenerator"),
    ],
)
def test_component_names(name: str, component: str) -> None:
    assert key_generator_component(name) == component


def config(**changes: object) -> TableConfig:
    base = new_table_config("t", record_key_fields=["id"], partition_fields=["p"], version=9)
    return base.with_updates(**changes)


def test_options_from_table_config() -> None:
    cfg = config(hive_style_partitioning=True, url_encode_partitions=True)
    options = key_generator_options(cfg)
    assert options.record_key_fields == ("id",)
    assert options.partition_fields == ("p",)
    assert options.hive_style_partitioning
    assert options.url_encode_partitions
    assert options.timestamp is None
    assert not options.consistent_logical_timestamp


@pytest.mark.parametrize(
    ("version", "extra", "expected"),
    [
        (9, {}, ComplexKeyEncoding.FIELD_PREFIXED),
        (8, {}, ComplexKeyEncoding.FIELD_PREFIXED),
        (6, {}, ComplexKeyEncoding.FIELD_PREFIXED),
        (9, {"hoodie.table.complex.keygen.encoding": " value_only "}, ComplexKeyEncoding.VALUE_ONLY),
        (8, {"hoodie.write.complex.keygen.new.encoding": "true"}, ComplexKeyEncoding.VALUE_ONLY),
        (9, {"hoodie.write.complex.keygen.new.encoding": "true"}, ComplexKeyEncoding.FIELD_PREFIXED),
    ],
)
def test_complex_single_field_encoding(version: int, extra: dict[str, str], expected: ComplexKeyEncoding) -> None:
    cfg = config(version=version, key_generator_type="COMPLEX", extra=extra)
    assert key_generator_options(cfg).complex_single_field_encoding is expected


def test_encoding_override_and_bad_persisted_value() -> None:
    cfg = config(key_generator_type="COMPLEX")
    assert key_generator_options(cfg, complex_single_field_encoding="VALUE_ONLY").complex_single_field_encoding is (
        ComplexKeyEncoding.VALUE_ONLY
    )
    bad = config(extra={"hoodie.table.complex.keygen.encoding": "BARE"})
    with pytest.raises(InvalidConfigValueError, match=r"complex\.keygen\.encoding"):
        key_generator_options(bad)


def test_timestamp_options_from_persisted_keys() -> None:
    cfg = config(
        key_generator_type="TIMESTAMP",
        extra={
            "hoodie.keygen.timebased.timestamp.type": "scalar",
            "hoodie.keygen.timebased.timestamp.scalar.time.unit": "days",
            "hoodie.deltastreamer.keygen.timebased.output.dateformat": "yyyy/MM/dd",
            "hoodie.keygen.timebased.timezone": "UTC",
        },
    )
    options = key_generator_options(cfg)
    assert options.timestamp is not None
    assert options.timestamp.timestamp_type is TimestampType.SCALAR
    assert options.timestamp.scalar_time_unit is TimeUnit.DAYS
    assert options.timestamp.output_date_format == "yyyy/MM/dd"
    assert options.timestamp.effective_input_timezone == "UTC"


def test_write_options_fill_in_but_do_not_override_persisted_keys() -> None:
    # Hudi 0.x persisted the date formats but not the timestamp type.
    cfg = config(
        version=6,
        key_generator_type="TIMESTAMP",
        extra={"hoodie.keygen.timebased.output.dateformat": "yyyy/MM/dd"},
    )
    with pytest.raises(InvalidConfigValueError, match=r"timestamp\.type"):
        key_generator_options(cfg)
    options = key_generator_options(
        cfg,
        write_options={
            "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
            "hoodie.keygen.timebased.output.dateformat": "yyyy",
        },
    )
    assert options.timestamp is not None
    assert options.timestamp.output_date_format == "yyyy/MM/dd"


@pytest.mark.parametrize(
    ("extra", "match"),
    [
        ({"hoodie.keygen.timebased.timestamp.type": "WEEKLY", "hoodie.keygen.timebased.output.dateformat": "y"},
         r"timestamp\.type"),
        ({"hoodie.keygen.timebased.timestamp.type": "DATE_STRING", "hoodie.keygen.timebased.output.dateformat": "y"},
         "input_date_format"),
        ({"hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP"}, r"output\.dateformat"),
        ({"hoodie.keygen.timebased.timestamp.type": "UNIX_TIMESTAMP", "hoodie.keygen.timebased.output.dateformat": "y",
          "hoodie.keygen.datetime.parser.class": "com.acme.Parser"}, "parser"),
    ],
)  # fmt: skip
def test_invalid_timestamp_options(extra: dict[str, str], match: str) -> None:
    with pytest.raises(InvalidConfigValueError, match=match):
        key_generator_options(config(key_generator_type="TIMESTAMP", extra=extra))


def test_custom_needs_timestamp_options_only_with_timestamp_fields() -> None:
    assert (
        key_generator_options(config(key_generator_type="CUSTOM", partition_fields_raw=("p:SIMPLE",))).timestamp is None
    )
    with pytest.raises(InvalidConfigValueError, match=r"timestamp\.type"):
        key_generator_options(config(key_generator_type="CUSTOM", partition_fields_raw=("ts:timestamp",)))
    options = key_generator_options(config(key_generator_type="CUSTOM"), partition_fields=["p:SIMPLE"])
    assert options.partition_fields == ("p:SIMPLE",)


def test_auto_generated_keys_are_refused() -> None:
    with pytest.raises(InvalidConfigValueError, match=r"recordkey\.fields"):
        key_generator_options(config(record_key_fields=()))


def test_consistent_logical_timestamp_flag() -> None:
    flag = "hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled"
    assert key_generator_options(config(extra={flag: "TRUE"})).consistent_logical_timestamp
    assert key_generator_options(config(), write_options={flag: "true"}).consistent_logical_timestamp
    assert not key_generator_options(
        config(extra={flag: "true"}), consistent_logical_timestamp=False
    ).consistent_logical_timestamp


def test_build_key_generator(keygen_registry: ComponentRegistry) -> None:
    cfg = config(key_generator_type="COMPLEX", record_key_fields=("id", "name"), hive_style_partitioning=True)
    kg = build_key_generator(keygen_registry, cfg)
    assert isinstance(kg, KeyGenerator)
    assert kg.hudi_type == "COMPLEX"
    batch = pa.table({"id": [1], "name": ["Alice"], "p": ["x"]})
    assert kg.keys(batch)[0].to_pylist() == ["id:1,name:Alice"]
    assert kg.keys(batch)[1].to_pylist() == ["p=x"]


def test_build_from_a_v6_class_name(keygen_registry: ComponentRegistry) -> None:
    cfg = TableConfig.from_properties(
        {
            "hoodie.table.name": "t",
            "hoodie.table.version": "6",
            "hoodie.table.recordkey.fields": "id",
            "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.NonpartitionedKeyGenerator",
        }
    )
    assert build_key_generator(keygen_registry, cfg).hudi_type == "NON_PARTITION"


def test_unknown_key_generator(keygen_registry: ComponentRegistry) -> None:
    with pytest.raises(UnknownComponentError, match=r"com\.acme\.MyKeyGenerator"):
        build_key_generator(keygen_registry, config(key_generator_type="com.acme.MyKeyGenerator"))


def test_a_plugin_alias_can_provide_a_java_class() -> None:
    class NotAKeyGenerator:
        def __init__(self, options: KeyGenOptions) -> None:
            self.options = options

    class Plugin:
        @hookimpl
        def hudi_key_generators(self) -> list[ComponentSpec[object]]:
            return [
                ComponentSpec("acme", factory=NotAKeyGenerator, options_model=KeyGenOptions, aliases=("com.acme.K",)),
                ComponentSpec("strict", factory=NotAKeyGenerator, aliases=("com.acme.Strict",)),
            ]

    registry = ComponentRegistry.from_manager(build_plugin_manager(load_entry_points=False, extra_plugins=[Plugin()]))
    # Found through the alias, but what it builds is not a KeyGenerator.
    with pytest.raises(PluginError, match=r"'com\.acme\.K' built a NotAKeyGenerator"):
        build_key_generator(registry, config(key_generator_type="com.acme.K"))
    # A component whose own options model takes no options rejects the kernel's.
    with pytest.raises(PluginConfigError, match="strict"):
        build_key_generator(registry, config(key_generator_type="com.acme.Strict"))


@pytest.mark.parametrize(
    ("keygen", "persisted", "written", "expected"),
    [
        # A version 6 custom table persists names only: the writer's typed fields fill them in.
        ("CUSTOM", ("region", "ts"), ("region:SIMPLE", "ts:TIMESTAMP"), ("region:SIMPLE", "ts:TIMESTAMP")),
        # Persisted types (version 8+) win; other names, no types or another key generator: nothing.
        ("CUSTOM", ("region:SIMPLE",), ("region:TIMESTAMP",), None),
        ("CUSTOM", ("region", "ts"), ("ts:TIMESTAMP", "region:SIMPLE"), None),
        ("CUSTOM", ("region",), (), None),
        ("SIMPLE", ("region",), ("region:SIMPLE",), None),
    ],
)
def test_typed_partition_fields(
    keygen: str, persisted: tuple[str, ...], written: tuple[str, ...], expected: tuple[str, ...] | None
) -> None:
    cfg = config(key_generator_type=keygen, partition_fields_raw=persisted)
    assert typed_partition_fields(cfg, written) == expected


def test_a_v6_custom_table_needs_the_types_from_the_writer(keygen_registry: ComponentRegistry) -> None:
    cfg = new_table_config(
        "t", version=6, record_key_fields=["id"], partition_fields=["region:SIMPLE"], key_generator_type="CUSTOM"
    )
    reopened = TableConfig.from_properties(cfg.to_properties())
    assert reopened.partition_fields_raw == ("region",)
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.datasource\.write\.partitionpath\.field"):
        build_key_generator(keygen_registry, reopened)
    typed = typed_partition_fields(reopened, ["region:SIMPLE"])
    keygen = build_key_generator(keygen_registry, reopened, partition_fields=typed)
    assert keygen.partition_paths(pa.table({"id": ["a"], "region": ["eu"]})).to_pylist() == ["eu"]
