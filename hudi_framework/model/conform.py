"""Casting a batch to a declared schema by column name: what a schema provider's schema means.

An ingestion batch read with a declared schema (an Avro schema file, a source's own schema) gets
exactly that schema's columns, in its order and types; a column the rows lack is null (when the
schema allows it); a column the schema does not name is dropped, as Spark drops the JSON fields a
reader's schema leaves out. Types are cast from the schemas, and a value that does not fit fails.
"""

from __future__ import annotations

import pyarrow as pa

from hudi_framework.errors import SchemaMismatchError

__all__ = ["conform"]


def conform(rows: pa.Table, schema: pa.Schema) -> pa.Table:
    """``rows`` with exactly ``schema``'s columns, in its order and types (by name, never by position).

    Raises:
        SchemaMismatchError: A column the rows lack is not nullable, or a column's values do not cast.
    """
    columns: list[pa.ChunkedArray | pa.Array] = []
    for wanted in schema:
        if wanted.name not in rows.column_names:
            if not wanted.nullable:
                raise SchemaMismatchError(wanted.name, "missing from the batch and not nullable in the schema")
            columns.append(pa.nulls(rows.num_rows, wanted.type))
            continue
        column = rows.column(wanted.name)
        if column.type != wanted.type:
            try:
                column = column.cast(wanted.type)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise SchemaMismatchError(wanted.name, f"{column.type} does not cast to {wanted.type}: {e}") from None
        columns.append(column)
    return pa.Table.from_arrays(columns, schema=schema)
