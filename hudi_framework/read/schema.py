"""The schema a read returns: the table's Avro schema as Arrow, in the exact types Spark expects.

Apache Hudi resolves the read schema with ``TableSchemaResolver``: the writer schema of the latest
completed write (``extraMetadata.schema``), else ``hoodie.table.create.schema``; a time-travel query
uses the latest write *at or before* its instant (``getTableAvroSchema(timestamp)``). The five meta
columns come first when the table populates them, and partition columns that were dropped from the
data files are appended as strings, as the resolver does for
``hoodie.datasource.write.drop.partition.columns``.

Types are normalised to what a Spark ``DataSourceReader`` must yield: ``string`` (never
``large_string``), ``binary`` for Avro ``fixed`` without a logical type, and timestamps in
microseconds (``timestamp-millis`` included), with ``tz=UTC`` for Avro ``timestamp-*`` and without a
zone for ``local-timestamp-*`` (Spark's ``TIMESTAMP_NTZ``). Decimals keep the Avro precision/scale.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from hudi_framework.errors import UnknownColumnError
from hudi_framework.model.schema import META_FIELDS, avro_to_arrow
from hudi_framework.read.options import resolve_instant_time
from hudi_framework.timeline.instant import WRITE_ACTIONS
from hudi_framework.vocabulary import TimelineTimezone

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hudi_framework.runtime.table import HudiTable


def spark_type(typ: pa.DataType) -> pa.DataType:
    """The Arrow type Spark uses for ``typ`` (see the module docstring); nested types recursively."""
    if pa.types.is_dictionary(typ):
        return spark_type(typ.value_type)
    if pa.types.is_timestamp(typ):
        return pa.timestamp("us", tz="UTC" if typ.tz else None)
    if pa.types.is_large_string(typ) or pa.types.is_string_view(typ):
        return pa.string()
    if pa.types.is_large_binary(typ) or pa.types.is_binary_view(typ) or pa.types.is_fixed_size_binary(typ):
        return pa.binary()
    if pa.types.is_struct(typ):
        return pa.struct([spark_field(f) for f in typ])
    if pa.types.is_list(typ) or pa.types.is_large_list(typ) or pa.types.is_fixed_size_list(typ):
        item = typ.value_field
        return pa.list_(pa.field("element", spark_type(item.type), nullable=item.nullable))
    if pa.types.is_map(typ):
        item = typ.item_field
        return pa.map_(spark_type(typ.key_type), pa.field("value", spark_type(item.type), nullable=item.nullable))
    return typ


def spark_field(field: pa.Field) -> pa.Field:
    """``field`` with :func:`spark_type` applied (name and nullability kept, metadata dropped)."""
    return pa.field(field.name, spark_type(field.type), nullable=field.nullable)


def _avro_schema_as_of(table: HudiTable, as_of: str | None) -> dict[str, Any] | None:
    timeline = table.timeline
    for inst in reversed(timeline.commits_timeline(as_of=as_of)):
        if inst.action in WRITE_ACTIONS:
            text = (timeline.read_commit_metadata(inst).extra_metadata or {}).get("schema")
            if text:
                parsed: dict[str, Any] = json.loads(text)
                return parsed
    if table.config.create_schema:
        created: dict[str, Any] = json.loads(table.config.create_schema)
        return created
    return None


def read_schema(table: HudiTable, *, as_of: str | None = None) -> pa.Schema:
    """The full schema a snapshot (as of ``as_of``) or incremental read of ``table`` returns.

    Args:
        table: The table.
        as_of: An instant time or date-time for time travel (as ``as.of.instant`` takes it); None
            for the latest schema.

    Raises:
        TableError: The table has no schema at all (no commit, no create schema, no base file).
        InvalidInstantTimeError: ``as_of`` is neither an instant time nor a date-time.
    """
    as_of = resolve_instant_time(as_of, TimelineTimezone(table.config.timeline_timezone))
    avro = _avro_schema_as_of(table, as_of)
    # Nothing at or before as_of: the table's current schema (Java falls back the same way).
    data = avro_to_arrow(avro) if avro is not None else table.schema()
    fields = [spark_field(f) for f in data if f.name not in META_FIELDS]
    names = {f.name for f in fields}
    for name in table.config.partition_fields:
        if name not in names:
            fields.append(pa.field(name, pa.string()))
    if table.config.populate_meta_fields:
        fields = [pa.field(n, pa.string()) for n in META_FIELDS] + fields
    return pa.schema(fields)


def project(schema: pa.Schema, columns: Sequence[str] | None) -> pa.Schema:
    """The schema restricted to ``columns``, in their order (all of ``schema`` for None).

    Raises:
        UnknownColumnError: A column is not in the schema (also a ``KeyError``).
    """
    if columns is None:
        return schema
    fields = []
    for name in columns:
        index = schema.get_field_index(name)
        if index < 0:
            raise UnknownColumnError(name, schema.names)
        fields.append(schema.field(index))
    return pa.schema(fields)
