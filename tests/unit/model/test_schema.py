"""Arrow <-> Avro schema conversion matches what Apache Hudi's Spark writer produces."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from hudi_framework.model.schema import (
    META_FIELDS,
    SchemaConversionError,
    arrow_to_avro,
    avro_to_arrow,
    decimal_fixed_size,
    with_meta_fields,
)

# Written by Apache Hudi 0.14 (fixture cow/v6_nonpartitioned, commit extraMetadata.schema), trimmed.
JAVA_SCHEMA = {
    "type": "record", "name": "t_record", "namespace": "hoodie.t",
    "fields": [
        {"name": "id", "type": ["null", "int"], "default": None},
        {"name": "decimalField", "type": ["null", {"type": "fixed", "name": "fixed",
            "namespace": "hoodie.t.t_record.decimalField", "size": 5, "logicalType": "decimal",
            "precision": 10, "scale": 5}], "default": None},
        {"name": "dateField", "type": ["null", {"type": "int", "logicalType": "date"}], "default": None},
        {"name": "ts", "type": ["null", {"type": "long", "logicalType": "timestamp-micros"}], "default": None},
        {"name": "arrayField", "type": ["null", {"type": "array", "items": ["null", {"type": "record",
            "name": "arrayField", "namespace": "hoodie.t.t_record", "fields": [
                {"name": "f1", "type": ["null", "string"], "default": None}]}]}], "default": None},
        {"name": "mapField", "type": ["null", {"type": "map", "values": ["null", "double"]}], "default": None},
        {"name": "structField", "type": ["null", {"type": "record", "name": "structField",
            "namespace": "hoodie.t.t_record", "fields": [
                {"name": "child", "type": ["null", {"type": "record", "name": "child",
                    "namespace": "hoodie.t.t_record.structField", "fields": [
                        {"name": "x", "type": ["null", "boolean"], "default": None}]}], "default": None}]}],
         "default": None},
    ],
}  # fmt: skip


def test_java_schema_round_trips_exactly() -> None:
    arrow = avro_to_arrow(json.dumps(JAVA_SCHEMA))
    assert arrow.field("decimalField").type == pa.decimal128(10, 5)
    assert arrow.field("ts").type == pa.timestamp("us", tz="UTC")
    assert arrow_to_avro(arrow, "t") == JAVA_SCHEMA


@pytest.mark.parametrize(("precision", "size"), [(1, 1), (2, 1), (3, 2), (10, 5), (15, 7), (18, 8), (38, 16)])
def test_decimal_fixed_sizes(precision: int, size: int) -> None:
    assert decimal_fixed_size(precision) == size


def test_meta_fields_first() -> None:
    avro = with_meta_fields(arrow_to_avro(pa.schema([("id", pa.int64())]), "t"))
    assert [f["name"] for f in avro["fields"]] == [*META_FIELDS, "id"]


def test_meta_fields_are_dropped_from_table_schema() -> None:
    schema = pa.schema([(n, pa.string()) for n in META_FIELDS] + [("id", pa.int64())])
    assert [f["name"] for f in arrow_to_avro(schema, "t")["fields"]] == ["id"]


def test_unsupported_types_raise() -> None:
    with pytest.raises(SchemaConversionError, match="m"):
        arrow_to_avro(pa.schema([("m", pa.map_(pa.int32(), pa.int32()))]), "t")
    with pytest.raises(SchemaConversionError):
        avro_to_arrow({"type": "record", "name": "r", "fields": [{"name": "u", "type": ["int", "string"]}]})


def test_decimals_beyond_38_digits_raise_both_ways() -> None:
    with pytest.raises(SchemaConversionError, match=r"'d'.*38 digits"):
        arrow_to_avro(pa.schema([("d", pa.decimal256(39, 2))]), "t")
    wide = {"type": "bytes", "logicalType": "decimal", "precision": 40, "scale": 2}
    with pytest.raises(SchemaConversionError, match="40 digits"):
        avro_to_arrow({"type": "record", "name": "r", "fields": [{"name": "d", "type": wide}]})
