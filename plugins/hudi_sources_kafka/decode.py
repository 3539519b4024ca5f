"""Kafka values into Arrow rows: JSON objects, Avro binary (bare or in Confluent's wire format).

* **JSON.** The values are joined into one JSON-lines buffer and parsed by pyarrow in one call,
  with the schema file's types when one is given, else with the types pyarrow infers.
* **Avro.** The values become the one block of an in-memory Avro container (header with the
  schema, the block, the sync marker), which fastavro decodes in one call; Confluent's header
  (magic byte 0, a 4-byte schema id) is stripped first when the deserializer says values carry it.
  The writer's schema is taken to be the schema given (no schema registry is consulted).
* **Offsets.** With ``append.offsets``, Apache Hudi's four columns follow the value's:
  ``_hoodie_kafka_source_offset`` (long), ``_hoodie_kafka_source_partition`` (int),
  ``_hoodie_kafka_source_timestamp`` (long, the record's Kafka timestamp in epoch milliseconds) and
  ``_hoodie_kafka_source_key`` (string, null for records without a key).
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

import fastavro
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from hudi_sources_kafka.client import FetchedRecords

#: Apache Hudi's offset columns (``KafkaOffsetPostProcessor``), in its order.
OFFSET_COLUMN: Final = "_hoodie_kafka_source_offset"
PARTITION_COLUMN: Final = "_hoodie_kafka_source_partition"
TIMESTAMP_COLUMN: Final = "_hoodie_kafka_source_timestamp"
KEY_COLUMN: Final = "_hoodie_kafka_source_key"
OFFSET_FIELDS: Final = (
    pa.field(OFFSET_COLUMN, pa.int64(), nullable=False),
    pa.field(PARTITION_COLUMN, pa.int32(), nullable=False),
    pa.field(TIMESTAMP_COLUMN, pa.int64(), nullable=False),
    pa.field(KEY_COLUMN, pa.string()),
)
#: Confluent's wire format: magic byte 0, then the schema id as a big-endian int32.
CONFLUENT_MAGIC: Final = 0
CONFLUENT_HEADER_BYTES: Final = 5
_SYNC: Final = b"hudi-kafka-block"  # any 16 bytes: the container exists only in memory


class ValueDecodeError(ValueError):
    """A value is not what the source's format says (names the offset where known)."""


def decode_json(values: Sequence[bytes], schema: pa.Schema | None) -> pa.Table:
    """JSON object values as a table (``schema``'s columns and types when given)."""
    if not values:
        return schema.empty_table() if schema is not None else pa.table({})
    buffer = b"\n".join(values)
    parse = pa_json.ParseOptions(
        explicit_schema=schema,
        unexpected_field_behavior="ignore" if schema is not None else "infer",
        newlines_in_values=True,  # a value may be pretty-printed over several lines
    )
    try:
        table = pa_json.read_json(io.BytesIO(buffer), parse_options=parse)
    except pa.ArrowInvalid as e:
        raise ValueDecodeError(f"values are not JSON objects: {e}") from e
    if table.num_rows != len(values):
        raise ValueDecodeError(f"{len(values)} values held {table.num_rows} JSON objects (each must hold one)")
    if schema is not None:
        table = table.select(schema.names).cast(schema)
    return table


def strip_confluent_header(values: Sequence[bytes], offsets: Sequence[int]) -> list[bytes]:
    """The Avro payloads after Confluent's 5-byte header.

    Raises:
        ValueDecodeError: A value does not start with the header, naming its offset.
    """
    arr = pa.array(values, pa.binary())
    lengths = pc.binary_length(arr)
    magic = pc.binary_slice(arr, 0, 1)
    bad = pc.or_(pc.less(lengths, CONFLUENT_HEADER_BYTES), pc.not_equal(magic, pa.scalar(bytes([CONFLUENT_MAGIC]))))
    if pc.any(bad).as_py():
        first = pc.index(bad, True).as_py()
        raise ValueDecodeError(
            f"the value at offset {offsets[first]} does not start with Confluent's wire-format header "
            "(magic byte 0 and a schema id); for bare Avro binary set "
            "hoodie.streamer.source.kafka.value.deserializer.class to "
            "org.apache.kafka.common.serialization.ByteArrayDeserializer"
        )
    # An explicit stop: pyarrow 26 miscomputes some slices whose stop is left open.
    longest = int(pc.max(lengths).as_py() or 0)
    stripped: list[bytes] = pc.binary_slice(
        arr, CONFLUENT_HEADER_BYTES, max(longest, CONFLUENT_HEADER_BYTES)
    ).to_pylist()
    return stripped


def decode_avro(values: Sequence[bytes], avro_schema: Mapping[str, Any], schema: pa.Schema) -> pa.Table:
    """Avro binary values of ``avro_schema`` as a table of ``schema``."""
    if not values:
        return schema.empty_table()
    container = _container(values, avro_schema)
    try:
        records = list(fastavro.reader(io.BytesIO(container)))
    except (EOFError, ValueError, TypeError, IndexError, UnicodeDecodeError) as e:
        raise ValueDecodeError(f"values are not Avro binary of the schema given: {e!r}") from e
    if len(records) != len(values):
        raise ValueDecodeError(f"{len(values)} values decoded into {len(records)} records")
    try:
        return pa.Table.from_pylist(records, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise ValueDecodeError(f"decoded records do not fit the schema's row form: {e}") from e


def _zigzag(n: int) -> bytes:
    """Avro's variable-length zig-zag encoding of a long."""
    z = (n << 1) ^ (n >> 63)
    out = bytearray()
    while z & ~0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)
    return bytes(out)


def _avro_bytes(data: bytes) -> bytes:
    return _zigzag(len(data)) + data


def _container(values: Sequence[bytes], avro_schema: Mapping[str, Any]) -> bytes:
    """An Avro object container holding ``values`` as its single uncompressed block."""
    meta = {b"avro.schema": json.dumps(avro_schema).encode(), b"avro.codec": b"null"}
    header = b"Obj\x01" + _zigzag(len(meta))
    header += b"".join(_avro_bytes(k) + _avro_bytes(v) for k, v in meta.items()) + _zigzag(0) + _SYNC
    data = b"".join(values)
    return header + _zigzag(len(values)) + _zigzag(len(data)) + data + _SYNC


def with_offsets(table: pa.Table, fetched: FetchedRecords, partition: int) -> pa.Table:
    """``table`` with Apache Hudi's offset columns appended (its rows are ``fetched``'s, in order)."""
    keys = pa.array(fetched.keys, pa.binary())
    try:
        key_strings = keys.cast(pa.string())
    except pa.ArrowInvalid as e:
        raise ValueDecodeError(f"a record key is not UTF-8 text: {e}") from e
    columns = [
        pa.array(fetched.offsets, pa.int64()),
        pa.repeat(pa.scalar(partition, pa.int32()), len(fetched.offsets)),
        pa.array(fetched.timestamps, pa.int64()),
        key_strings,
    ]
    for field, column in zip(OFFSET_FIELDS, columns, strict=True):
        if field.name in table.column_names:
            raise ValueDecodeError(f"the values already have a column {field.name!r}")
        table = table.append_column(field, column.cast(field.type))
    return table
