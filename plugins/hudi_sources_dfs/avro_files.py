"""Avro object container files as Arrow record batches.

fastavro decodes each container block (in C when its extension is built); the rows are turned into
Arrow a block's worth at a time against the Arrow schema derived from the file's writer schema, so
columns keep their declared types even when a batch holds only nulls.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, BinaryIO, Final

import fastavro
import pyarrow as pa

#: Rows per record batch.
BATCH_ROWS: Final = 65_536

_PRIMITIVES: Final[dict[str, pa.DataType]] = {
    "null": pa.null(),
    "boolean": pa.bool_(),
    "int": pa.int32(),
    "long": pa.int64(),
    "float": pa.float32(),
    "double": pa.float64(),
    "bytes": pa.binary(),
    "string": pa.string(),
}
_LOGICAL: Final[dict[str, pa.DataType]] = {
    "date": pa.date32(),
    "time-millis": pa.time32("ms"),
    "time-micros": pa.time64("us"),
    "timestamp-millis": pa.timestamp("ms", tz="UTC"),
    "timestamp-micros": pa.timestamp("us", tz="UTC"),
    "local-timestamp-millis": pa.timestamp("ms"),
    "local-timestamp-micros": pa.timestamp("us"),
}


class UnsupportedAvroTypeError(ValueError):
    """The writer schema uses a type with no Arrow counterpart here (a union of several non-null types)."""


def arrow_type(avro: Any, named: dict[str, pa.DataType]) -> pa.DataType:
    """The Arrow type of an Avro type (nullable unions collapse to their one non-null branch)."""
    if isinstance(avro, str):
        if avro in _PRIMITIVES:
            return _PRIMITIVES[avro]
        if avro in named:
            return named[avro]
        raise UnsupportedAvroTypeError(f"unknown Avro type {avro!r}")
    if isinstance(avro, list):
        branches = [b for b in avro if b != "null"]
        if len(branches) != 1:
            raise UnsupportedAvroTypeError(f"union {avro!r} has several non-null branches")
        return arrow_type(branches[0], named)
    logical = avro.get("logicalType")
    if logical == "decimal":
        return pa.decimal128(int(avro["precision"]), int(avro.get("scale", 0)))
    if logical in _LOGICAL:
        return _LOGICAL[logical]
    kind = avro["type"]
    if kind == "record":
        t: pa.DataType = pa.struct([pa.field(f["name"], arrow_type(f["type"], named)) for f in avro["fields"]])
    elif kind == "enum":
        t = pa.string()
    elif kind == "fixed":
        t = pa.binary(int(avro["size"]))
    elif kind == "array":
        return pa.list_(arrow_type(avro["items"], named))
    elif kind == "map":
        return pa.map_(pa.string(), arrow_type(avro["values"], named))
    else:
        return arrow_type(kind, named)
    named[avro["name"]] = t
    if "namespace" in avro:
        named[f"{avro['namespace']}.{avro['name']}"] = t
    return t


def arrow_schema(writer_schema: Any) -> pa.Schema:
    """The Arrow schema of a top-level Avro record schema."""
    struct = arrow_type(writer_schema, {})
    if not pa.types.is_struct(struct):
        raise UnsupportedAvroTypeError("the file's schema is not a record")
    return pa.schema(list(struct))


def read_avro_batches(stream: BinaryIO, *, batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    """The rows of the container file ``stream`` as record batches of its writer schema.

    Raises:
        UnsupportedAvroTypeError: The schema has a type this reader does not convert.
        ValueError: The file is not an Avro container file or is damaged (fastavro's errors).
    """
    reader = fastavro.reader(stream)
    schema = arrow_schema(reader.writer_schema)
    rows: list[dict[str, Any]] = []
    emitted = False
    for row in reader:
        if not isinstance(row, dict):
            raise UnsupportedAvroTypeError("the file's rows are not records")
        rows.append(row)
        if len(rows) >= batch_rows:
            yield pa.RecordBatch.from_pylist(rows, schema=schema)
            emitted, rows = True, []
    if rows or not emitted:  # an empty file still gives its schema
        yield pa.RecordBatch.from_pylist(rows, schema=schema)
