"""Turning typed settings into the config of a new table."""

from __future__ import annotations

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError
from hudi_framework.table.table_config import TableConfig, new_table_config

# Registered key-generator component names -> Apache Hudi's ``hoodie.table.keygenerator.type``.
_KEYGEN_TYPES = {
    "simple": "SIMPLE",
    "complex": "COMPLEX",
    "non-partition": "NON_PARTITION",
    "nonpartitioned": "NON_PARTITION",
    "timestamp": "TIMESTAMP",
    "custom": "CUSTOM",
}


def _timestamp_keygen_properties(settings: HudiSettings) -> dict[str, str]:
    ts = settings.table.keygen_timestamp
    if ts.timestamp_type is None:
        return {}
    prefix = "hoodie.keygen.timebased."
    props = {
        f"{prefix}timestamp.type": str(ts.timestamp_type.value),
        f"{prefix}timestamp.scalar.time.unit": ts.scalar_time_unit,
        f"{prefix}input.timezone": ts.input_timezone,
        f"{prefix}output.timezone": ts.output_timezone,
        f"{prefix}timezone": ts.timezone,
    }
    if ts.input_dateformat:
        props[f"{prefix}input.dateformat"] = ts.input_dateformat
        props[f"{prefix}input.dateformat.list.delimiter.regex"] = ts.input_dateformat_list_delimiter_regex
    if ts.output_dateformat:
        props[f"{prefix}output.dateformat"] = ts.output_dateformat
    return props


def table_config_from_settings(settings: HudiSettings) -> TableConfig:
    """The :class:`TableConfig` a new table gets from ``settings``.

    Raises:
        ConfigError: A setting needed to create a table is missing.
    """
    t = settings.table
    if not t.name:
        raise ConfigError("table.name (hoodie.table.name) is required to create a table")
    if not t.record_key_fields:
        raise ConfigError("table.record_key_fields (hoodie.datasource.write.recordkey.field) is required")
    keygen = None
    if t.key_generator is not None:
        keygen = _KEYGEN_TYPES.get(t.key_generator.name, t.key_generator.name.upper().replace("-", "_"))
    extra = _timestamp_keygen_properties(settings)
    if extra and keygen is None:
        keygen = "TIMESTAMP"
    return new_table_config(
        t.name,
        table_type=t.type.value,
        version=int(t.version),
        database=t.database,
        record_key_fields=t.record_key_fields,
        partition_fields=t.partition_fields,
        ordering_fields=t.ordering_fields,
        key_generator_type=keygen,
        hive_style_partitioning=t.hive_style_partitioning,
        url_encode_partitions=t.url_encode_partitions,
        populate_meta_fields=t.populate_meta_fields,
        merge_mode=settings.merger.effective_mode(t.ordering_fields).value,
        merge_strategy_id=str(settings.merger.strategy_id) if settings.merger.strategy_id is not None else None,
        payload_class=settings.merger.payload_class,
        timeline_timezone=t.timeline_timezone.value,
        extra=extra,
    )
