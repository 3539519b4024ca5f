"""The Arrow schema of an Avro record schema, as the Kafka sources' rows carry it.

Avro types map as Apache Hudi's Spark converters map them: ``["null", T]`` unions are nullable
``T``, enums strings, ``fixed`` fixed-size binary, and the logical types ``date``, ``time-*``,
``timestamp-*``, ``local-timestamp-*`` and ``decimal`` their Arrow equivalents. Other unions have
no row form and are refused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import pyarrow as pa

_PRIMITIVES: Final[Mapping[str, pa.DataType]] = {
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
}
_LOGICAL: Final[Mapping[str, pa.DataType]] = {
    "date": pa.date32(),
    "time-millis": pa.time32("ms"),
    "time-micros": pa.time64("us"),
    "timestamp-millis": pa.timestamp("ms", tz="UTC"),
    "timestamp-micros": pa.timestamp("us", tz="UTC"),
    "local-timestamp-millis": pa.timestamp("ms"),
    "local-timestamp-micros": pa.timestamp("us"),
    "uuid": pa.string(),
}


class AvroSchemaError(ValueError):
    """The Avro schema has no Arrow row form here (a non-null union, an unknown type)."""


def parse_schema(text: str) -> dict[str, Any]:
    """The Avro schema JSON, which must describe a record."""
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as e:
        raise AvroSchemaError(f"not JSON: {e}") from e
    if not isinstance(schema, dict) or schema.get("type") != "record":
        raise AvroSchemaError("the top-level Avro schema must be a record")
    return schema


def arrow_schema(schema: Mapping[str, Any]) -> pa.Schema:
    """The Arrow schema of an Avro record schema."""
    named: dict[str, pa.DataType] = {}
    fields = _record_fields(schema, named, schema.get("namespace"))
    return pa.schema(fields)


def _record_fields(schema: Mapping[str, Any], named: dict[str, pa.DataType], namespace: str | None) -> list[pa.Field]:
    namespace = schema.get("namespace", namespace)
    fields: list[pa.Field] = []
    for f in schema.get("fields", []):
        dtype, nullable = _type(f["type"], named, namespace)
        fields.append(pa.field(f["name"], dtype, nullable=nullable))
    return fields


def _register(
    named: dict[str, pa.DataType], node: Mapping[str, Any], namespace: str | None, dtype: pa.DataType
) -> None:
    name = str(node["name"])
    named[name] = dtype
    space = node.get("namespace", namespace)
    if space and "." not in name:
        named[f"{space}.{name}"] = dtype


def _type(node: Any, named: dict[str, pa.DataType], namespace: str | None) -> tuple[pa.DataType, bool]:
    """``(arrow type, nullable)`` of an Avro type node."""
    if isinstance(node, list):
        branches = [b for b in node if b != "null"]
        if len(branches) != 1:
            raise AvroSchemaError(f'union {json.dumps(node)} has no row form (only ["null", T] unions do)')
        return _type(branches[0], named, namespace)[0], len(branches) < len(node)
    if isinstance(node, str):
        if node in _PRIMITIVES:
            return _PRIMITIVES[node], False
        if node in named:
            return named[node], False
        if namespace and f"{namespace}.{node}" in named:
            return named[f"{namespace}.{node}"], False
        raise AvroSchemaError(f"unknown Avro type {node!r}")
    if not isinstance(node, Mapping):
        raise AvroSchemaError(f"not an Avro type: {node!r}")
    kind = node.get("type")
    logical = node.get("logicalType")
    if logical == "decimal" and kind in ("bytes", "fixed"):
        if kind == "fixed":
            _register(named, node, namespace, pa.binary(int(node["size"])))
        return pa.decimal128(int(node["precision"]), int(node.get("scale", 0))), False
    if isinstance(logical, str) and logical in _LOGICAL:
        return _LOGICAL[logical], False
    if kind == "record":
        dtype: pa.DataType = pa.struct(_record_fields(node, named, namespace))
        _register(named, node, namespace, dtype)
        return dtype, False
    if kind == "enum":
        _register(named, node, namespace, pa.string())
        return pa.string(), False
    if kind == "fixed":
        dtype = pa.binary(int(node["size"]))
        _register(named, node, namespace, dtype)
        return dtype, False
    if kind == "array":
        item, nullable = _type(node["items"], named, namespace)
        return pa.list_(pa.field("element", item, nullable=nullable)), False
    if kind == "map":
        value, nullable = _type(node["values"], named, namespace)
        return pa.map_(pa.string(), pa.field("value", value, nullable=nullable)), False
    return _type(kind, named, namespace)
