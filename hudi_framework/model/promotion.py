"""Which incoming column types a write takes into the table's types, decided from the two types alone.

Apache Hudi 1.x, writing a batch whose schema differs from the table's with its default settings
(``hoodie.datasource.write.reconcile.schema=false``, ``hoodie.schema.on.read.enable=false``),
deduces the writer schema in ``HoodieSchemaUtils.deduceWriterSchema``:

1. it first rewrites every incoming field whose type it can *promote* into the table's type to that
   type (``AvroSchemaEvolutionUtils.reconcileSchemaRequirements`` through
   ``SchemaChangeUtils.shouldPromoteType``); the records are then rewritten value by value
   (``HoodieAvroUtils.rewritePrimaryTypeWithDiffSchemaType``) and the table's type is kept;
2. it then checks that the table's data can be read with what is left of the incoming schema
   (``checkValidEvolution``: Hudi's fork of Avro's reader/writer compatibility). A type that passes
   only here, a *wider* one, becomes the table's new type: schema evolution.

:func:`fit` checks a batch against a table schema that already took it: step 2 is
:mod:`~hudi_framework.model.evolution`'s (it widens the table's type first), so here a type that
only passes step 2 is refused with :class:`SchemaEvolutionRequiredError`, any other with
:class:`ColumnTypeError`. Both are decided from the types, before any value is read.

Arrow types are compared through the Avro type Hudi writes for them (``model/schema.py``): Arrow
representations of one Avro type (``int8`` and ``int32``, ``large_string`` and ``string``,
dictionary-encoded and plain, timestamp units that map to one Avro unit...) are the same type.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import pyarrow as pa

from hudi_framework.errors import (
    ColumnTypeError,
    SchemaConversionError,
    SchemaEvolutionRequiredError,
    SchemaMismatchError,
)
from hudi_framework.model.schema import avro_type_of

__all__ = ["AvroLeaf", "Fit", "avro_leaf", "fit", "promotes", "reads"]


class Fit(Enum):
    """How an accepted incoming type goes into the table's type."""

    #: The table's own Avro type (the Arrow representation may differ).
    SAME = "same"
    #: Apache Hudi promotes the values into the table's type (somewhere, for a nested type).
    PROMOTED = "promoted"


@dataclass(frozen=True, slots=True)
class AvroLeaf:
    """The Avro type of a non-nested column, as Hudi's type system sees it.

    Attributes:
        kind: ``boolean``, ``int``, ``long``, ``float``, ``double``, ``string``, ``bytes``,
            ``fixed``, ``decimal``, ``date``, ``time`` or ``timestamp``.
        unit: ``millis`` or ``micros`` for ``time`` and ``timestamp``.
        utc: For ``timestamp``: UTC-adjusted (``timestamp-*``) rather than local (``local-timestamp-*``).
        size: Bytes of a ``fixed``.
        precision: Digits of a ``decimal``.
        scale: Fraction digits of a ``decimal``.
    """

    kind: str
    unit: str = ""
    utc: bool = False
    size: int = 0
    precision: int = 0
    scale: int = 0

    def __str__(self) -> str:
        if self.kind == "decimal":
            return f"decimal({self.precision},{self.scale})"
        if self.kind == "fixed":
            return f"fixed({self.size})"
        if self.kind == "timestamp":
            return f"{'' if self.utc else 'local-'}timestamp-{self.unit}"
        if self.kind == "time":
            return f"time-{self.unit}"
        return self.kind


_NUMBERS = ("int", "long", "float", "double")
#: SchemaChangeUtils.isTypeUpdateAllowInternal (timestamp precision changes need an explicit
#: per-field override there, off by default): incoming kind -> table kinds it is promoted into.
_PROMOTIONS: dict[str, tuple[str, ...]] = {
    "int": ("long", "float", "double", "string", "decimal"),
    "long": ("float", "double", "string", "decimal"),
    "float": ("double", "string", "decimal"),
    "double": ("string", "decimal"),
    "date": ("string",),
    "bytes": ("string",),
    "string": ("date", "decimal", "bytes"),
    "decimal": ("string", "decimal"),
}
#: Hudi's reader/writer compatibility across kinds: incoming (reader) kind -> table (writer) kinds
#: whose data it reads, making it the table's new type.
_READS: dict[str, tuple[str, ...]] = {
    "long": ("int",),
    "float": ("int", "long"),
    "double": ("int", "long", "float"),
    "bytes": ("string",),
    "string": (*_NUMBERS, "decimal", "bytes"),
    "timestamp": ("long",),
}


def _decimal_wider(wide: AvroLeaf, narrow: AvroLeaf) -> bool:
    """Every value of ``narrow`` is one of ``wide`` (Hudi's ``DecimalType.isWiderThan``, or the same
    scale with at least as many digits)."""
    whole = wide.precision - wide.scale >= narrow.precision - narrow.scale
    return (whole and wide.scale > narrow.scale) or (wide.precision >= narrow.precision and wide.scale == narrow.scale)


def promotes(incoming: AvroLeaf, table: AvroLeaf) -> bool:
    """Whether Hudi rewrites values of ``incoming`` into ``table`` (``SchemaChangeUtils.shouldPromoteType``)."""
    if table.kind not in _PROMOTIONS.get(incoming.kind, ()):
        return False
    return incoming.kind != "decimal" or table.kind != "decimal" or _decimal_wider(table, incoming)


def reads(incoming: AvroLeaf, table: AvroLeaf) -> bool:
    """Whether Hudi's compatibility check reads the table's data with the incoming type."""
    if incoming.kind != table.kind:
        return table.kind in _READS.get(incoming.kind, ())
    if incoming.kind == "decimal":
        return _decimal_wider(incoming, table)
    if incoming.kind == "timestamp":  # micros data read as millis, never across UTC/local
        return incoming.utc == table.utc and incoming.unit == "millis"
    return False  # the same kind with other parameters: time units, fixed sizes


def _leaf_of(avro: Any) -> AvroLeaf:
    if isinstance(avro, str):
        return AvroLeaf(avro)
    logical = avro.get("logicalType")
    if logical == "decimal":
        return AvroLeaf("decimal", precision=int(avro["precision"]), scale=int(avro["scale"]))
    if logical == "date":
        return AvroLeaf("date")
    if logical in ("time-millis", "time-micros"):
        return AvroLeaf("time", unit=logical[5:])
    if logical is not None and "timestamp-" in logical:
        return AvroLeaf("timestamp", unit=logical.rsplit("-", 1)[1], utc=not logical.startswith("local-"))
    return AvroLeaf("fixed", size=int(avro["size"]))


def avro_leaf(t: pa.DataType) -> AvroLeaf:
    """The Avro type Hudi writes for the non-nested Arrow type ``t``.

    Raises:
        SchemaConversionError: ``t`` has no Avro counterpart that holds every value: it is nested,
            of a kind Avro lacks (durations, intervals...), or ``uint64`` (Avro's long is signed).
    """
    if pa.types.is_dictionary(t):
        return avro_leaf(t.value_type)
    if pa.types.is_uint64(t):
        raise SchemaConversionError("no Avro type holds every uint64 value (Avro's long is signed 64-bit)")
    if pa.types.is_nested(t):
        raise SchemaConversionError(f"{t} is nested")
    return _leaf_of(avro_type_of(t))


def fit(incoming: pa.DataType, table: pa.DataType, column: str) -> Fit:
    """How a column of type ``incoming`` goes into the table's column of type ``table``.

    Decided from the two types only. Nested types are compared field by field (struct fields by
    name, in any order), list elements and map values as such.

    Args:
        incoming: The incoming column's Arrow type.
        table: The table column's Arrow type.
        column: The column's name, for errors (nested ones as ``a.b``, ``a.element``, ``a.value``).

    Raises:
        SchemaEvolutionRequiredError: Hudi would take the column by changing the table's type
            (a wider type), or the incoming struct has a field the table's lacks.
        ColumnTypeError: Hudi takes the type into the table's in no way.
        SchemaMismatchError: An incoming struct lacks a field of the table's.
    """
    if pa.types.is_dictionary(incoming):
        return fit(incoming.value_type, table, column)
    if pa.types.is_null(incoming):  # a column of nulls: no value to convert
        return Fit.SAME
    if pa.types.is_struct(table):
        return _fit_struct(incoming, table, column)
    if _is_list(table):
        if not _is_list(incoming):
            raise _mismatch(column, incoming, table, "is an array")
        return fit(incoming.value_type, table.value_type, f"{column}.element")
    if pa.types.is_map(table):
        if not pa.types.is_map(incoming):
            raise _mismatch(column, incoming, table, "is a map")
        _check_map_key(incoming.key_type, table.key_type, f"{column}.key")
        return fit(incoming.item_type, table.item_type, f"{column}.value")
    return _fit_leaf(incoming, table, column)


def _is_list(t: pa.DataType) -> bool:
    return bool(
        pa.types.is_list(t)
        or pa.types.is_large_list(t)
        or pa.types.is_fixed_size_list(t)
        or pa.types.is_list_view(t)
        or pa.types.is_large_list_view(t)
    )


def _check_map_key(incoming: pa.DataType, table: pa.DataType, column: str) -> None:
    """Avro map keys are strings: no key type is promoted into them."""
    try:
        kind = avro_leaf(incoming).kind
    except SchemaConversionError:
        kind = ""
    if kind != "string":
        reason = f"incoming map keys of type {incoming}: Avro map keys are strings"
        raise ColumnTypeError(column, str(incoming), str(table), reason)


def _fit_struct(incoming: pa.DataType, table: pa.StructType, column: str) -> Fit:
    if not pa.types.is_struct(incoming):
        raise _mismatch(column, incoming, table, "is a record")
    for f in incoming:
        if table.get_field_index(f.name) < 0:
            raise SchemaEvolutionRequiredError(
                f"{column}.{f.name}",
                str(f.type),
                None,
                "is not in the table schema (the write's evolved schema adds it first)",
            )
    fits = []
    for f in table:
        if incoming.get_field_index(f.name) < 0:
            # Hudi refuses a missing field by default (hoodie.write.set.null.for.missing.columns=false).
            raise SchemaMismatchError(f"{column}.{f.name}", "is missing from the incoming record")
        fits.append(fit(incoming.field(f.name).type, f.type, f"{column}.{f.name}"))
    return Fit.PROMOTED if Fit.PROMOTED in fits else Fit.SAME


def _fit_leaf(incoming: pa.DataType, table: pa.DataType, column: str) -> Fit:
    if pa.types.is_nested(incoming):
        raise _mismatch(column, incoming, table, f"is {table}")
    try:
        source, target = avro_leaf(incoming), avro_leaf(table)
    except SchemaConversionError as e:
        raise ColumnTypeError(column, str(incoming), str(table), f"type {incoming} cannot be written: {e}") from None
    if source == target:
        return Fit.SAME
    if promotes(source, target):
        return Fit.PROMOTED
    if reads(source, target):
        raise SchemaEvolutionRequiredError(
            column,
            str(incoming),
            str(table),
            f"incoming type {incoming} (Avro {source}) is wider than the table's {table} (Avro {target}): "
            f"the table's column must first widen to {source} (schema evolution on write)",
        )
    raise ColumnTypeError(
        column,
        str(incoming),
        str(table),
        f"incoming type {incoming} (Avro {source}) does not go into the table's {table} (Avro {target}): "
        "Apache Hudi promotes no such type (see the promotions in docs/writing.md)",
    )


def _mismatch(column: str, incoming: pa.DataType, table: pa.DataType, what: str) -> ColumnTypeError:
    return ColumnTypeError(
        column, str(incoming), str(table), f"incoming type {incoming} does not go into the table's column, which {what}"
    )
