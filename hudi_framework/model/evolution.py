"""The table schema after a write: Apache Hudi 1.x's schema evolution on write, from the schemas alone.

With its defaults (``hoodie.datasource.write.reconcile.schema=false``, ``hoodie.schema.on.read.enable=false``,
``hoodie.datasource.write.schema.allow.auto.evolution.column.drop=false``), Apache Hudi's Spark writer
deduces the writer schema in ``HoodieSchemaUtils.deduceWriterSchema`` (hudi-spark-common):

1. ``AvroSchemaEvolutionUtils.reconcileSchemaRequirements(source, table, shouldReorderColumns=true)``
   canonicalises the incoming schema against the table's: an incoming column whose type
   ``SchemaChangeUtils.shouldPromoteType`` promotes into the table's type takes the table's type, a
   column nullable in either stays nullable (a required table column becomes nullable when the batch's
   is), and the columns follow the table's order (new ones after the table's, in their incoming order;
   the same inside structs);
2. ``HoodieSchemaCompatibility.checkValidEvolution(writer, table)`` then requires that the table's data
   be readable with the writer schema (Hudi's fork of Avro's reader/writer compatibility): a type may
   only widen (int -> long -> float -> double, a decimal to a wider one, anything to string...: see
   :mod:`~hudi_framework.model.promotion`), and a field the table lacks needs a default, which only
   nullable fields have (Spark's ``convertStructTypeToAvroSchema`` gives them ``null``). The writer
   schema becomes the table's schema: the commit's ``extraMetadata.schema``.

Table columns an incoming batch lacks stay in the table schema here: Apache Hudi's writer refuses them
unless ``hoodie.write.set.null.for.missing.columns`` (then ``AvroSchemaEvolutionUtils.reconcileSchema``
keeps them, written as null); this project keeps them too for partial updates and deletes by key, whose
checks are :func:`~hudi_framework.write.batch.check_batch_schema`'s.
"""

from __future__ import annotations

import pyarrow as pa

from hudi_framework.errors import ColumnTypeError, NewColumnError, SchemaConversionError, SchemaMismatchError
from hudi_framework.model.promotion import avro_leaf, promotes, reads
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_to_arrow

__all__ = ["evolved_schema"]

#: A data column Hudi treats as a soft-delete flag, never added to the schema by a write.
_IS_DELETED = "_hoodie_is_deleted"


def evolved_schema(table: pa.Schema, incoming: pa.Schema) -> pa.Schema:
    """The table's data schema once a batch of ``incoming`` is written into a table of ``table``.

    Args:
        table: The table's current data schema (as stored: Avro types, meta fields absent).
        incoming: The batch's schema; meta fields and ``_hoodie_is_deleted`` are ignored.

    Returns:
        ``table`` itself when nothing changes; otherwise its columns in order (widened types,
        new struct members appended), then the new columns in their incoming order.

    Raises:
        NewColumnError: A new column (or struct member) is non-nullable, or has no Avro type.
        ColumnTypeError: An incoming type neither goes into nor widens the table's (names the
            column, nested as ``a.b`` / ``a.element`` / ``a.value``, and both types).
    """
    fields = []
    for f in table:
        index = incoming.get_field_index(f.name)
        fields.append(f if index < 0 else _evolved_field(incoming.field(index), f, f.name))
    known = set(table.names) | set(META_FIELDS) | {_IS_DELETED}
    fields += [_new_field(f, f.name) for f in incoming if f.name not in known]
    evolved = pa.schema(fields, metadata=table.metadata)
    return table if evolved.equals(table) else evolved


def _evolved_field(incoming: pa.Field, table: pa.Field, column: str) -> pa.Field:
    """The table's field widened to take ``incoming``; nullable when either is (Hudi's writer schema
    keeps the incoming field's null branch, and a required table column reads into it)."""
    evolved = _evolved(incoming.type, table.type, column)
    return table.with_type(evolved).with_nullable(table.nullable or incoming.nullable)


def _stored_type(t: pa.DataType, column: str) -> pa.DataType:
    """The type a table stores for incoming type ``t`` (through Avro, as a new table's schema is)."""
    try:
        return avro_to_arrow(arrow_to_avro(pa.schema([pa.field("f", t)]), "t")).field(0).type
    except SchemaConversionError as e:
        raise NewColumnError(column, str(t), None, f"type {t} cannot be stored: {e}") from None


def _new_field(f: pa.Field, column: str) -> pa.Field:
    if not f.nullable:
        raise NewColumnError(
            column,
            str(f.type),
            None,
            "is a new non-nullable column: Apache Hudi adds only nullable columns (older records read "
            "it as null); make it nullable",
        )
    if pa.types.is_null(f.type):
        raise NewColumnError(column, str(f.type), None, "is a new column of nulls only: give it a type")
    return pa.field(f.name, _stored_type(f.type, column), nullable=True)


def _evolved(incoming: pa.DataType, table: pa.DataType, column: str) -> pa.DataType:
    """``table`` widened to take ``incoming``, nested types member by member."""
    if pa.types.is_dictionary(incoming):
        return _evolved(incoming.value_type, table, column)
    if pa.types.is_null(incoming):  # a column of nulls fits any type
        return table
    if pa.types.is_struct(table):
        if not pa.types.is_struct(incoming):
            raise _mismatch(column, incoming, table, "is a record")
        return _evolved_struct(incoming, table, column)
    if pa.types.is_list(table):
        if not _is_list(incoming):
            raise _mismatch(column, incoming, table, "is an array")
        return pa.list_(_evolved_field(incoming.value_field, table.value_field, f"{column}.element"))
    if pa.types.is_map(table):
        if not pa.types.is_map(incoming):
            raise _mismatch(column, incoming, table, "is a map")
        return pa.map_(table.key_type, _evolved_field(incoming.item_field, table.item_field, f"{column}.value"))
    return _evolved_leaf(incoming, table, column)


def _evolved_struct(incoming: pa.StructType, table: pa.StructType, column: str) -> pa.DataType:
    members = []
    for f in table:
        index = incoming.get_field_index(f.name)
        members.append(f if index < 0 else _evolved_field(incoming.field(index), f, f"{column}.{f.name}"))
    known = set(table.names)
    members += [_new_field(f, f"{column}.{f.name}") for f in incoming if f.name not in known]
    return pa.struct(members)


def _evolved_leaf(incoming: pa.DataType, table: pa.DataType, column: str) -> pa.DataType:
    if pa.types.is_nested(incoming):
        raise _mismatch(column, incoming, table, f"is {table}")
    try:
        source, target = avro_leaf(incoming), avro_leaf(table)
    except SchemaConversionError as e:
        raise ColumnTypeError(column, str(incoming), str(table), f"type {incoming} cannot be written: {e}") from None
    if source == target or promotes(source, target):
        return table  # the values are rewritten into the table's type
    if reads(source, target):
        return _stored_type(incoming, column)  # the table's type widens
    raise ColumnTypeError(
        column,
        str(incoming),
        str(table),
        f"incoming type {incoming} (Avro {source}) neither goes into nor widens the table's {table} "
        f"(Avro {target}): Apache Hudi refuses the change (see schema evolution in docs/writing.md)",
    )


def _is_list(t: pa.DataType) -> bool:
    return bool(pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t))


def _mismatch(column: str, incoming: pa.DataType, table: pa.DataType, what: str) -> SchemaMismatchError:
    return ColumnTypeError(
        column, str(incoming), str(table), f"incoming type {incoming} does not go into the table's column, which {what}"
    )
