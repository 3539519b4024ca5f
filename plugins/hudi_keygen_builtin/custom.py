"""The custom key generator (Java ``CustomAvroKeyGenerator``): a type per partition field.

Partition fields are written ``name:SIMPLE`` or ``name:TIMESTAMP`` (``hoodie.table.partition.fields``
keeps the suffixes on table version 8 and later). Each field's segment is what the simple or the
timestamp key generator makes of it, hive prefix and escaping included, and the segments are joined
with ``/``. The record key is simple with one field and complex (``f:v,...``) with several.

Tables written by Hudi 0.x persist the partition fields without their types; their types must be
given again (``key_generator_options(..., partition_fields=...)``), as Java also demands.
"""

from __future__ import annotations

import enum

from typing_extensions import override

from hudi_framework.errors import InvalidConfigValueError
from hudi_keygen_builtin.generators import PARTITION_OPTION, BuiltinKeyGenerator, timestamp_formatter
from hudi_keygen_builtin.options import KeyGenOptions
from hudi_keygen_builtin.partition import PartitionField


class PartitionKeyType(enum.StrEnum):
    """Java ``CustomAvroKeyGenerator.PartitionKeyType``."""

    SIMPLE = "SIMPLE"
    TIMESTAMP = "TIMESTAMP"


def split_custom_field(entry: str) -> tuple[str, PartitionKeyType]:
    """``"ts:timestamp"`` -> ``("ts", TIMESTAMP)``; the type is matched case-insensitively, as in Java.

    Raises:
        InvalidConfigValueError: No type, more than one ``:``, or an unknown type.
    """
    parts = entry.split(":")
    if len(parts) != 2:
        raise InvalidConfigValueError(
            PARTITION_OPTION,
            f"custom key generator partition field {entry!r} must be written field:type "
            f"(for example city:SIMPLE,ts:TIMESTAMP); a version 6 table persists the names only, so "
            f"give the types in hoodie.datasource.write.partitionpath.field",
        )
    name, kind = parts[0].strip(), parts[1].strip().upper()
    try:
        return name, PartitionKeyType(kind)
    except ValueError:
        raise InvalidConfigValueError(
            PARTITION_OPTION, f"partition type {parts[1]!r} of {name!r} is not SIMPLE or TIMESTAMP"
        ) from None


class CustomKeyGenerator(BuiltinKeyGenerator):
    """``CUSTOM``: simple and timestamp partition fields mixed."""

    hudi_type = "CUSTOM"

    @override
    def _partition_fields(self, options: KeyGenOptions) -> tuple[PartitionField, ...]:
        fields = []
        for entry in options.partition_fields:
            name, kind = split_custom_field(entry)
            timestamp = timestamp_formatter(options) if kind is PartitionKeyType.TIMESTAMP else None
            fields.append(PartitionField(name, timestamp))
        return tuple(fields)
