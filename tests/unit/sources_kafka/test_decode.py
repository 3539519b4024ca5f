"""Kafka values into rows: JSON lines, Avro binary bare or in Confluent's wire format, offset columns."""

from __future__ import annotations

import datetime as dt
import decimal
import io
import json
import struct
from typing import Any

import fastavro
import pyarrow as pa
import pytest

from hudi_framework.contracts.avro_arrow import avro_to_arrow
from hudi_framework.errors import SchemaConversionError
from hudi_sources_kafka.avro_schema import AvroSchemaError, parse_schema
from hudi_sources_kafka.client import FetchedRecords
from hudi_sources_kafka.decode import (
    ValueDecodeError,
    decode_avro,
    decode_json,
    strip_confluent_header,
    with_offsets,
)

SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "Trip",
    "namespace": "acme",
    "fields": [
        {"name": "id", "type": "string"},
        {"name": "fare", "type": ["null", "double"], "default": None},
        {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "attrs", "type": {"type": "map", "values": "long"}},
        {
            "name": "rider",
            "type": {"type": "record", "name": "Rider", "fields": [{"name": "name", "type": "string"}]},
        },
        {"name": "driver", "type": ["null", "Rider"], "default": None},
    ],
}


def _record(i: int) -> dict[str, Any]:
    return {
        "id": f"k{i}",
        "fare": None if i % 2 else i * 1.5,
        "ts": dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=i),
        "day": dt.date(2026, 1, 1 + i),
        "amount": decimal.Decimal(f"{i}.25"),
        "kind": "AB"[i % 2],
        "tags": [f"t{i}"] * i,
        "attrs": {"n": i},
        "rider": {"name": f"r{i}"},
        "driver": None if i % 2 else {"name": f"d{i}"},
    }


def _avro(record: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, fastavro.parse_schema(SCHEMA), record)
    return out.getvalue()


def test_avro_schema_maps_to_arrow() -> None:
    schema = avro_to_arrow(parse_schema(json.dumps(SCHEMA)))
    assert schema.field("id").type == pa.string()
    assert not schema.field("id").nullable
    assert schema.field("fare").type == pa.float64()
    assert schema.field("fare").nullable
    assert schema.field("ts").type == pa.timestamp("us", tz="UTC")
    assert schema.field("day").type == pa.date32()
    assert schema.field("amount").type == pa.decimal128(10, 2)
    assert schema.field("kind").type == pa.string()
    assert schema.field("attrs").type == pa.map_(pa.string(), pa.field("value", pa.int64(), nullable=False))
    assert (
        schema.field("driver").type == schema.field("rider").type == pa.struct([pa.field("name", pa.string(), False)])
    )


def test_a_union_without_row_form_is_refused() -> None:
    bad = {"type": "record", "name": "R", "fields": [{"name": "x", "type": ["int", "string"]}]}
    with pytest.raises(SchemaConversionError, match="no Arrow form"):
        avro_to_arrow(bad)
    with pytest.raises(AvroSchemaError, match="must be a record"):
        parse_schema('"string"')


@pytest.mark.parametrize("confluent", [False, True])
def test_avro_values_decode_in_order(confluent: bool) -> None:
    records = [_record(i) for i in range(5)]
    values = [_avro(r) for r in records]
    if confluent:
        values = strip_confluent_header([b"\x00" + struct.pack(">i", 42) + v for v in values], list(range(5)))
    table = decode_avro(values, SCHEMA, avro_to_arrow(SCHEMA))
    assert table.column("id").to_pylist() == [f"k{i}" for i in range(5)]
    assert table.column("amount").to_pylist() == [r["amount"] for r in records]
    assert table.column("attrs").to_pylist() == [[("n", i)] for i in range(5)]
    assert table.column("driver").to_pylist() == [r["driver"] for r in records]


def test_a_value_without_confluents_header_names_its_offset() -> None:
    framed = b"\x00" + struct.pack(">i", 1) + _avro(_record(0))
    with pytest.raises(ValueDecodeError, match="offset 11 does not start with Confluent"):
        strip_confluent_header([framed, _avro(_record(1))], [10, 11])


def test_garbage_is_not_avro() -> None:
    with pytest.raises(ValueDecodeError):
        decode_avro([b"\x07"], SCHEMA, avro_to_arrow(SCHEMA))


def test_json_values_infer_or_follow_the_schema() -> None:
    values = [b'{"id": "a", "fare": 1, "extra": true}', b'{\n  "id": "b",\n  "fare": 2.5\n}']
    inferred = decode_json(values, None)
    assert inferred.column("id").to_pylist() == ["a", "b"]
    assert inferred.column("extra").to_pylist() == [True, None]
    schema = pa.schema([pa.field("id", pa.string()), pa.field("fare", pa.float64())])
    typed = decode_json(values, schema)
    assert typed.schema == schema
    assert typed.column("fare").to_pylist() == [1.0, 2.5]


@pytest.mark.parametrize("bad", [b"not json", b"[1, 2]", b'{"id": "a"} {"id": "b"}'])
def test_json_values_must_each_be_one_object(bad: bytes) -> None:
    with pytest.raises(ValueDecodeError):
        decode_json([b'{"id": "x"}', bad], None)


def test_offset_columns_follow_apache_hudis_names_and_types() -> None:
    fetched = FetchedRecords(values=[b"{}", b"{}"], offsets=[7, 9], timestamps=[1000, 2000], keys=[b"k", None])
    table = with_offsets(pa.table({"id": ["a", "b"]}), fetched, partition=2)
    assert table.schema.names == [
        "id",
        "_hoodie_kafka_source_offset",
        "_hoodie_kafka_source_partition",
        "_hoodie_kafka_source_timestamp",
        "_hoodie_kafka_source_key",
    ]
    assert table.column("_hoodie_kafka_source_partition").type == pa.int32()
    assert table.to_pylist()[1] == {
        "id": "b",
        "_hoodie_kafka_source_offset": 9,
        "_hoodie_kafka_source_partition": 2,
        "_hoodie_kafka_source_timestamp": 2000,
        "_hoodie_kafka_source_key": None,
    }
