"""Finding a key field's column in a batch, nested fields (``a.b``) included."""

from __future__ import annotations

from typing import TypeAlias

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous
from hudi_framework.errors import KeyFieldError

#: What key generators accept: a record batch or a table of the data columns.
Batch: TypeAlias = pa.RecordBatch | pa.Table


def field_column(batch: Batch, path: str) -> pa.Array:
    """The values of ``path`` for every row, as one contiguous array.

    Like Java's ``HoodieAvroUtils.getNestedFieldVal`` the path is split on ``.`` and each part names a
    struct child; a null struct on the way gives a null value for that row.

    Raises:
        KeyFieldError: A part of the path is not a column / struct field, or a non-struct is
            traversed. (Java would yield null here; a typo in a key field is better caught early.)
    """
    parts = path.split(".")
    index = batch.schema.get_field_index(parts[0])
    if index < 0:
        raise KeyFieldError(path, f"no column {parts[0]!r} in the records (columns: {', '.join(batch.schema.names)})")
    column = batch.column(index)
    if isinstance(column, pa.ChunkedArray):
        column = contiguous(column)
    for depth, part in enumerate(parts[1:], start=1):
        if not pa.types.is_struct(column.type):
            raise KeyFieldError(path, f"{'.'.join(parts[:depth])!r} is a {column.type}, not a struct")
        child = column.type.get_field_index(part)
        if child < 0:
            raise KeyFieldError(path, f"struct {'.'.join(parts[:depth])!r} has no field {part!r}")
        # pc.struct_field (unlike StructArray.field) folds the parent's nulls into the child.
        column = pc.struct_field(column, [child])
    return column


def empty_batch(schema: pa.Schema) -> pa.Table:
    """A zero-row table of ``schema``: running a key generator on it checks fields and types only."""
    return schema.empty_table()
