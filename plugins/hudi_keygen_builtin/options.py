"""The built-in key generators' options model."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from hudi_framework.contracts.keygen import ComplexKeyEncoding, TimestampKeyGenOptions

__all__ = ["KeyGenOptions"]


def _csv(value: object) -> object:
    """Accept ``"a, b"`` as well as a sequence; drop blanks as Java's ``split(",")`` + trim + filter do."""
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, list | tuple):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return value


FieldList = Annotated[tuple[str, ...], BeforeValidator(_csv)]


class KeyGenOptions(BaseModel):
    """Options of every built-in key generator: the table's key settings, validated.

    The kernel passes :meth:`~hudi_framework.contracts.keygen.TableKeySettings.as_options`, built
    from ``hoodie.properties``; settings written by hand (``KeyGenOptions(record_key_fields="a, b")``)
    are validated the same way.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    record_key_fields: FieldList = Field(min_length=1)
    """``hoodie.table.recordkey.fields``; nested fields as ``a.b``. Auto-generated keys are not supported."""
    partition_fields: FieldList = ()
    """``hoodie.table.partition.fields`` as persisted; the custom key generator's entries carry a
    ``:SIMPLE`` or ``:TIMESTAMP`` suffix."""
    hive_style_partitioning: bool = False
    """``hoodie.datasource.write.hive_style_partitioning``: ``field=value`` path segments."""
    url_encode_partitions: bool = False
    """``hoodie.datasource.write.partitionpath.urlencode``: Hive-style ``%XX`` escaping of values."""
    complex_single_field_encoding: ComplexKeyEncoding = ComplexKeyEncoding.FIELD_PREFIXED
    """Spelling of a complex key with one field (``hoodie.table.complex.keygen.encoding``)."""
    timestamp: TimestampKeyGenOptions | None = None
    """Timestamp partition options; required by ``timestamp`` and by ``custom`` with ``:TIMESTAMP`` fields."""
    consistent_logical_timestamp: bool = False
    """``hoodie.datasource.write.keygenerator.consistent.logical.timestamp.enabled``: render timestamp
    columns as ``java.sql.Timestamp`` text (``2024-01-15 10:30:00.0``, UTC) instead of the raw long."""
