"""Arrow <-> Avro schema conversion in the shape Apache Hudi's Spark writer produces.

Hudi stores schemas as Avro JSON (``hoodie.table.create.schema``, commit ``extraMetadata.schema``,
log block headers). Its Spark path names the top record ``<table>_record`` in namespace
``hoodie.<table>``, names nested records after their field with the parent's full name as namespace,
names decimal ``fixed`` types ``fixed`` in namespace ``<parent full name>.<field>``, and makes every
field a ``["null", T]`` union with default null. Following that keeps our schemas byte-comparable
with Java's and readable by hudi-rs.

The reverse direction, Avro to Arrow, is the contract :mod:`hudi_framework.contracts.avro_arrow`
(the source plugins convert their Avro schemas with it too); its names are re-exported here.
"""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa

from hudi_framework.contracts.avro_arrow import AVRO_PRIMITIVES as AVRO_PRIMITIVES
from hudi_framework.contracts.avro_arrow import MAX_DECIMAL_PRECISION as MAX_DECIMAL_PRECISION
from hudi_framework.contracts.avro_arrow import AvroSchema as AvroSchema
from hudi_framework.contracts.avro_arrow import avro_to_arrow as avro_to_arrow
from hudi_framework.errors import SchemaConversionError as SchemaConversionError

META_FIELDS: tuple[str, ...] = (
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
)


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
