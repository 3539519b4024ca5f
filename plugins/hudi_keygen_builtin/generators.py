"""The built-in key generators, one class per Apache Hudi type (hudi-format.md section 8).

=================  ============================  ==============================================
class              record key                    partition path
=================  ============================  ==============================================
simple             one field, bare value         zero or one field
complex            ``f:v,...`` (one field: see   any number of fields
                   ``complex_single_field_encoding``)
non-partition      one field bare, else ``f:v``  ``""``
timestamp          one field, bare value         one field, timestamp-formatted
global-delete      always ``f:v,...``            ``""``
custom             one field bare, else ``f:v``  ``field:SIMPLE`` / ``field:TIMESTAMP`` entries
=================  ============================  ==============================================

Java accepts some configurations that can only produce wrong keys (a simple key generator with two
record key fields looks up a field literally named ``a,b`` and fails on every record); these raise
``InvalidConfigValueError`` when the generator is built instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa
from typing_extensions import override

from hudi_framework.contracts.keygen import ComplexKeyEncoding, KeyGenerator
from hudi_framework.errors import InvalidConfigValueError
from hudi_keygen_builtin.fields import empty_batch
from hudi_keygen_builtin.options import KeyGenOptions
from hudi_keygen_builtin.partition import PartitionField, PartitionPaths
from hudi_keygen_builtin.record_key import RecordKeyBuilder

if TYPE_CHECKING:
    from hudi_keygen_builtin.timestamp import TimestampFormatter

RECORD_KEY_OPTION = "hoodie.table.recordkey.fields"
PARTITION_OPTION = "hoodie.table.partition.fields"


class BuiltinKeyGenerator(KeyGenerator):
    """Shared machinery: a record key builder and a partition path builder."""

    def __init__(self, options: KeyGenOptions) -> None:
        """Build from the kernel's options.

        Raises:
            InvalidConfigValueError: The options do not fit this key generator.
        """
        self.options = options
        self._record_key = self._record_key_builder(options)
        self._partitions = PartitionPaths(
            self._partition_fields(options),
            hive_style=options.hive_style_partitioning,
            url_encode=options.url_encode_partitions,
            consistent_logical_timestamp=options.consistent_logical_timestamp,
        )

    # ------------------------------------------------------------------ per type
    def _record_key_builder(self, options: KeyGenOptions) -> RecordKeyBuilder:
        """Default: one field is bare, several are ``f:v`` (non-partitioned, custom)."""
        return self._builder(options, prefixed=len(options.record_key_fields) > 1)

    def _partition_fields(self, options: KeyGenOptions) -> tuple[PartitionField, ...]:
        """Default: every partition field rendered as it is."""
        return tuple(PartitionField(name) for name in options.partition_fields)

    @staticmethod
    def _builder(options: KeyGenOptions, *, prefixed: bool) -> RecordKeyBuilder:
        return RecordKeyBuilder(
            options.record_key_fields,
            prefixed=prefixed,
            consistent_logical_timestamp=options.consistent_logical_timestamp,
        )

    def _single_record_key_field(self, options: KeyGenOptions) -> None:
        if len(options.record_key_fields) != 1:
            raise InvalidConfigValueError(
                RECORD_KEY_OPTION,
                f"the {self.hudi_type} key generator takes one record key field, got "
                f"{', '.join(options.record_key_fields)}; use the complex key generator",
            )

    # ------------------------------------------------------------------ contract
    @property
    @override
    def record_key_fields(self) -> tuple[str, ...]:
        return self.options.record_key_fields

    @property
    @override
    def partition_fields(self) -> tuple[str, ...]:
        return self._partitions.names

    @override
    def record_keys(self, batch: pa.RecordBatch | pa.Table) -> pa.StringArray:
        return self._record_key.keys(batch)

    @override
    def partition_paths(self, batch: pa.RecordBatch | pa.Table) -> pa.StringArray:
        return self._partitions.paths(batch)

    @override
    def key_source_field(self, schema: pa.Schema) -> str | None:
        # One top-level string or integer field renders one to one: strings as they are (or
        # ``field:value``), integers in decimal; a null or empty key fails wherever it is computed.
        if len(self.record_key_fields) != 1:
            return None
        name = self.record_key_fields[0]
        index = schema.get_field_index(name)
        if index < 0:
            return None
        t = schema.field(index).type
        keyed = pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_integer(t)
        return name if keyed else None

    @override
    def check_schema(self, schema: pa.Schema) -> None:
        # Running on zero rows resolves every field and type without looking at data.
        empty = empty_batch(schema)
        self.record_keys(empty)
        self.partition_paths(empty)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r})"


class SimpleKeyGenerator(BuiltinKeyGenerator):
    """``SIMPLE``: the record key is one field's value; the partition path one field's value."""

    hudi_type = "SIMPLE"

    @override
    def _record_key_builder(self, options: KeyGenOptions) -> RecordKeyBuilder:
        self._single_record_key_field(options)
        return self._builder(options, prefixed=False)

    @override
    def _partition_fields(self, options: KeyGenOptions) -> tuple[PartitionField, ...]:
        if len(options.partition_fields) > 1:
            raise InvalidConfigValueError(
                PARTITION_OPTION,
                f"the SIMPLE key generator takes at most one partition field, got "
                f"{', '.join(options.partition_fields)}; use the complex key generator",
            )
        return super()._partition_fields(options)


class ComplexKeyGenerator(BuiltinKeyGenerator):
    """``COMPLEX``: ``f1:v1,f2:v2`` record keys and any number of partition fields."""

    hudi_type = "COMPLEX"

    @override
    def _record_key_builder(self, options: KeyGenOptions) -> RecordKeyBuilder:
        value_only = options.complex_single_field_encoding is ComplexKeyEncoding.VALUE_ONLY
        return self._builder(options, prefixed=not value_only)


class NonPartitionedKeyGenerator(BuiltinKeyGenerator):
    """``NON_PARTITION``: every partition path is ``""``; partition fields are ignored, as in Java."""

    hudi_type = "NON_PARTITION"

    @override
    def _partition_fields(self, options: KeyGenOptions) -> tuple[PartitionField, ...]:
        return ()


class GlobalDeleteKeyGenerator(BuiltinKeyGenerator):
    """``GLOBAL_DELETE``: keys always ``field:value`` (even one field), partition paths ``""``."""

    hudi_type = "GLOBAL_DELETE"

    @override
    def _record_key_builder(self, options: KeyGenOptions) -> RecordKeyBuilder:
        return self._builder(options, prefixed=True)

    @override
    def _partition_fields(self, options: KeyGenOptions) -> tuple[PartitionField, ...]:
        return ()


class TimestampBasedKeyGenerator(BuiltinKeyGenerator):
    """``TIMESTAMP``: a simple record key; one partition field formatted as a timestamp."""

    hudi_type = "TIMESTAMP"

    @override
    def _record_key_builder(self, options: KeyGenOptions) -> RecordKeyBuilder:
        self._single_record_key_field(options)
        return self._builder(options, prefixed=False)

    @override
    def _partition_fields(self, options: KeyGenOptions) -> tuple[PartitionField, ...]:
        if len(options.partition_fields) != 1:
            raise InvalidConfigValueError(
                PARTITION_OPTION,
                f"the TIMESTAMP key generator takes one partition field, got {len(options.partition_fields)}",
            )
        return (PartitionField(options.partition_fields[0], timestamp_formatter(options)),)


def timestamp_formatter(options: KeyGenOptions) -> TimestampFormatter:
    """The timestamp formatter of ``options``.

    Raises:
        InvalidConfigValueError: No timestamp options were given.
    """
    from hudi_keygen_builtin.timestamp import TimestampFormatter  # only timestamp keys pay its import

    if options.timestamp is None:
        raise InvalidConfigValueError(
            "hoodie.keygen.timebased.timestamp.type", "timestamp partition fields need the timestamp options"
        )
    return TimestampFormatter(options.timestamp, consistent_logical_timestamp=options.consistent_logical_timestamp)
