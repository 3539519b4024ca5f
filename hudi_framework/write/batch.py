"""Fitting an incoming batch to the table schema before anything is written."""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

from hudi_framework.errors import KeyFieldError, SchemaMismatchError
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_to_arrow

#: A data column Hudi treats as a soft-delete flag even when the table schema lacks it.
IS_DELETED = "_hoodie_is_deleted"


def normalised_schema(schema: pa.Schema, table_name: str) -> pa.Schema:
    """The table schema a batch with ``schema`` creates: meta fields dropped, types as Hudi stores them.

    Going through Avro gives the types every reader agrees on (``int8`` -> ``int32``, ``large_string``
    -> ``string``, nanosecond timestamps -> microseconds), the same schema ``extraMetadata.schema``
    records.
    """
    return avro_to_arrow(arrow_to_avro(schema, table_name))


def require_key_fields(schema: pa.Schema, fields: Iterable[str]) -> None:
    """Raise unless a batch of ``schema`` carries every record key and partition field.

    :func:`conform_batch` fills an absent nullable column with nulls; for a key field that would
    turn the record key null or send every row to the default partition (a second copy of the key,
    or a moved record whose partition column no longer matches its path). So every write, partial
    updates and deletes included, must carry these fields, as Apache Hudi's docs promise (Java itself
    reads a missing field as null). Types are the key generator's to check.

    Args:
        schema: The incoming batch's schema.
        fields: Record key and partition field names; nested ones as ``a.b``.

    Raises:
        KeyFieldError: Naming the first missing field.
    """
    for path in fields:
        parts = path.split(".")
        level: pa.Schema | pa.StructType = schema
        for depth, part in enumerate(parts):
            if level.get_field_index(part) < 0:
                where = "the records" if depth == 0 else f"struct {'.'.join(parts[:depth])!r}"
                raise KeyFieldError(
                    path,
                    f"is missing from {where} (columns: {', '.join(f.name for f in level)}); every write "
                    "needs the record key and partition fields, partial updates and deletes too",
                )
            typ = level.field(part).type
            if not pa.types.is_struct(typ):
                break
            level = typ


def conform_batch(data: pa.Table, schema: pa.Schema, *, allow_missing: bool) -> pa.Table:
    """``data`` with exactly the table's columns, in order and type (plus a delete flag if given).

    Args:
        data: Incoming rows; meta columns, if any, are ignored.
        schema: The table's data schema.
        allow_missing: Fill absent columns with nulls (deletes by key); otherwise an absent column
            is an error unless it is nullable.

    Raises:
        SchemaMismatchError: Naming the column that is unknown, missing or not castable.
    """
    names = set(schema.names)
    for name in data.column_names:
        if name not in names and name not in META_FIELDS and name != IS_DELETED:
            raise SchemaMismatchError(name, "is not in the table schema (schema evolution is not supported yet)")
    columns = []
    for f in schema:
        if f.name in data.column_names:
            column = data.column(f.name)
            if column.type != f.type:
                try:
                    column = column.cast(f.type)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as e:
                    raise SchemaMismatchError(f.name, f"type {column.type} cannot be cast to {f.type}: {e}") from None
            columns.append(column)
        elif allow_missing or f.nullable:
            columns.append(pa.nulls(data.num_rows, f.type))
        else:
            raise SchemaMismatchError(f.name, "is required by the table schema but missing")
    out = pa.Table.from_arrays(columns, schema=schema)
    if IS_DELETED in data.column_names and IS_DELETED not in names:
        out = out.append_column(IS_DELETED, data.column(IS_DELETED).cast(pa.bool_()))
    return out
