"""The vectorised flat-record codec against the reference per-record (fastavro) codec.

Forcing ``flat_fields`` to None sends ``encode_avro_records``/``decode_avro_records`` down the
reference path, so both paths can be compared byte for byte and table for table.
"""

from __future__ import annotations

import struct
from typing import Any
from unittest import mock

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.errors import LogBlockDecodeError
from hudi_framework.log import avro_records, avro_vector_encode
from hudi_framework.log.avro_flat_schema import flat_fields
from hudi_framework.log.avro_records import decode_avro_records, encode_avro_records
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_to_arrow, with_meta_fields
from tests.unit.log.strategies import INT32, INT64, leaf_types, names, nullable

_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _reference() -> Any:
    return mock.patch.object(avro_records, "flat_fields", return_value=None)


def _reference_encode(table: pa.Table, schema: dict[str, Any]) -> bytes:
    with _reference():
        return encode_avro_records(table, schema)


def _reference_decode(content: bytes, schema: dict[str, Any]) -> pa.Table:
    with _reference():
        return decode_avro_records(content, schema)


@st.composite
def flat_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """Flat writer schemas as the writer shapes them: meta fields, then nullable leaves."""
    fields = draw(
        st.lists(st.tuples(names, leaf_types), min_size=1, max_size=6, unique_by=lambda f: f[0]).filter(
            lambda fs: not {n for n, _ in fs} & set(META_FIELDS)
        )
    )
    return with_meta_fields(arrow_to_avro(pa.schema([pa.field(n, t) for n, t in fields]), draw(names)))


@st.composite
def flat_tables(draw: st.DrawFn) -> tuple[dict[str, Any], pa.Table]:
    schema = draw(flat_schemas())
    arrow = avro_to_arrow(schema)
    rows = draw(st.lists(st.fixed_dictionaries({f.name: nullable(f.type) for f in arrow}), max_size=25))
    return schema, pa.Table.from_pylist(rows, schema=arrow)


@_SETTINGS
@given(flat_tables())
def test_fast_codec_matches_the_reference_codec(case: tuple[dict[str, Any], pa.Table]) -> None:
    schema, table = case
    assert flat_fields(schema) is not None
    content = encode_avro_records(table, schema)
    assert content == _reference_encode(table, schema)
    decoded = decode_avro_records(content, schema)
    reference = _reference_decode(content, schema)
    assert decoded.schema == reference.schema
    assert decoded.equals(reference)
    assert decoded.equals(table)


def _hand_schema(*fields: tuple[str, Any]) -> dict[str, Any]:
    return {"type": "record", "name": "r", "fields": [{"name": n, "type": t} for n, t in fields]}


# Unions with null second, non-null fields: shapes Java writers also produce.
_MIXED = _hand_schema(
    ("a", "long"),
    ("b", ["int", "null"]),
    ("c", "string"),
    ("d", ["bytes", "null"]),
    ("f", ["null", "boolean"]),
    ("g", "double"),
    ("h", ["float", "null"]),
    ("i", {"type": "fixed", "name": "f4", "size": 4}),
)


@_SETTINGS
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "a": st.integers(*INT64),
                "b": st.none() | st.integers(*INT32),
                "c": st.text(max_size=300),
                "d": st.none() | st.binary(max_size=200),
                "f": st.none() | st.booleans(),
                "g": st.floats(allow_nan=False),
                "h": st.none() | st.floats(width=32, allow_nan=False),
                "i": st.binary(min_size=4, max_size=4),
            }
        ),
        max_size=20,
    )
)
def test_null_second_unions_and_required_fields_match_the_reference(rows: list[dict[str, Any]]) -> None:
    table = pa.Table.from_pylist(rows, schema=avro_to_arrow(_MIXED))
    content = encode_avro_records(table, _MIXED)
    assert content == _reference_encode(table, _MIXED)
    assert decode_avro_records(content, _MIXED).equals(_reference_decode(content, _MIXED))
    assert decode_avro_records(content, _MIXED).equals(table)


def test_tables_spanning_several_encode_chunks_are_exact() -> None:
    schema = _hand_schema(("k", ["null", "string"]), ("v", ["null", "long"]))
    table = pa.table(
        {
            "k": pa.array([None if i % 5 == 0 else f"key-{i}" for i in range(50)]),
            "v": pa.array([None if i % 3 == 0 else (-1) ** i * 7 ** (i % 22) for i in range(50)], pa.int64()),
        }
    )
    with mock.patch.object(avro_vector_encode, "_CHUNK_ROWS", 7):
        content = encode_avro_records(table, schema)
    assert content == _reference_encode(table, schema)
    assert decode_avro_records(content, schema).equals(table)


def test_varint_extremes_round_trip() -> None:
    schema = _hand_schema(("a", "long"), ("b", "int"))
    longs = [0, -1, 1, 63, -64, 64, 2**62, -(2**63), 2**63 - 1]
    ints = [0, -1, 1, 63, -64, 64, 2**30, -(2**31), 2**31 - 1]
    table = pa.table({"a": pa.array(longs, pa.int64()), "b": pa.array(ints, pa.int32())})
    content = encode_avro_records(table, schema)
    assert content == _reference_encode(table, schema)
    assert decode_avro_records(content, schema).equals(table.cast(avro_to_arrow(schema)))


def test_nested_schemas_take_the_reference_path() -> None:
    assert flat_fields(_hand_schema(("s", ["null", {"type": "array", "items": "long"}]))) is None
    assert flat_fields(_hand_schema(("e", {"type": "enum", "name": "c", "symbols": ["A"]}))) is None
    assert flat_fields(_hand_schema(("u", ["null", "long", "string"]))) is None
    assert flat_fields(_hand_schema(("n", "null"))) is None


def _one_string_record(payload: bytes) -> bytes:
    datum = b"\x02" + bytes([len(payload) * 2]) + payload  # union branch 1, zigzag length, bytes
    return struct.pack(">iii", 3, 1, len(datum)) + datum


def test_invalid_utf8_is_a_decode_error_as_in_the_reference() -> None:
    schema = _hand_schema(("s", ["null", "string"]))
    content = _one_string_record(b"\xff\xfe")
    with pytest.raises(LogBlockDecodeError):
        decode_avro_records(content, schema)
    assert decode_avro_records(_one_string_record(b"ok"), schema).column("s").to_pylist() == ["ok"]


@pytest.mark.parametrize(
    "damage",
    [
        lambda c: c[:12] + b"\x04" + c[13:],  # union index 2
        lambda c: c[:8] + struct.pack(">i", 9) + c[12:],  # stated length longer than the datum
        lambda c: c[:-1],  # truncated
    ],
)
def test_damaged_content_fails_like_the_reference(damage: Any) -> None:
    schema = _hand_schema(("a", ["null", "long"]), ("s", ["null", "string"]))
    content = damage(encode_avro_records(pa.table({"a": [5, None], "s": ["xy", None]}), schema))
    with pytest.raises(LogBlockDecodeError) as fast:
        decode_avro_records(content, schema)
    with pytest.raises(LogBlockDecodeError) as reference:
        _reference_decode(content, schema)
    assert str(fast.value) == str(reference.value)
