"""The vectorised flat-record decoder's fast paths, compared directly with the reference decoder.

``decode_avro_records`` silently falls back to the reference decoder when the fast decoder returns
None, so these tests call ``decode_flat_records`` itself: on canonical content it must return a
table (the fast path was taken) equal to the reference decoder's, and on damaged content it must
return None whenever the reference decoder raises.
"""

from __future__ import annotations

import struct
from typing import Any

import fastavro
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.errors import LogBlockDecodeError
from hudi_framework.log.avro_arrow import physical_schema, strip_logical_types
from hudi_framework.log.avro_flat_schema import flat_fields
from hudi_framework.log.avro_records import _HEAD, _read_rows, encode_avro_records
from hudi_framework.log.avro_vector_decode import decode_flat_records
from hudi_framework.model.schema import avro_to_arrow
from tests.unit.log.strategies import INT32, INT64

_SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _schema(*fields: tuple[str, Any]) -> dict[str, Any]:
    return {"type": "record", "name": "r", "fields": [{"name": n, "type": t} for n, t in fields]}


def _fast(content: bytes, schema: dict[str, Any]) -> pa.Table | None:
    fields = flat_fields(schema)
    assert fields is not None
    return decode_flat_records(content, _HEAD.size, _HEAD.unpack_from(content)[1], fields, physical_schema(schema))


def _reference(content: bytes, schema: dict[str, Any]) -> pa.Table:
    parsed = fastavro.parse_schema(strip_logical_types(schema))
    rows = _read_rows(content, _HEAD.unpack_from(content)[1], parsed)
    try:
        return pa.Table.from_pylist(rows, schema=physical_schema(schema))
    except pa.ArrowException as e:  # as decode_avro_records reports it (an int beyond int32...)
        raise LogBlockDecodeError(str(e)) from e


def _same(a: pa.Table, b: pa.Table) -> bool:
    """Table equality in which NaN equals NaN (damage can turn a double's bytes into one)."""
    if a.schema != b.schema:
        return False
    for x, y in zip(a.columns, b.columns, strict=True):
        x, y = x.combine_chunks(), y.combine_chunks()
        if not pa.types.is_floating(x.type):
            if not x.equals(y):
                return False
        elif not x.is_null().equals(y.is_null()) or not np.array_equal(
            x.fill_null(0).to_numpy(), y.fill_null(0).to_numpy(), equal_nan=True
        ):
            return False
    return True


def _encode(schema: dict[str, Any], columns: dict[str, list[Any]]) -> bytes:
    return encode_avro_records(pa.table(columns, schema=avro_to_arrow(schema)), schema)


def _assert_fast_matches(content: bytes, schema: dict[str, Any]) -> pa.Table:
    fast = _fast(content, schema)
    assert fast is not None, "canonical content must take the fast path"
    reference = _reference(content, schema)
    assert fast.schema == reference.schema
    assert fast.equals(reference)
    return fast


def _zigzag(value: int) -> bytes:
    n = (value << 1) ^ (value >> 63)
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _content(*datums: bytes) -> bytes:
    return struct.pack(">ii", 3, len(datums)) + b"".join(struct.pack(">i", len(d)) + d for d in datums)


_KINDS = ["string", "bytes", "long", "int", "double", "float", "boolean", {"type": "fixed", "name": "f3", "size": 3}]


def _values(kind: Any) -> st.SearchStrategy[Any]:
    if kind == "string":
        # Lengths either side of 64 bytes: one- and two-byte length varints.
        return st.text(max_size=3) | st.text(min_size=60, max_size=90)
    if kind == "bytes":
        return st.binary(max_size=3) | st.binary(min_size=60, max_size=140)
    if kind == "long":
        return st.integers(*INT64) | st.integers(-70, 70) | st.integers(2**47, 2**56)
    if kind == "int":
        return st.integers(*INT32) | st.integers(-70, 70)
    if kind == "double":
        return st.floats(allow_nan=False)
    if kind == "float":
        return st.floats(width=32, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    return st.binary(min_size=3, max_size=3)


@st.composite
def _cases(draw: st.DrawFn) -> tuple[dict[str, Any], bytes]:
    """Flat schemas of every kind, bare or in either union order, with no, some or only nulls."""
    fields = []
    columns: dict[str, list[Any]] = {}
    rows = draw(st.integers(min_value=0, max_value=12))
    for i in range(draw(st.integers(min_value=1, max_value=6))):
        kind = draw(st.sampled_from(_KINDS))
        if isinstance(kind, dict):
            kind = {**kind, "name": f"f{i}"}
        shape = draw(st.sampled_from(["bare", "null first", "null second"]))
        t = kind if shape == "bare" else ["null", kind] if shape == "null first" else [kind, "null"]
        nulls = "none" if shape == "bare" else draw(st.sampled_from(["none", "some", "all"]))
        value = _values(kind)
        cell = value if nulls == "none" else st.none() if nulls == "all" else st.none() | value
        fields.append((f"c{i}", t))
        columns[f"c{i}"] = draw(st.lists(cell, min_size=rows, max_size=rows))
    schema = _schema(*fields)
    return schema, _encode(schema, columns)


@_SETTINGS
@given(_cases())
def test_canonical_content_takes_the_fast_path_and_matches_the_reference(case: tuple[dict[str, Any], bytes]) -> None:
    schema, content = case
    _assert_fast_matches(content, schema)


@_SETTINGS
@given(_cases(), st.data())
def test_damaged_content_is_left_to_the_reference_decoder(case: tuple[dict[str, Any], bytes], data: Any) -> None:
    schema, content = case
    at = data.draw(st.integers(min_value=_HEAD.size, max_value=max(_HEAD.size, len(content) - 1)))
    damage = data.draw(st.sampled_from(["flip", "insert", "delete"]))
    byte = bytes([data.draw(st.integers(0, 255))])
    if damage == "flip":
        damaged = content[:at] + byte + content[at + 1 :]
    elif damage == "insert":
        damaged = content[:at] + byte + content[at:]
    else:
        damaged = content[:at] + content[at + 1 :]
    fast = _fast(damaged, schema)
    try:
        reference = _reference(damaged, schema)
    except LogBlockDecodeError:
        assert fast is None
        return
    # Damage the reference decoder cannot see (a changed value) must decode alike, if at all.
    assert fast is None or _same(fast, reference)


def test_the_benchmark_block_shape_decodes_on_the_fast_path() -> None:
    # The writer's shape: nullable unions, no nulls, short strings of fixed and varying length.
    schema = _schema(
        ("k", ["null", "string"]),
        ("seq", ["null", "string"]),
        ("ts", ["null", "long"]),
        ("amount", ["null", "double"]),
        ("qty", ["null", "int"]),
        ("flag", ["null", "boolean"]),
        ("score", ["null", "float"]),
        ("note", ["null", "string"]),
    )
    n = 300
    content = _encode(
        schema,
        {
            "k": [f"key-{i:010d}" for i in range(n)],
            "seq": [f"2026_{i}" for i in range(n)],
            "ts": [1_700_000_000_000 + i * 977 for i in range(n)],
            "amount": [i / 7 for i in range(n)],
            "qty": [i * 13 for i in range(n)],
            "flag": [i % 3 == 0 for i in range(n)],
            "score": [i / 8 for i in range(n)],
            "note": ["" if i % 4 == 0 else "n" * (i % 9) for i in range(n)],
        },
    )
    _assert_fast_matches(content, schema)


@pytest.mark.parametrize("t", ["long", ["null", "long"], ["long", "null"]])
def test_varints_of_every_length(t: Any) -> None:
    # 1 to 10 byte varints, including the 8-byte ones that overflow the 7 bytes read with a union index.
    values = [0, -1, 63, -64, 64, 8191, 2**20, 2**27, 2**34, 2**41, 2**48, 2**55 - 1, 2**55, 2**62, -(2**63), 2**63 - 1]
    schema = _schema(("v", t), ("s", "string"))
    cases: list[list[int | None]] = [[*values], [2**62, -(2**63)]]  # all rows on the byte-at-a-time path too
    if t != "long":
        cases += [[*values, None], [None, 2**62, None, -(2**63)]]
    for case in cases:
        content = _encode(schema, {"v": case, "s": ["x"] * len(case)})
        assert _assert_fast_matches(content, schema).column("v").to_pylist() == case


@pytest.mark.parametrize("nbytes", range(1, 11))
@pytest.mark.parametrize("t", ["long", ["null", "long"]])
def test_columns_whose_longest_varint_has_each_length(nbytes: int, t: Any) -> None:
    # The word decoder skips compaction steps the longest varint does not need: cover every cut.
    top = min(7 * nbytes - 1, 63)
    values = [0, 1, -1, 2**top - 1, -(2**top), 2 ** (top - 1), 5]
    assert max(len(_zigzag(v)) for v in values) == nbytes
    schema = _schema(("v", t))
    content = _encode(schema, {"v": values})
    assert _assert_fast_matches(content, schema).column("v").to_pylist() == values


def test_ints_of_every_length_and_out_of_range_ints() -> None:
    schema = _schema(("v", ["null", "int"]))
    values = [0, -1, 63, -64, 64, 8191, -8192, 2**20, 2**27, 2**31 - 1, -(2**31), None]
    assert _assert_fast_matches(_encode(schema, {"v": values}), schema).column("v").to_pylist() == values
    too_big = _content(b"\x02" + _zigzag(2**31))
    assert _fast(too_big, schema) is None
    with pytest.raises(LogBlockDecodeError):
        _reference(too_big, schema)


@pytest.mark.parametrize("t", ["string", ["null", "string"], ["string", "null"], "bytes", ["null", "bytes"]])
def test_lengths_of_one_two_and_three_byte_varints(t: Any) -> None:
    kind = "bytes" if "bytes" in t else "string"
    raw = ["", "a", "b" * 63, "c" * 64, "d" * 127, "e" * 128, "f" * 8191, "g" * 8192, "h" * 20000]
    values = [v.encode() for v in raw] if kind == "bytes" else raw
    schema = _schema(("s", t), ("n", "int"))
    content = _encode(schema, {"s": values, "n": list(range(len(values)))})
    assert _assert_fast_matches(content, schema).column("s").to_pylist() == values


@pytest.mark.parametrize("t", ["string", ["null", "string"], ["string", "null"]])
def test_equal_and_varying_lengths_with_nulls_and_empty_strings(t: Any) -> None:
    nullable = t != "string"
    cases: list[list[str | None]] = [
        ["abc", "def", "ghi"],  # equal lengths: copied as fixed-size items
        ["", "", ""],  # all empty
        ["é", "ü", "ß"],  # equal lengths, non-ASCII UTF-8
        ["a", "", "ccc"],
        ["é", "", "漢字"],
    ]
    if nullable:
        cases += [[None, None, None], ["abc", None, "def"], [None, "", None], [None, "漢", "字"]]
    schema = _schema(("s", t))
    for values in cases:
        assert _assert_fast_matches(_encode(schema, {"s": values}), schema).column("s").to_pylist() == values


@pytest.mark.parametrize("t", [["null", "double"], ["float", "null"], ["null", "boolean"], ["null", "long"]])
def test_unions_where_every_row_is_null_or_none_is(t: Any) -> None:
    schema = _schema(("v", t), ("s", ["null", "string"]))
    kind = t[1] if t[0] == "null" else t[0]
    sample = {"double": 1.5, "float": 0.25, "boolean": True, "long": 1234567}[kind]
    for values in ([None] * 4, [sample] * 4, [None, sample, None, sample]):
        content = _encode(schema, {"v": values, "s": ["x", None, "y", None]})
        assert _assert_fast_matches(content, schema).column("v").to_pylist() == values


def test_an_empty_block_and_a_block_ending_in_a_one_byte_value() -> None:
    schema = _schema(("b", "boolean"))
    assert _assert_fast_matches(_content(), schema).num_rows == 0
    assert _assert_fast_matches(_content(b"\x01"), schema).column("b").to_pylist() == [True]
    assert _fast(_content() + b"\x00", schema) is None


@pytest.mark.parametrize(
    "payload",
    [b"\xff\xfe", b"ab\xc3", b"\xed\xa0\x80", b"\xc0\xaf"],  # invalid, truncated, surrogate, overlong
)
@pytest.mark.parametrize("t", ["string", ["null", "string"]])
def test_non_utf8_strings_are_rejected_but_bytes_are_not(payload: bytes, t: Any) -> None:
    tag = b"" if t == "string" else b"\x02"
    same_length = [tag + _zigzag(len(payload)) + payload, tag + _zigzag(len(payload)) + b"x" * len(payload)]
    varying = [tag + _zigzag(len(payload)) + payload, tag + _zigzag(1) + b"x"]
    for datums in (same_length, varying):
        content = _content(*datums)
        assert _fast(content, _schema(("s", t))) is None
        with pytest.raises(LogBlockDecodeError):
            _reference(content, _schema(("s", t)))
        as_bytes = _schema(("s", "bytes" if t == "string" else ["null", "bytes"]))
        assert _assert_fast_matches(content, as_bytes).column("s")[0].as_py() == payload


@pytest.mark.parametrize(
    ("t", "datum"),
    [
        (["null", "string"], b"\x04\x02a"),  # union index 2
        (["null", "string"], b"\x02\x01"),  # negative length
        (["null", "string"], b"\x02\x03"),  # negative length, odd
        (["null", "string"], b"\x02\xfe\xff\xff\xff\x0f" + b"a"),  # length far beyond the record
        ("string", b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"),  # length varint of 11 bytes
        ("double", b"\x00" * 7),  # truncated
        (["null", "string"], b"\x02\x04a"),  # string runs past the record
        (["null", "string"], b"\x02\x02ab"),  # bytes left over in the record
    ],
)
def test_damaged_records_return_none_where_the_reference_raises(t: Any, datum: bytes) -> None:
    schema = _schema(("v", t))
    content = _content(datum, datum)
    assert _fast(content, schema) is None
    with pytest.raises(LogBlockDecodeError):
        _reference(content, schema)


@pytest.mark.parametrize(
    ("t", "datum"),
    [
        (["null", "string"], b"\x01\x02a"),  # union index -1
        ("long", b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01"),  # varint longer than 10 bytes
        (["null", "long"], b"\x02\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
        ("boolean", b"\x02"),  # a boolean byte other than 0/1
        (["null", "boolean"], b"\x02\x05"),
        (["null", "string"], b"\x82\x00\x02a"),  # branch 1 as a non-canonical two-byte varint
    ],
)
def test_bytes_no_writer_produces_are_left_to_the_reference_decoder(t: Any, datum: bytes) -> None:
    # fastavro reads these leniently (or not); either way the fast path does not decide for it.
    assert _fast(_content(datum, datum), _schema(("v", t))) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda c: c[:8] + struct.pack(">i", -1) + c[12:],  # negative record length
        lambda c: c[:8] + struct.pack(">i", 2**30) + c[12:],  # record length past the content
        lambda c: c[:4] + struct.pack(">i", 3) + c[8:],  # more records than stated...
        lambda c: c[:4] + struct.pack(">i", 1) + c[8:],  # ...and fewer
        lambda c: c + b"\x00",  # bytes after the last record
        lambda c: c[:-1],  # truncated
        lambda c: c[:4] + struct.pack(">i", 2**30) + c[8:],  # implausible count
    ],
)
def test_damaged_framing_returns_none(damage: Any) -> None:
    schema = _schema(("a", ["null", "long"]), ("s", ["null", "string"]))
    content = damage(_encode(schema, {"a": [5, None], "s": ["xy", None]}))
    assert _fast(content, schema) is None
