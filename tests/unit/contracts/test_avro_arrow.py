"""The shared Avro -> Arrow schema conversion: the inverse of the writer's Arrow -> Avro, Avro's name
rules, nullability only from ``["null", T]`` unions, and typed refusals of what Arrow cannot hold."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.avro_arrow import avro_to_arrow, avro_type_to_arrow
from hudi_framework.errors import SchemaConversionError
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_json
from tests.unit.log.strategies import arrow_types, names


def _record(*fields: tuple[str, Any], namespace: str | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {"type": "record", "name": "R", "fields": [{"name": n, "type": t} for n, t in fields]}
    if namespace is not None:
        record["namespace"] = namespace
    return record


@st.composite
def arrow_schemas(draw: st.DrawFn) -> pa.Schema:
    """Schemas of the Arrow types the writer stores (every field, item and value nullable, as it writes them)."""
    fields = draw(
        st.lists(st.tuples(names, arrow_types), min_size=1, max_size=4, unique_by=lambda f: f[0]).filter(
            lambda fs: not {n for n, _ in fs} & set(META_FIELDS)
        )
    )
    return pa.schema([pa.field(n, t) for n, t in fields])


@settings(max_examples=100, deadline=None)
@given(arrow_schemas(), names)
def test_avro_to_arrow_inverts_the_writers_arrow_to_avro(schema: pa.Schema, table: str) -> None:
    avro = arrow_to_avro(schema, table)
    assert avro_to_arrow(avro) == schema
    assert avro_to_arrow(avro_json(avro)) == schema  # the JSON text as stored
    assert arrow_to_avro(avro_to_arrow(avro), table) == avro


def test_nullable_only_where_a_union_has_null() -> None:
    schema = avro_to_arrow(
        _record(
            ("id", "long"),
            ("note", ["null", "string"]),
            ("late", ["string", "null"]),
            ("tags", {"type": "array", "items": "string"}),
            ("maybe_tags", {"type": "array", "items": ["null", "string"]}),
            ("attrs", {"type": "map", "values": ["null", "long"]}),
        )
    )
    assert [f.nullable for f in schema] == [False, True, True, False, False, False]
    assert schema.field("tags").type == pa.list_(pa.field("element", pa.string(), nullable=False))
    assert schema.field("maybe_tags").type == pa.list_(pa.field("element", pa.string()))
    assert schema.field("attrs").type == pa.map_(pa.string(), pa.field("value", pa.int64()))


@pytest.mark.parametrize(
    ("avro", "arrow"),
    [
        ({"type": "int", "logicalType": "date"}, pa.date32()),
        ({"type": "int", "logicalType": "time-millis"}, pa.time32("ms")),
        ({"type": "long", "logicalType": "time-micros"}, pa.time64("us")),
        ({"type": "long", "logicalType": "timestamp-millis"}, pa.timestamp("ms", tz="UTC")),
        ({"type": "long", "logicalType": "timestamp-micros"}, pa.timestamp("us", tz="UTC")),
        ({"type": "long", "logicalType": "local-timestamp-micros"}, pa.timestamp("us")),
        ({"type": "string", "logicalType": "uuid"}, pa.string()),
        ({"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}, pa.decimal128(9, 2)),
        ({"type": "fixed", "name": "d", "size": 5, "logicalType": "decimal", "precision": 10}, pa.decimal128(10, 0)),
        ({"type": "int", "logicalType": "decimal", "precision": 9}, pa.int32()),  # not on int: ignored, as Avro says
        ({"type": "long", "logicalType": "no-such-type"}, pa.int64()),
        ({"type": "enum", "name": "E", "symbols": ["A"]}, pa.string()),
        ({"type": "fixed", "name": "F", "size": 3}, pa.binary(3)),
        ({"type": "null"}, pa.null()),
        ({"type": {"type": "string"}}, pa.string()),
    ],
)
def test_logical_and_named_types(avro: dict[str, Any], arrow: pa.DataType) -> None:
    assert avro_type_to_arrow(avro) == (arrow, False)


def test_named_types_resolve_by_full_and_short_name_and_inherit_the_namespace() -> None:
    place = {"type": "record", "name": "Place", "fields": [{"name": "city", "type": "string"}]}
    money = {"type": "fixed", "name": "Money", "namespace": "fin", "size": 8, "logicalType": "decimal", "precision": 18}
    schema = avro_to_arrow(
        _record(
            ("home", place),  # defined as acme.Place: the namespace of the record around it
            ("work", "Place"),
            ("holiday", ["null", "acme.Place"]),
            ("price", money),
            ("cost", "fin.Money"),
            ("fee", "Money"),
            namespace="acme",
        )
    )
    struct = pa.struct([pa.field("city", pa.string(), nullable=False)])
    assert [f.type for f in schema][:3] == [struct, struct, struct]
    assert [f.type for f in schema][3:] == [pa.decimal128(18, 0)] * 3


def test_a_short_name_is_looked_up_in_the_enclosing_namespace_first() -> None:
    def kind(namespace: str, symbol: str) -> dict[str, Any]:
        return {"type": "enum", "name": "Kind", "namespace": namespace, "symbols": [symbol]}

    inner = {
        "type": "record",
        "name": "Inner",
        "namespace": "b",
        "fields": [
            {"name": "k", "type": {"type": "fixed", "name": "Kind", "size": 2}},
            {"name": "ref", "type": "Kind"},
        ],
    }
    schema = avro_to_arrow(_record(("first", kind("a", "X")), ("inner", inner), namespace="a"))
    # Inside namespace b, "Kind" is b.Kind (the fixed), though a.Kind was defined first.
    assert schema.field("inner").type.field("ref").type == pa.binary(2)


def test_recursive_types_are_refused() -> None:
    node = _record(("next", ["null", "R"]), namespace="x")
    with pytest.raises(SchemaConversionError, match="'R' is recursive"):
        avro_to_arrow(node)
    with pytest.raises(SchemaConversionError, match=r"'x\.R' is recursive"):
        avro_to_arrow(_record(("next", ["null", "x.R"]), namespace="x"))


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        (_record(("u", ["int", "string"])), r'union \["int", "string"\] has no Arrow form'),
        (_record(("u", ["null"])), "has no Arrow form"),
        (_record(("x", "Nowhere")), "unknown Avro type 'Nowhere'"),
        (_record(("x", {"type": "fixed", "name": "F"})), "has no 'size'"),
        (_record(("x", {"type": "array"})), "has no 'items'"),
        (_record(("x", {"type": "bytes", "logicalType": "decimal", "precision": 39})), "39 digits: at most 38"),
        (_record(("x", 7)), "not an Avro type: 7"),
        (_record(("x", {"type": 7})), "unsupported Avro type"),
        ({"type": "record", "name": "R"}, "has no 'fields'"),
        ({"type": "array", "items": "int"}, "top-level Avro schema must be a record"),
    ],
)
def test_what_arrow_cannot_hold_raises_a_typed_error(schema: dict[str, Any], message: str) -> None:
    with pytest.raises(SchemaConversionError, match=message):
        avro_to_arrow(schema)


def test_text_that_is_not_a_record_is_refused() -> None:
    with pytest.raises(SchemaConversionError, match="must be a record"):
        avro_to_arrow(json.dumps("string"))
    with pytest.raises(ValueError):
        avro_to_arrow("{not json")
