"""The key generator contract: ``_hoodie_record_key`` and ``_hoodie_partition_path`` for a batch.

A key generator turns the data columns of a batch of records into two string columns, vectorised
over pyarrow (a batch may hold millions of rows). What it computes must equal, row for row, what
Apache Hudi's key generator of the same type computes from the same record (hudi-format.md section
8), because readers, indexes and later Java writers find records by these strings.

The kernel builds a key generator from the table's persisted settings: it maps ``TableConfig`` to
:class:`TableKeySettings` and asks the registry for the component named after the table's key
generator type, whose own options model validates them (the built-in key generators' model is
``hudi_keygen_builtin.KeyGenOptions``).
"""

from __future__ import annotations

import enum
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from hudi_framework.vocabulary import TimestampType

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "ComplexKeyEncoding",
    "KeyGenerator",
    "TableKeySettings",
    "TimeUnit",
    "TimestampKeyGenOptions",
]


class ComplexKeyEncoding(enum.StrEnum):
    """How a complex key generator with ONE record key field spells the key.

    Persisted as ``hoodie.table.complex.keygen.encoding`` (Java ``ComplexKeyGenEncoding``) by the
    8 -> 9 upgrade; with more than one field the key is always ``f1:v1,f2:v2``.
    """

    #: ``field:value``: Hudi 0.14.0 and older, all writers at table version 9, and Hudi 1.1's default.
    FIELD_PREFIXED = "FIELD_PREFIXED"
    #: Bare ``value``: Hudi 0.14.1, 0.15.0 and 1.0.0-1.0.2 at table versions 6 and 8 (HUDI-7001).
    VALUE_ONLY = "VALUE_ONLY"

    @classmethod
    def _missing_(cls, value: object) -> ComplexKeyEncoding | None:
        # Java parses the persisted value case-insensitively, trimming whitespace.
        if isinstance(value, str):
            return cls.__members__.get(value.strip().upper())
        return None


class TimeUnit(enum.StrEnum):
    """Java ``java.util.concurrent.TimeUnit`` names (``hoodie.keygen.timebased.timestamp.scalar.time.unit``)."""

    NANOSECONDS = "NANOSECONDS"
    MICROSECONDS = "MICROSECONDS"
    MILLISECONDS = "MILLISECONDS"
    SECONDS = "SECONDS"
    MINUTES = "MINUTES"
    HOURS = "HOURS"
    DAYS = "DAYS"

    @classmethod
    def _missing_(cls, value: object) -> TimeUnit | None:
        # Java upper-cases the configured unit before TimeUnit.valueOf.
        if isinstance(value, str):
            return cls.__members__.get(value.strip().upper())
        return None


def _blank_to_none(value: object) -> object:
    # Java treats a blank time zone like an absent one (``!tz.trim().isEmpty() ? zone : null``).
    if isinstance(value, str) and not value.strip():
        return None
    return value.strip() if isinstance(value, str) else value


OptionalZone = Annotated[str | None, BeforeValidator(_blank_to_none)]


class TimestampKeyGenOptions(BaseModel):
    """Options of timestamp-based partition values (``hoodie.keygen.timebased.*``, persisted).

    Patterns are Joda-Time ``DateTimeFormat`` patterns, as Apache Hudi uses (``yyyy/MM/dd/HH``,
    ``yyyy-MM-dd'T'HH:mm:ss.SSSZ``). A time zone that is not set behaves as Java's JVM default zone,
    which this project fixes to UTC.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    timestamp_type: TimestampType
    """``hoodie.keygen.timebased.timestamp.type``: how partition values are read."""
    scalar_time_unit: TimeUnit = TimeUnit.SECONDS
    """``...timestamp.scalar.time.unit``: unit of ``SCALAR`` numbers."""
    input_date_format: str = ""
    """``...input.dateformat``: one or more input patterns (``DATE_STRING``/``MIXED``), split by the regex below."""
    input_date_format_delimiter_regex: str = ","
    """``...input.dateformat.list.delimiter.regex``: a Java regular expression separating input patterns."""
    input_timezone: OptionalZone = None
    """``...input.timezone``: zone of input date strings that carry no offset."""
    output_timezone: OptionalZone = None
    """``...output.timezone``: zone the partition path is rendered in."""
    timezone: OptionalZone = None
    """``...timezone`` (deprecated in Java): when set, it is both the input and the output zone."""
    output_date_format: str = Field(min_length=1)
    """``...output.dateformat``: pattern of the partition value (``yyyy/MM/dd``)."""

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self.timestamp_type in (TimestampType.DATE_STRING, TimestampType.MIXED) and not self.input_date_formats:
            raise ValueError(f"timestamp type {self.timestamp_type.value} needs input_date_format")
        return self

    @property
    def input_date_formats(self) -> tuple[str, ...]:
        """The input patterns, split and trimmed as Java does (``String.split(regex)`` then ``trim``)."""
        if not self.input_date_format.strip():
            return ()
        parts = re.split(self.input_date_format_delimiter_regex, self.input_date_format)
        # Java's split drops trailing empty strings; empty patterns in the middle would fail in Joda.
        while parts and not parts[-1]:
            parts.pop()
        return tuple(p.strip() for p in parts)

    @property
    def effective_input_timezone(self) -> str | None:
        """``timezone`` when set, else ``input_timezone`` (Java ``HoodieDateTimeParser``)."""
        return self.timezone if self.timezone is not None else self.input_timezone

    @property
    def effective_output_timezone(self) -> str | None:
        """``timezone`` when set, else ``output_timezone``."""
        return self.timezone if self.timezone is not None else self.output_timezone


@dataclass(frozen=True, slots=True)
class TableKeySettings:
    """The table's key settings, as the kernel passes them to every key generator component.

    The kernel builds them from ``hoodie.properties`` (and the writer's options where the table did not
    persist a key) and hands :meth:`as_options` to the component's options model, which validates them:
    a key generator plugin owns its options model, this is what that model receives.

    Attributes:
        record_key_fields: ``hoodie.table.recordkey.fields``, never empty; nested fields as ``a.b``.
        partition_fields: ``hoodie.table.partition.fields`` as persisted; the custom key generator's
            entries carry a ``:SIMPLE`` or ``:TIMESTAMP`` suffix.
        hive_style_partitioning: ``hoodie.datasource.write.hive_style_partitioning``.
        url_encode_partitions: ``hoodie.datasource.write.partitionpath.urlencode``.
        complex_single_field_encoding: Spelling of a complex key with one field.
        timestamp: Timestamp partition options; set when the key generator formats timestamps.
        consistent_logical_timestamp:
            ``hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled``.
    """

    record_key_fields: tuple[str, ...]
    partition_fields: tuple[str, ...] = ()
    hive_style_partitioning: bool = False
    url_encode_partitions: bool = False
    complex_single_field_encoding: ComplexKeyEncoding = ComplexKeyEncoding.FIELD_PREFIXED
    timestamp: TimestampKeyGenOptions | None = None
    consistent_logical_timestamp: bool = False

    def as_options(self) -> dict[str, Any]:
        """The settings as a component's options (plain values; the timestamp options as a mapping)."""
        return {
            "record_key_fields": self.record_key_fields,
            "partition_fields": self.partition_fields,
            "hive_style_partitioning": self.hive_style_partitioning,
            "url_encode_partitions": self.url_encode_partitions,
            "complex_single_field_encoding": self.complex_single_field_encoding,
            "timestamp": None if self.timestamp is None else self.timestamp.model_dump(),
            "consistent_logical_timestamp": self.consistent_logical_timestamp,
        }


class KeyGenerator(ABC):
    """Computes ``_hoodie_record_key`` and ``_hoodie_partition_path`` for a batch, vectorised.

    Implementations are stateless after construction and picklable, so Spark executors can rebuild or
    receive them. Both methods accept a ``pa.RecordBatch`` or a ``pa.Table`` of the data columns and
    return a ``pa.StringArray`` with one value per row, in row order.
    """

    #: Apache Hudi's ``hoodie.table.keygenerator.type`` value for this generator (``SIMPLE``...).
    hudi_type: str = ""

    @property
    @abstractmethod
    def record_key_fields(self) -> tuple[str, ...]:
        """The fields the record key is made from, in order."""

    @property
    @abstractmethod
    def partition_fields(self) -> tuple[str, ...]:
        """The partition field names, in order, without any ``:TYPE`` suffix; empty when non-partitioned."""

    @abstractmethod
    def record_keys(self, batch: pa.RecordBatch | pa.Table) -> pa.StringArray:
        """Record key strings, one per row.

        Pre-condition: the batch has every record key field.
        Post-condition: no value is null or empty.

        Raises:
            InvalidRecordKeyError: A key is null or empty (names the fields, counts the rows); it is
                raised for the whole batch before anything is written.
            KeyFieldError: A field is missing or has a type keys are not made from.
        """

    @abstractmethod
    def partition_paths(self, batch: pa.RecordBatch | pa.Table) -> pa.StringArray:
        """Relative partition paths, one per row (``""`` when the table is non-partitioned).

        Raises:
            KeyFieldError: A partition field is missing or has an unsupported type.
            InvalidPartitionValueError: A value cannot be turned into a partition path.
            UnsafePartitionPathError: A value would make a path segment no listing finds the rows
                under (``.hoodie``, ``.hoodie_partition_metadata*``, an empty, ``.`` or ``..``
                segment); the kernel's ``PartitionPathFormat.encode_arrays`` raises it.
        """

    def keys(self, batch: pa.RecordBatch | pa.Table) -> tuple[pa.StringArray, pa.StringArray]:
        """Both columns: ``(record_keys(batch), partition_paths(batch))``."""
        return self.record_keys(batch), self.partition_paths(batch)

    def key_source_field(self, schema: pa.Schema) -> str | None:
        """A top-level field of ``schema`` whose value alone decides the record key, one to one
        (two rows get equal keys exactly when their values are equal), or None.

        Engines may group incoming rows by this field before computing keys (Spark shuffles the raw
        rows by it, so each key's rows meet in one task). The default, None, is always safe.
        """
        del schema
        return None

    def check_schema(self, schema: pa.Schema) -> None:
        """Fail early when ``schema`` cannot yield keys (missing field, unsupported type).

        The default does nothing; built-in generators override it. It never looks at data, so
        null or empty keys are found only by :meth:`record_keys`.
        """
        del schema

    def describe(self) -> dict[str, Any]:
        """A JSON-friendly summary for logs and ``hudi-fw`` output."""
        return {
            "type": self.hudi_type,
            "record_key_fields": list(self.record_key_fields),
            "partition_fields": list(self.partition_fields),
        }
