"""Arrow <-> Avro schema conversion in the shape Apache Hudi's Spark writer produces.

Hudi stores schemas as Avro JSON (``hoodie.table.create.schema``, commit ``extraMetadata.schema``,
log block headers). Its Spark path names the top record ``<table>_record`` in namespace
``hoodie.<table>``, names nested records after their field with the parent's full name as namespace,
names decimal ``fixed`` types ``fixed`` in namespace ``<parent full name>.<field>``, and makes every
field a ``["null", T]`` union with default null. Following that keeps our schemas byte-comparable
with Java's and readable by hudi-rs.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from hudi_framework.errors import SchemaConversionError

META_FIELDS: tuple[str, ...] = (
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
)

AvroSchema = dict[str, Any]

#: Most digits of a decimal: Arrow's ``decimal128``, and Spark's (so Apache Hudi's Spark writer's) limit.
MAX_DECIMAL_PRECISION = 38


def decimal_fixed_size(precision: int) -> int:
    """Minimum bytes of a two's-complement integer holding ``precision`` decimal digits."""
    size = 1
    while 2 ** (8 * size - 1) <= 10**precision - 1:
        size += 1
    return size


def _nullable(avro_type: Any) -> list[Any]:
    return ["null", avro_type]


def _to_avro_type(t: pa.DataType, field_name: str, parent_full: str) -> Any:
    if pa.types.is_dictionary(t):
        return _to_avro_type(t.value_type, field_name, parent_full)
    if pa.types.is_boolean(t):
        return "boolean"
    if (
        pa.types.is_int8(t)
        or pa.types.is_int16(t)
        or pa.types.is_int32(t)
        or pa.types.is_uint8(t)
        or pa.types.is_uint16(t)
    ):
        return "int"
    if pa.types.is_integer(t):
        return "long"
    if pa.types.is_float16(t) or pa.types.is_float32(t):
        return "float"
    if pa.types.is_float64(t):
        return "double"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "string"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return "bytes"
    if pa.types.is_fixed_size_binary(t):
        return {
            "type": "fixed",
            "name": "fixed",
            "namespace": f"{parent_full}.{field_name}",
            "size": t.byte_width,
        }
    if pa.types.is_decimal(t):
        if t.precision > MAX_DECIMAL_PRECISION:
            raise SchemaConversionError(
                f"field {field_name!r}: {t} has {t.precision} digits; Apache Hudi's Spark writer (and Spark) "
                f"store decimals of at most {MAX_DECIMAL_PRECISION} digits"
            )
        return {
            "type": "fixed",
            "name": "fixed",
            "namespace": f"{parent_full}.{field_name}",
            "size": decimal_fixed_size(t.precision),
            "logicalType": "decimal",
            "precision": t.precision,
            "scale": t.scale,
        }
    if pa.types.is_date(t):
        return {"type": "int", "logicalType": "date"}
    if pa.types.is_timestamp(t):
        local = "" if t.tz else "local-"
        unit = "millis" if t.unit in ("s", "ms") else "micros"
        return {"type": "long", "logicalType": f"{local}timestamp-{unit}"}
    if pa.types.is_time(t):
        return (
            {"type": "long", "logicalType": "time-micros"}
            if t.bit_width == 64
            else {"type": "int", "logicalType": "time-millis"}
        )
    if pa.types.is_struct(t):
        return _record(list(t), name=field_name, namespace=parent_full)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return {"type": "array", "items": _nullable(_to_avro_type(t.value_type, field_name, parent_full))}
    if pa.types.is_map(t):
        if not (pa.types.is_string(t.key_type) or pa.types.is_large_string(t.key_type)):
            raise SchemaConversionError(f"field {field_name!r}: Avro map keys must be strings, not {t.key_type}")
        return {"type": "map", "values": _nullable(_to_avro_type(t.item_type, field_name, parent_full))}
    raise SchemaConversionError(f"field {field_name!r}: Arrow type {t} has no Avro counterpart")


def avro_type_of(t: pa.DataType) -> Any:
    """The Avro type Hudi writes for Arrow type ``t`` (named types get placeholder names).

    Raises:
        SchemaConversionError: ``t`` has no Avro counterpart.
    """
    return _to_avro_type(t, "value", "")


def _record(fields: list[pa.Field], *, name: str, namespace: str) -> AvroSchema:
    full = f"{namespace}.{name}" if namespace else name
    return {
        "type": "record",
        "name": name,
        "namespace": namespace,
        "fields": [
            {"name": f.name, "type": _nullable(_to_avro_type(f.type, f.name, full)), "default": None} for f in fields
        ],
    }


def arrow_to_avro(schema: pa.Schema, table_name: str, *, drop_meta_fields: bool = True) -> AvroSchema:
    """The Avro record schema Hudi would write for ``schema`` in table ``table_name``."""
    fields = [f for f in schema if not (drop_meta_fields and f.name in META_FIELDS)]
    return _record(fields, name=f"{table_name}_record", namespace=f"hoodie.{table_name}")


def avro_json(schema: AvroSchema) -> str:
    """Compact JSON, as Java's ``Schema.toString()`` prints it."""
    return json.dumps(schema, separators=(",", ":"))


def with_meta_fields(avro: AvroSchema) -> AvroSchema:
    """The schema with the five ``_hoodie_*`` string fields first (log blocks, base files)."""
    meta = [{"name": n, "type": ["null", "string"], "doc": "", "default": None} for n in META_FIELDS]
    rest = [f for f in avro["fields"] if f["name"] not in META_FIELDS]
    return {**avro, "fields": meta + rest}


# ------------------------------------------------------------------------------ Avro -> Arrow
#: Arrow types of Avro's primitive types.
AVRO_PRIMITIVES: dict[str, pa.DataType] = {
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "string": pa.string(),
    "bytes": pa.binary(),
    "null": pa.null(),
}


def _from_avro_type(t: Any, named: dict[str, Any]) -> tuple[pa.DataType, bool]:
    """(arrow type, nullable)."""
    if isinstance(t, list):
        non_null = [b for b in t if b != "null"]
        if len(non_null) != 1:
            raise SchemaConversionError(f"union {t} with several non-null branches is not supported")
        inner, _ = _from_avro_type(non_null[0], named)
        return inner, len(non_null) != len(t)
    if isinstance(t, str):
        if t in AVRO_PRIMITIVES:
            return AVRO_PRIMITIVES[t], False
        if t in named:
            return _from_avro_type(named[t], named)
        raise SchemaConversionError(f"unknown Avro type {t!r}")
    kind = t.get("type")
    logical = t.get("logicalType")
    if logical == "decimal":
        precision = int(t["precision"])
        if precision > MAX_DECIMAL_PRECISION:
            raise SchemaConversionError(f"decimal of {precision} digits: at most {MAX_DECIMAL_PRECISION} are supported")
        return pa.decimal128(precision, int(t.get("scale", 0))), False
    if logical == "date":
        return pa.date32(), False
    if logical in ("timestamp-micros", "timestamp-millis"):
        return pa.timestamp("us" if logical.endswith("micros") else "ms", tz="UTC"), False
    if logical in ("local-timestamp-micros", "local-timestamp-millis"):
        return pa.timestamp("us" if logical.endswith("micros") else "ms"), False
    if logical == "time-micros":
        return pa.time64("us"), False
    if logical == "time-millis":
        return pa.time32("ms"), False
    if logical == "uuid":
        return pa.string(), False
    if kind in ("record", "error"):
        full = _full_name(t)
        named[full] = t
        named.setdefault(t["name"], t)
        return pa.struct([_field(f, named) for f in t["fields"]]), False
    if kind == "array":
        item, item_null = _from_avro_type(t["items"], named)
        return pa.list_(pa.field("element", item, nullable=item_null)), False
    if kind == "map":
        val, val_null = _from_avro_type(t["values"], named)
        return pa.map_(pa.string(), pa.field("value", val, nullable=val_null)), False
    if kind == "fixed":
        named[_full_name(t)] = t
        return pa.binary(int(t["size"])), False
    if kind == "enum":
        named[_full_name(t)] = t
        return pa.string(), False
    if isinstance(kind, (str, list, dict)):
        return _from_avro_type(kind, named)
    raise SchemaConversionError(f"unsupported Avro type {t!r}")


def _full_name(t: dict[str, Any]) -> str:
    name = str(t["name"])
    ns = t.get("namespace")
    return f"{ns}.{name}" if ns and "." not in name else name


def _field(f: dict[str, Any], named: dict[str, Any]) -> pa.Field:
    typ, nullable = _from_avro_type(f["type"], named)
    return pa.field(f["name"], typ, nullable=nullable)


def avro_to_arrow(avro: AvroSchema | str) -> pa.Schema:
    """The Arrow schema of an Avro record schema (JSON text or parsed)."""
    parsed: AvroSchema = json.loads(avro) if isinstance(avro, str) else avro
    if parsed.get("type") != "record":
        raise SchemaConversionError("a table schema must be an Avro record")
    named: dict[str, Any] = {}
    return pa.schema([_field(f, named) for f in parsed["fields"]])
