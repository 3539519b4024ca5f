"""Avro schemas as Arrow schemas: the one conversion the kernel and the source plugins share.

Avro types map as Apache Hudi's Spark converters map them: a ``["null", T]`` union is a nullable
``T`` (every other type, a field or an array item or a map value, is not nullable); enums are
strings; ``fixed`` is fixed-size binary; the logical types ``date``, ``time-*``, ``timestamp-*``
(UTC), ``local-timestamp-*`` (no zone), ``uuid`` and ``decimal`` (on ``bytes`` or ``fixed``) are their
Arrow counterparts. Unions of several non-null types and recursive types have no Arrow form.

Named types are resolved as the Avro specification resolves them: a named type's full name takes
its own ``namespace``, else the enclosing type's; a reference without a dot is looked up in the
enclosing namespace first, then as a bare name (the first type defined with that short name).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

import pyarrow as pa

from hudi_framework.errors import SchemaConversionError

__all__ = [
    "AVRO_PRIMITIVES",
    "MAX_DECIMAL_PRECISION",
    "AvroSchema",
    "avro_to_arrow",
    "avro_type_to_arrow",
]

#: A parsed Avro schema (JSON object).
AvroSchema = dict[str, Any]

#: Most digits of a decimal: Arrow's ``decimal128``, and Spark's (so Apache Hudi's Spark writer's) limit.
MAX_DECIMAL_PRECISION: Final = 38

#: Arrow types of Avro's primitive types.
AVRO_PRIMITIVES: Final[Mapping[str, pa.DataType]] = MappingProxyType(
    {
        "boolean": pa.bool_(),
        "int": pa.int32(),
        "long": pa.int64(),
        "float": pa.float32(),
        "double": pa.float64(),
        "string": pa.string(),
        "bytes": pa.binary(),
        "null": pa.null(),
    }
)

#: Arrow types of the logical types whose Arrow type does not depend on their parameters.
_LOGICAL: Final[Mapping[str, pa.DataType]] = MappingProxyType(
    {
        "date": pa.date32(),
        "time-millis": pa.time32("ms"),
        "time-micros": pa.time64("us"),
        "timestamp-millis": pa.timestamp("ms", tz="UTC"),
        "timestamp-micros": pa.timestamp("us", tz="UTC"),
        "local-timestamp-millis": pa.timestamp("ms"),
        "local-timestamp-micros": pa.timestamp("us"),
        "uuid": pa.string(),
    }
)

_RECORD_KINDS: Final = ("record", "error")


def avro_to_arrow(avro: Mapping[str, Any] | str) -> pa.Schema:
    """The Arrow schema of an Avro record schema (JSON text or parsed), one field per record field.

    Raises:
        SchemaConversionError: The schema is not a record, or has a type with no Arrow form.
        ValueError: ``avro`` is text that is not JSON.
    """
    parsed = json.loads(avro) if isinstance(avro, str) else avro
    if not isinstance(parsed, Mapping) or parsed.get("type") not in _RECORD_KINDS:
        raise SchemaConversionError("the top-level Avro schema must be a record")
    struct, _ = _Converter().convert(parsed, None)
    return pa.schema(list(struct))


def avro_type_to_arrow(avro_type: Any) -> tuple[pa.DataType, bool]:
    """``(Arrow type, nullable)`` of one Avro type (a name, a union or a JSON object), on its own.

    Raises:
        SchemaConversionError: The type has no Arrow form.
    """
    return _Converter().convert(avro_type, None)


class _Converter:
    """One conversion: the named types defined so far, by full and by short name."""

    def __init__(self) -> None:
        self.named: dict[str, pa.DataType] = {}
        self.open: set[str] = set()  # records being converted: a reference to one is recursion

    def convert(self, node: Any, namespace: str | None) -> tuple[pa.DataType, bool]:
        """``(Arrow type, nullable)`` of ``node`` inside ``namespace``."""
        if isinstance(node, list):
            branches = [b for b in node if b != "null"]
            if len(branches) != 1:
                raise SchemaConversionError(f'union {_show(node)} has no Arrow form (only ["null", T] unions have one)')
            return self.convert(branches[0], namespace)[0], len(branches) < len(node)
        if isinstance(node, str):
            return self._reference(node, namespace), False
        if not isinstance(node, Mapping):
            raise SchemaConversionError(f"not an Avro type: {node!r}")
        kind = node.get("type")
        logical = node.get("logicalType")
        if logical == "decimal" and kind in ("bytes", "fixed"):
            decimal = _decimal(node)
            if kind == "fixed":
                self._define(node, namespace, decimal)
            return decimal, False
        if isinstance(logical, str) and logical in _LOGICAL:
            return _LOGICAL[logical], False
        if kind in _RECORD_KINDS:
            return self._record(node, namespace), False
        if kind == "enum":
            return self._define(node, namespace, pa.string()), False
        if kind == "fixed":
            return self._define(node, namespace, pa.binary(int(_attribute(node, "size")))), False
        if kind == "array":
            item, item_nullable = self.convert(_attribute(node, "items"), namespace)
            return pa.list_(pa.field("element", item, nullable=item_nullable)), False
        if kind == "map":
            value, value_nullable = self.convert(_attribute(node, "values"), namespace)
            return pa.map_(pa.string(), pa.field("value", value, nullable=value_nullable)), False
        if isinstance(kind, (str, list, Mapping)):
            return self.convert(kind, namespace)
        raise SchemaConversionError(f"unsupported Avro type {node!r}")

    def _record(self, node: Mapping[str, Any], namespace: str | None) -> pa.DataType:
        full = _full_name(node, namespace)
        inner = full.rpartition(".")[0] or None
        self.open.add(full)
        fields = []
        for f in _attribute(node, "fields"):
            dtype, nullable = self.convert(_attribute(f, "type"), inner)
            fields.append(pa.field(_attribute(f, "name"), dtype, nullable=nullable))
        self.open.discard(full)
        return self._define(node, namespace, pa.struct(fields))

    def _define(self, node: Mapping[str, Any], namespace: str | None, dtype: pa.DataType) -> pa.DataType:
        full = _full_name(node, namespace)
        self.named[full] = dtype
        self.named.setdefault(full.rpartition(".")[2], dtype)
        return dtype

    def _reference(self, name: str, namespace: str | None) -> pa.DataType:
        if name in AVRO_PRIMITIVES:
            return AVRO_PRIMITIVES[name]
        full = f"{namespace}.{name}" if namespace and "." not in name else name
        if full not in self.open:
            for key in (full, name):
                if key in self.named:
                    return self.named[key]
        if full in self.open or any(name in (o, o.rpartition(".")[2]) for o in self.open):
            raise SchemaConversionError(f"the Avro type {name!r} is recursive: Arrow has no recursive types")
        raise SchemaConversionError(f"unknown Avro type {name!r}")


def _full_name(node: Mapping[str, Any], namespace: str | None) -> str:
    name = str(_attribute(node, "name"))
    space = node.get("namespace", namespace)
    return f"{space}.{name}" if space and "." not in name else name


def _decimal(node: Mapping[str, Any]) -> pa.DataType:
    precision = int(_attribute(node, "precision"))
    if precision > MAX_DECIMAL_PRECISION:
        raise SchemaConversionError(f"decimal of {precision} digits: at most {MAX_DECIMAL_PRECISION} are supported")
    return pa.decimal128(precision, int(node.get("scale", 0)))


def _attribute(node: Mapping[str, Any], key: str) -> Any:
    try:
        return node[key]
    except KeyError:
        raise SchemaConversionError(f"the Avro type {_show(node)} has no {key!r}") from None


def _show(node: Any) -> str:
    """``node`` as the JSON it came from, for messages."""
    return json.dumps(node, default=repr)
