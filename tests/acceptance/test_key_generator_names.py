"""Every spelling Apache Hudi uses for a key generator means the same thing on every path.

Key generator names are read from ``hoodie.properties`` (type or Java class), from writer options
(``hoodie.datasource.write.keygenerator.*``) and from typed settings (registered component names).
Each path must agree with the others, or a table one path created is refused by another.
"""

from __future__ import annotations

import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.table.from_settings import check_settings_match_table, table_config_from_settings
from hudi_framework.table.table_config import TableConfig

_V6_PROPS = {
    "hoodie.table.name": "t",
    "hoodie.table.version": "6",
    "hoodie.table.type": "COPY_ON_WRITE",
    "hoodie.table.recordkey.fields": "id",
    "hoodie.table.partition.fields": "p",
}


@pytest.mark.parametrize(
    ("java_class", "type_name"),
    [
        ("org.apache.hudi.keygen.GlobalDeleteKeyGenerator", "GLOBAL_DELETE"),
        # KeyGeneratorType.GLOBAL_DELETE_AVRO's class: "Avro" sits before "Delete" in this one name.
        ("org.apache.hudi.keygen.GlobalAvroDeleteKeyGenerator", "GLOBAL_DELETE"),
        ("org.apache.hudi.keygen.NonpartitionedAvroKeyGenerator", "NON_PARTITION"),
    ],
)
def test_v6_key_generator_class_reads_as_its_type_and_is_rewritten_unchanged(java_class: str, type_name: str) -> None:
    config = TableConfig.from_properties({**_V6_PROPS, "hoodie.table.keygenerator.class": java_class})
    assert config.key_generator_type == type_name
    # Rewriting hoodie.properties (any commit that updates it) must keep the key generator.
    rewritten = config.to_properties()["hoodie.table.keygenerator.class"]
    assert TableConfig.from_properties(
        {**_V6_PROPS, "hoodie.table.keygenerator.class": rewritten}
    ).key_generator_type == (type_name)


@pytest.mark.parametrize(
    ("key", "value", "component"),
    [
        (
            "hoodie.datasource.write.keygenerator.class",
            "org.apache.hudi.keygen.GlobalAvroDeleteKeyGenerator",
            "global-delete",
        ),
        (
            "hoodie.datasource.write.keygenerator.class",
            "org.apache.hudi.keygen.GlobalDeleteKeyGenerator",
            "global-delete",
        ),
        ("hoodie.datasource.write.keygenerator.type", "GLOBAL_DELETE_AVRO", "global-delete"),
        ("hoodie.table.keygenerator.class", "org.apache.spark.sql.hudi.command.SqlKeyGenerator", "complex"),
    ],
)
def test_writer_options_accept_every_key_generator_the_table_reader_accepts(
    key: str, value: str, component: str
) -> None:
    settings = HudiSettings.from_hoodie_options({key: value, "hoodie.table.name": "t"}, env=False)
    assert settings.table.key_generator is not None
    assert settings.table.key_generator.name == component


@pytest.mark.parametrize("name", ["global-delete", "nonpartitioned", "non-partition", "complex"])
def test_table_created_from_settings_accepts_the_same_settings_again(name: str) -> None:
    settings = HudiSettings(table={"name": "t", "record_key_fields": ["id"], "key_generator": {"name": name}})
    config = table_config_from_settings(settings)
    check_settings_match_table(config, settings)  # a second write with the same settings is accepted
