"""The Avro record schema the ``kafka-avro`` source's values are written with, from its JSON text.

Its Arrow schema is the shared conversion, :func:`hudi_framework.contracts.avro_arrow.avro_to_arrow`:
``["null", T]`` unions are nullable ``T``, enums strings, ``fixed`` fixed-size binary, logical types
their Arrow equivalents, as Apache Hudi's Spark converters map them.
"""

from __future__ import annotations

import json
from typing import Any


class AvroSchemaError(ValueError):
    """The schema text is not JSON, or not an Avro record."""


def parse_schema(text: str) -> dict[str, Any]:
    """The Avro schema JSON, which must describe a record."""
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as e:
        raise AvroSchemaError(f"not JSON: {e}") from e
    if not isinstance(schema, dict) or schema.get("type") != "record":
        raise AvroSchemaError("the top-level Avro schema must be a record")
    return schema
