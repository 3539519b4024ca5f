"""Typed settings and a table's config: the config of a new table, and the check that a write's
settings agree with an existing one's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hudi_framework.config.hoodie_keys import HOODIE_KEYS
from hudi_framework.errors import ConfigError, IncompatibleTableConfigError
from hudi_framework.table.table_config import TableConfig, new_table_config
from hudi_framework.vocabulary import key_generator_component, key_generator_type

if TYPE_CHECKING:
    from hudi_framework.config.settings import HudiSettings

__all__ = ["check_settings_match_table", "table_config_from_settings", "timestamp_keygen_properties"]


def timestamp_keygen_properties(settings: HudiSettings) -> dict[str, str]:
    """The ``hoodie.keygen.timebased.*`` properties ``settings.table.keygen_timestamp`` gives (none
    without a timestamp type)."""
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
        keygen = key_generator_type(t.key_generator.name)
    extra = timestamp_keygen_properties(settings)
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


def _names(fields: Any) -> tuple[str, ...]:
    # A custom key generator's ``region:SIMPLE``: version 6 tables persist the name only.
    return tuple(str(f).split(":", 1)[0].strip() for f in fields)


#: Table settings a write may give again, and how each compares with the persisted config.
_IDENTITY: dict[str, tuple[Callable[[Any], Any], Callable[[TableConfig], Any]]] = {
    "name": (str, lambda c: c.name),
    "type": (lambda v: v.value, lambda c: c.table_type.value),
    "version": (int, lambda c: c.version),
    "record_key_fields": (tuple, lambda c: c.record_key_fields),
    "partition_fields": (_names, lambda c: c.partition_fields),
    "ordering_fields": (tuple, lambda c: c.ordering_fields),
    "key_generator": (
        lambda v: key_generator_component(v.name),
        lambda c: key_generator_component(c.key_generator_type),
    ),
    "hive_style_partitioning": (bool, lambda c: c.hive_style_partitioning),
    "url_encode_partitions": (bool, lambda c: c.url_encode_partitions),
    "populate_meta_fields": (bool, lambda c: c.populate_meta_fields),
    "base_file_format": (lambda v: v.value.upper(), lambda c: c.base_file_format.upper()),
}


def check_settings_match_table(config: TableConfig, settings: HudiSettings) -> None:
    """Refuse a write whose settings give a table property other than the one the table persists.

    The table's ``hoodie.properties`` decide how keys, partitions and files are made; a write that
    names another record key or partition field would otherwise be accepted and ignored. Only
    settings that were given count. Apache Hudi's Spark writer refuses the same (``Config conflict``).

    Raises:
        IncompatibleTableConfigError: Naming the option, the write's value and the table's.
    """
    given = settings.table.model_fields_set
    for field, (written, persisted) in _IDENTITY.items():
        value = getattr(settings.table, field)
        if field not in given or value is None or value == ():
            continue
        mine, theirs = written(value), persisted(config)
        if mine != theirs:
            key = next((k.key for k in HOODIE_KEYS if k.path[:2] == ("table", field)), f"table.{field}")
            raise IncompatibleTableConfigError(
                f"config conflict: {key} (table.{field}) is {mine!r} for this write but {theirs!r} in the "
                "table's hoodie.properties; leave it unset or give the table's value"
            )
