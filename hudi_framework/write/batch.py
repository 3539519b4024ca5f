"""Fitting an incoming batch to the table schema before anything is written."""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa

from hudi_framework.errors import ColumnTypeError, KeyFieldError, SchemaEvolutionRequiredError, SchemaMismatchError
from hudi_framework.model.promoted_values import promote_column
from hudi_framework.model.promotion import fit
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


def check_batch_schema(
    incoming: pa.Schema, schema: pa.Schema, *, allow_missing: bool, require_every_column: bool = False
) -> None:
    """Raise unless batches of ``incoming`` fit the table's data ``schema``: from the schemas alone.

    Every write calls this once on the driver before anything is written (and before any Spark
    job); :func:`conform_batch` repeats it per batch. Types follow Apache Hudi's promotions
    (:func:`~hudi_framework.model.promotion.fit`); ``schema`` is the write's, already evolved to
    take the batch (:func:`~hudi_framework.model.evolution.evolved_schema`).

    Args:
        incoming: The batch's schema; meta columns, if any, are ignored.
        schema: The table's data schema.
        allow_missing: Absent columns become nulls (deletes by key); otherwise an absent column is
            an error unless it is nullable.
        require_every_column: Without ``allow_missing``, any absent column is an error
            (``write.avro_schema_validate``: Apache Hudi's check that a batch drops no column).

    Raises:
        SchemaEvolutionRequiredError: A column the table lacks, or of a type Hudi would widen the
            table's to.
        ColumnTypeError: A column of a type that does not go into the table's.
        SchemaMismatchError: A required column is missing.
    """
    for f in incoming:
        if f.name in META_FIELDS:
            continue
        index = schema.get_field_index(f.name)
        if index >= 0:
            fit(f.type, schema.field(index).type, f.name)
        elif f.name == IS_DELETED:
            if not (pa.types.is_null(f.type) or _is_boolean(f.type)):
                raise ColumnTypeError(f.name, str(f.type), "bool", f"the delete flag is boolean, not {f.type}")
        else:
            raise SchemaEvolutionRequiredError(
                f.name,
                str(f.type),
                None,
                "is not in the table schema: Apache Hudi would add it (schema evolution), which is not supported yet",
            )
    if not allow_missing:
        for f in schema:
            if incoming.get_field_index(f.name) >= 0:
                continue
            if not f.nullable:
                raise SchemaMismatchError(f.name, "is required by the table schema but missing")
            if require_every_column:
                raise SchemaMismatchError(
                    f.name,
                    "is missing from the batch: hoodie.avro.schema.validate=true refuses a batch that drops a column",
                )


def _is_boolean(t: pa.DataType) -> bool:
    return bool(pa.types.is_boolean(t.value_type if pa.types.is_dictionary(t) else t))


def conform_batch(data: pa.Table, schema: pa.Schema, *, allow_missing: bool) -> pa.Table:
    """``data`` with exactly the table's columns, in order and type (plus a delete flag if given).

    Args:
        data: Incoming rows; meta columns, if any, are ignored.
        schema: The table's data schema.
        allow_missing: Fill absent columns with nulls (deletes by key); otherwise an absent column
            is an error unless it is nullable.

    Raises:
        SchemaMismatchError: See :func:`check_batch_schema`.
        ColumnValueError: A value with no counterpart in the table's type (see
            :mod:`~hudi_framework.model.promoted_values`).
    """
    check_batch_schema(data.schema, schema, allow_missing=allow_missing)
    present = set(data.column_names)
    columns = [
        promote_column(data.column(f.name), f, f.name) if f.name in present else pa.nulls(data.num_rows, f.type)
        for f in schema
    ]
    out = pa.Table.from_arrays(columns, schema=schema)
    if IS_DELETED in data.column_names and IS_DELETED not in schema.names:
        out = out.append_column(IS_DELETED, data.column(IS_DELETED).cast(pa.bool_()))
    return out
