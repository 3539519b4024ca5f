"""From a table's persisted settings to its key generator.

``hoodie.properties`` names the key generator by type (``hoodie.table.keygenerator.type``, v8+) or by
Java class (``hoodie.table.keygenerator.class``, v6); ``TableConfig`` holds it as a type name. This
module maps that name to a registered component (``simple``, ``complex``...), gathers what the
component needs from ``TableConfig`` into :class:`~hudi_framework.contracts.keygen.TableKeySettings`
(including the persisted ``hoodie.keygen.timebased.*`` keys) and builds it through the registry, so a
plugin can replace any built-in by registering the same alias.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Final

from pydantic import ValidationError

from hudi_framework.contracts.keygen import ComplexKeyEncoding, KeyGenerator, TableKeySettings, TimestampKeyGenOptions
from hudi_framework.errors import InvalidConfigValueError
from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.vocabulary import TimestampType, key_generator_component

if TYPE_CHECKING:
    from hudi_framework.plugin.registry import ComponentRegistry
    from hudi_framework.table.table_config import TableConfig

__all__ = ["build_key_generator", "key_generator_options", "typed_partition_fields"]

_TIMEBASED: Final = "hoodie.keygen.timebased."
# Java still reads the 0.x DeltaStreamer spelling of every timestamp option.
_TIMEBASED_OLD: Final = "hoodie.deltastreamer.keygen.timebased."
_PARSER_CLASS: Final = ("hoodie.keygen.datetime.parser.class", "hoodie.deltastreamer.keygen.datetime.parser.class")
_COMPLEX_ENCODING: Final = "hoodie.table.complex.keygen.encoding"
_NEW_ENCODING: Final = "hoodie.write.complex.keygen.new.encoding"
_CONSISTENT_TS: Final = "hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled"

#: ``TimestampKeyGenOptions`` field -> ``hoodie.keygen.timebased.<suffix>``.
_TIMESTAMP_KEYS: Final = MappingProxyType(
    {
        "timestamp_type": "timestamp.type",
        "scalar_time_unit": "timestamp.scalar.time.unit",
        "input_date_format": "input.dateformat",
        "input_date_format_delimiter_regex": "input.dateformat.list.delimiter.regex",
        "input_timezone": "input.timezone",
        "output_timezone": "output.timezone",
        "timezone": "timezone",
        "output_date_format": "output.dateformat",
    }
)


def typed_partition_fields(config: TableConfig, write_fields: Sequence[str]) -> tuple[str, ...] | None:
    """The writer's typed partition fields where the table persisted untyped ones, else None.

    Hudi 0.x (table version 6) persists a custom key generator's partition fields without their
    ``:SIMPLE`` / ``:TIMESTAMP`` types, so every write gives them again in
    ``hoodie.datasource.write.partitionpath.field``. They are used when they name the persisted
    fields, in order.

    Args:
        config: The table config.
        write_fields: The writer's partition fields (``TableSettings.partition_fields``).
    """
    persisted = config.partition_fields_raw
    if key_generator_component(config.key_generator_type) != "custom" or any(":" in f for f in persisted):
        return None
    typed = tuple(write_fields)
    if not typed or tuple(f.split(":", 1)[0].strip() for f in typed) != tuple(f.strip() for f in persisted):
        return None
    return typed


def key_generator_options(
    config: TableConfig,
    *,
    write_options: Mapping[str, str] | None = None,
    complex_single_field_encoding: ComplexKeyEncoding | str | None = None,
    consistent_logical_timestamp: bool | None = None,
    partition_fields: Sequence[str] | None = None,
) -> TableKeySettings:
    """What the table's key generator needs, from ``hoodie.properties``.

    Args:
        config: The table config.
        write_options: ``hoodie.*`` options of the writer. They fill in keys the table did not persist
            (Hudi 0.x persisted ``hoodie.keygen.timebased.*`` except ``timestamp.type``); persisted
            keys win, because they describe the data already written.
        complex_single_field_encoding: Override the spelling of one-field complex keys. Without it:
            ``hoodie.table.complex.keygen.encoding`` when persisted; else ``VALUE_ONLY`` when
            ``hoodie.write.complex.keygen.new.encoding=true`` is persisted at version < 9; else
            ``FIELD_PREFIXED`` (Hudi 1.1's rule). Tables written by Hudi 0.14.1, 0.15.0 or
            1.0.0-1.0.2 that were never upgraded to version 9 need ``VALUE_ONLY`` here.
        consistent_logical_timestamp: Override
            ``hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled`` (default false).
        partition_fields: Override the persisted partition fields, e.g. to give the ``:SIMPLE`` /
            ``:TIMESTAMP`` types that Hudi 0.x did not persist for the custom key generator.

    Raises:
        InvalidConfigValueError: No record key fields (auto-generated keys are not supported), or
            the timestamp options are missing or invalid.
    """
    extra = {**(write_options or {}), **config.extra}
    if not config.record_key_fields:
        raise InvalidConfigValueError(
            "hoodie.table.recordkey.fields", "is empty; tables with auto-generated record keys are not supported"
        )
    fields = tuple(partition_fields) if partition_fields is not None else config.partition_fields_raw
    component = key_generator_component(config.key_generator_type)
    needs_timestamp = component == "timestamp" or (
        component == "custom" and any(f.split(":", 1)[-1].strip().upper() == "TIMESTAMP" for f in fields if ":" in f)
    )
    if consistent_logical_timestamp is None:
        consistent_logical_timestamp = extra.get(_CONSISTENT_TS, "false").strip().lower() == "true"
    return TableKeySettings(
        record_key_fields=config.record_key_fields,
        partition_fields=fields,
        hive_style_partitioning=config.hive_style_partitioning,
        url_encode_partitions=config.url_encode_partitions,
        complex_single_field_encoding=_encoding(config, extra, complex_single_field_encoding),
        timestamp=timestamp_options(extra) if needs_timestamp else None,
        consistent_logical_timestamp=consistent_logical_timestamp,
    )


def timestamp_options(props: Mapping[str, str]) -> TimestampKeyGenOptions:
    """``TimestampKeyGenOptions`` from ``hoodie.keygen.timebased.*`` properties (persisted or written).

    Raises:
        InvalidConfigValueError: A required key is missing, a value is invalid, or a custom date-time
            parser class is configured (its Java code cannot run here).
    """
    for key in _PARSER_CLASS:
        parser = props.get(key, "").strip()
        if parser and parser.rsplit(".", 1)[-1] != "HoodieDateTimeParser":
            raise InvalidConfigValueError(key, f"custom date-time parser {parser!r} is not supported")
    values: dict[str, str] = {}
    for field, suffix in _TIMESTAMP_KEYS.items():
        value = props.get(_TIMEBASED + suffix, props.get(_TIMEBASED_OLD + suffix))
        if value is not None:
            values[field] = value
    if "timestamp_type" not in values:
        raise InvalidConfigValueError(
            _TIMEBASED + "timestamp.type",
            f"is required by timestamp partition fields (one of {', '.join(t.value for t in TimestampType)})",
        )
    try:
        return TimestampKeyGenOptions.model_validate(values)
    except ValidationError as e:
        issues = [
            (_TIMEBASED + _TIMESTAMP_KEYS.get(str(err["loc"][0]), "*") if err["loc"] else _TIMEBASED + "*", err["msg"])
            for err in e.errors()
        ]
        raise InvalidConfigValueError(issues[0][0], issues[0][1], issues=issues) from e


def build_key_generator(
    registry: ComponentRegistry,
    config: TableConfig,
    *,
    write_options: Mapping[str, str] | None = None,
    complex_single_field_encoding: ComplexKeyEncoding | str | None = None,
    consistent_logical_timestamp: bool | None = None,
    partition_fields: Sequence[str] | None = None,
) -> KeyGenerator:
    """Build the table's key generator from the installed plugins.

    Args:
        registry: The session's component registry.
        config: The table config (``hoodie.properties``).
        write_options: See :func:`key_generator_options`.
        complex_single_field_encoding: See :func:`key_generator_options`.
        consistent_logical_timestamp: See :func:`key_generator_options`.
        partition_fields: See :func:`key_generator_options`.

    Raises:
        UnknownComponentError: No installed plugin provides the table's key generator.
        PluginConfigError: The component's options model rejects the options.
        InvalidConfigValueError: The table's key settings are invalid for its key generator.
        PluginError: The component built is not a ``KeyGenerator``.
    """
    options = key_generator_options(
        config,
        write_options=write_options,
        complex_single_field_encoding=complex_single_field_encoding,
        consistent_logical_timestamp=consistent_logical_timestamp,
        partition_fields=partition_fields,
    )
    name = key_generator_component(config.key_generator_type)
    return registry.build(ComponentKind.KEYGEN, name, options.as_options(), field_path="table.key_generator")


def _encoding(
    config: TableConfig, props: Mapping[str, str], override: ComplexKeyEncoding | str | None
) -> ComplexKeyEncoding:
    if override is not None:
        return ComplexKeyEncoding(override)
    persisted = props.get(_COMPLEX_ENCODING)
    if persisted is not None:
        try:
            return ComplexKeyEncoding(persisted)
        except ValueError:
            raise InvalidConfigValueError(
                _COMPLEX_ENCODING, f"{persisted!r} is not FIELD_PREFIXED or VALUE_ONLY"
            ) from None
    if config.version < 9 and props.get(_NEW_ENCODING, "").strip().lower() == "true":
        return ComplexKeyEncoding.VALUE_ONLY
    return ComplexKeyEncoding.FIELD_PREFIXED
