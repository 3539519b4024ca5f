"""A compact schema notation for the CLI: ``id:long,name:string,amount:decimal(10,2)``."""

from __future__ import annotations

import re

import pyarrow as pa

from hudi_framework.errors import ConfigError

_SIMPLE: dict[str, pa.DataType] = {
    "string": pa.string(),
    "str": pa.string(),
    "int": pa.int32(),
    "integer": pa.int32(),
    "long": pa.int64(),
    "bigint": pa.int64(),
    "short": pa.int16(),
    "byte": pa.int8(),
    "float": pa.float32(),
    "double": pa.float64(),
    "boolean": pa.bool_(),
    "bool": pa.bool_(),
    "binary": pa.binary(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"),
}
_DECIMAL = re.compile(r"^decimal\((\d+),\s*(\d+)\)$")


def _split_top_level(spec: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in spec:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def parse_schema_spec(spec: str) -> pa.Schema:
    """Parse ``name:type`` pairs separated by commas.

    Types: string, int, long, short, byte, float, double, boolean, binary, date, timestamp,
    timestamp_ntz, decimal(p,s).

    Raises:
        ConfigError: Naming the offending column or type.
    """
    fields = []
    for item in _split_top_level(spec):
        if ":" not in item:
            raise ConfigError(f"schema column {item!r} must be written name:type")
        name, type_name = (s.strip() for s in item.split(":", 1))
        lowered = type_name.lower()
        match = _DECIMAL.match(lowered)
        if match:
            dtype: pa.DataType = pa.decimal128(int(match.group(1)), int(match.group(2)))
        elif lowered in _SIMPLE:
            dtype = _SIMPLE[lowered]
        else:
            raise ConfigError(
                f"schema column {name!r}: unknown type {type_name!r} (known: {', '.join(_SIMPLE)}, decimal(p,s))"
            )
        fields.append(pa.field(name, dtype))
    if not fields:
        raise ConfigError("the schema has no columns")
    return pa.schema(fields)
