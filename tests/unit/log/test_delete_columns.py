"""Columnar DELETE content: equal to the reference (fastavro) decode, or None exactly when it must be."""

from __future__ import annotations

import pickle
import struct
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any, cast

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.arrays import string_array
from hudi_framework.contracts.merger import IS_DELETED_FIELD, PRESENT_COLUMNS_FIELD
from hudi_framework.errors import LogBlockDecodeError
from hudi_framework.log.blocks import BlockType, DeleteBlock, HeaderKey
from hudi_framework.log.codec import decode_block, encode_block, frame_to_block
from hudi_framework.log.delete_columns import (
    ORDERING_ARROW_TYPES,
    DeleteColumns,
    columns_from_records,
    decode_delete_columns,
)
from hudi_framework.log.delete_records import (
    COMMIT_TIME_ORDERING,
    DeleteRecord,
    OrderingType,
    OrderingValue,
    decode_delete_content,
    encode_delete_content,
)
from hudi_framework.log.framing import BlockFrame
from hudi_framework.read import log_records
from hudi_framework.read.log_records import BLOCK_SEQ_FIELD, conform_table, log_schema
from tests.hypothesis_budget import examples
from tests.unit.log.strategies import _SCALAR_VALUES, ordering_values, texts

_HEAD = struct.Struct(">ii")
_INSTANT = "20250101000000001"

keys = st.none() | texts | st.text(min_size=60, max_size=300)  # long ones need two-byte lengths


@st.composite
def uniform_records(draw: st.DrawFn) -> list[DeleteRecord]:
    """Records whose ordering values are null or of one scalar wrapper type (DECIMAL included)."""
    t = draw(st.sampled_from(list(_SCALAR_VALUES)))
    value = st.none() | _SCALAR_VALUES[t].map(lambda v: OrderingValue(t, v))
    return draw(st.lists(st.builds(DeleteRecord, keys, keys, value), max_size=40))


any_records = st.lists(st.builds(DeleteRecord, keys, keys, ordering_values), max_size=12)


def _columnar(records: Sequence[DeleteRecord]) -> bool:
    """Whether the ordering values are null or one scalar wrapper type other than DECIMAL."""
    types = {r.ordering_value.type for r in records if r.ordering_value is not None}
    return len(types) <= 1 and types <= set(ORDERING_ARROW_TYPES)


def _content(body: bytes) -> bytes:
    return _HEAD.pack(3, len(body)) + body


def _varint(value: int) -> bytes:
    raw = (value << 1) ^ (value >> 63)
    out = bytearray()
    while raw >= 0x80:
        out.append(raw & 0x7F | 0x80)
        raw >>= 7
    out.append(raw)
    return bytes(out)


def _item(record: DeleteRecord) -> bytes:
    """One record's Avro bytes: a one-record list is head, count 1 (0x02), the item, terminator."""
    content = encode_delete_content([record])
    assert content[8] == 2
    assert content[-1] == 0
    return content[9:-1]


def _decode_frame(content: bytes) -> DeleteBlock:
    block = frame_to_block(BlockFrame(BlockType.DELETE, {HeaderKey.INSTANT_TIME: _INSTANT}, content, {}))
    assert isinstance(block, DeleteBlock)
    return block


# ------------------------------------------------------------------------------------ equal to the reference
@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(uniform_records(), any_records))
def test_columns_equal_reference_decode(records: list[DeleteRecord]) -> None:
    content = encode_delete_content(records)
    reference = decode_delete_content(content)
    columns = decode_delete_columns(content)
    if not _columnar(reference):
        assert columns is None
        return
    assert columns is not None
    assert columns.to_records() == reference
    assert columns.record_keys.type == pa.string()
    assert columns.partition_paths.type == pa.string()
    assert columns.record_keys.to_pylist() == [r.record_key for r in reference]
    assert columns.partition_paths.to_pylist() == [r.partition_path for r in reference]
    # The columns made from records agree with the decoded ones.
    assert columns_from_records(reference) == columns
    block = _decode_frame(content)
    assert block == DeleteBlock(reference, {HeaderKey.INSTANT_TIME: _INSTANT})
    assert block.records == reference


@pytest.mark.parametrize("t", list(ORDERING_ARROW_TYPES))
def test_each_scalar_type_is_one_typed_column(t: OrderingType) -> None:
    value = {
        OrderingType.BOOLEAN: True,
        OrderingType.FLOAT: 1.5,
        OrderingType.DOUBLE: -2.25,
        OrderingType.BYTES: b"\x00\xff",
        OrderingType.STRING: "é",
    }.get(t, -7)
    records = [DeleteRecord("k", "p", OrderingValue(t, value)), DeleteRecord(None, None, None)]
    columns = decode_delete_columns(encode_delete_content(records))
    assert columns is not None
    assert columns.ordering_type is t
    assert columns.ordering_values is not None
    assert columns.ordering_values.type == ORDERING_ARROW_TYPES[t]
    assert columns.ordering_values.to_pylist() == [value, None]
    assert columns.record_keys.to_pylist() == ["k", None]


def test_commit_time_mask_and_null_orderings() -> None:
    records = [
        DeleteRecord("a", "p"),
        DeleteRecord("b", "p", OrderingValue(OrderingType.INT, 5)),
        DeleteRecord("c", "p", None),
    ]
    columns = decode_delete_columns(encode_delete_content(records))
    assert columns is not None
    assert columns.commit_time.tolist() == [True, False, False]
    none = decode_delete_columns(encode_delete_content([DeleteRecord("a", "p", None)]))
    assert none is not None
    assert none.ordering_type is None
    assert none.ordering_values is not None
    assert none.ordering_values.null_count == 1
    # DATE 0 is a date, not a commit-time delete.
    date = decode_delete_columns(encode_delete_content([DeleteRecord("a", "p", OrderingValue(OrderingType.DATE, 0))]))
    assert date is not None
    assert date.commit_time.tolist() == [False]


@pytest.mark.parametrize(
    "ordering",
    [
        OrderingValue(OrderingType.ARRAY, (OrderingValue(OrderingType.LONG, 1),)),
        OrderingValue(OrderingType.ARRAY, None),
        OrderingValue(OrderingType.DECIMAL, __import__("decimal").Decimal("1.5")),
    ],
)
def test_array_and_decimal_fall_back(ordering: OrderingValue) -> None:
    content = encode_delete_content([DeleteRecord("k", "p", ordering)])
    assert decode_delete_columns(content) is None
    block = _decode_frame(content)
    assert block.records == decode_delete_content(content)
    assert block.columns.ordering_values is None  # records only
    assert block.columns.record_keys.to_pylist() == ["k"]


def test_mixed_wrapper_types_fall_back() -> None:
    records = [DeleteRecord("a", "p"), DeleteRecord("b", "p", OrderingValue(OrderingType.LONG, 0))]
    content = encode_delete_content(records)
    assert decode_delete_columns(content) is None
    assert _decode_frame(content).records == tuple(records)


# ------------------------------------------------------------------------------------ multi-block arrays
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(uniform_records(), st.data())
def test_multi_block_arrays(records: list[DeleteRecord], data: st.DataObject) -> None:
    items = [_item(r) for r in records]
    body = bytearray()
    at = 0
    while at < len(items):
        count = data.draw(st.integers(1, len(items) - at))
        chunk = b"".join(items[at : at + count])
        if data.draw(st.booleans()):  # negative count, then the block's byte size
            body += _varint(-count) + _varint(len(chunk)) + chunk
        else:
            body += _varint(count) + chunk
        at += count
    content = _content(bytes(body) + b"\x00")
    reference = decode_delete_content(content)  # fastavro reads every block form
    assert reference == tuple(records)
    columns = decode_delete_columns(content)
    assert (columns is None) == (not _columnar(records))
    if columns is not None:
        # repr, not ==: a flipped byte can make a float ordering value NaN, and NaN != NaN
        assert repr(columns.to_records()) == repr(reference)


def test_wrong_block_byte_size_falls_back_to_the_reference() -> None:
    records = [DeleteRecord("a", "p"), DeleteRecord("b", "p")]
    chunk = b"".join(_item(r) for r in records)
    good = _content(_varint(-2) + _varint(len(chunk)) + chunk + b"\x00")
    assert decode_delete_columns(good) is not None
    # fastavro ignores the byte size; the fast path does not guess and leaves it to fastavro.
    wrong = _content(_varint(-2) + _varint(len(chunk) + 1) + chunk + b"\x00")
    assert decode_delete_columns(wrong) is None
    assert _decode_frame(wrong).records == tuple(records)


# ------------------------------------------------------------------------------------ damaged content
_SAMPLE = [
    DeleteRecord("key-1", "p=1", OrderingValue(OrderingType.LONG, 1700000000000)),
    DeleteRecord("key-2", "p=1", OrderingValue(OrderingType.LONG, 5)),
]


def _damaged() -> dict[str, bytes]:
    good = encode_delete_content(_SAMPLE)
    body = good[8:]
    at = body.index(b"key-1")
    return {
        "truncated": _content(body[:-3]),
        "no terminator": _content(body[:-1]),
        "bad key union index": _content(body[: at - 2] + b"\x04" + body[at - 1 :]),
        "bad ordering union index": _content(body.replace(b"\x02\x06p=1\x06", b"\x02\x06p=1\x1a", 1)),
        "trailing bytes": _content(body + b"\x00"),
        "bad utf-8": _content(body.replace(b"key-1", b"key-\xff", 1)),
        "length past the end": _content(body[: at - 1] + b"\x7e" + body[at:]),
        "length header disagrees": good[:7] + bytes([good[7] + 1]) + body,
        "version 2": struct.pack(">ii", 2, len(body)) + body,
        "shorter than header": good[:5],
    }


@pytest.mark.parametrize("name", list(_damaged()))
def test_damaged_content_is_not_guessed_and_the_block_is_rejected(name: str) -> None:
    content = _damaged()[name]
    assert decode_delete_columns(content) is None
    with pytest.raises(LogBlockDecodeError):
        decode_delete_content(content)
    with pytest.raises(LogBlockDecodeError):
        _decode_frame(content)


def test_damaged_block_bytes_fail_in_decode_block() -> None:
    block = DeleteBlock.create(["k"], ["p"], instant_time=_INSTANT)
    data = bytearray(encode_block(block))
    at = data.index(b"\x02\x02k")
    data[at + 2 : at + 3] = b"\xff"  # the key's only byte: not UTF-8
    with pytest.raises(LogBlockDecodeError):
        decode_block(bytes(data))


@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(uniform_records(), st.data())
def test_random_damage_never_decodes_differently(records: list[DeleteRecord], data: st.DataObject) -> None:
    body = bytearray(encode_delete_content(records)[8:])
    kind = data.draw(st.sampled_from(["flip", "cut", "append"]))
    if kind == "flip":
        at = data.draw(st.integers(0, len(body) - 1))
        body[at] = data.draw(st.integers(0, 255))
    elif kind == "cut":
        del body[data.draw(st.integers(0, len(body) - 1)) :]
    else:
        body += data.draw(st.binary(min_size=1, max_size=4))
    content = _content(bytes(body))
    columns = decode_delete_columns(content)
    try:
        reference = decode_delete_content(content)
    except LogBlockDecodeError:
        assert columns is None
        return
    if columns is not None:
        # repr, not ==: a flipped byte can make a float ordering value NaN, and NaN != NaN
        assert repr(columns.to_records()) == repr(reference)


# ------------------------------------------------------------------------------------ the block
def test_block_from_columns_keeps_the_block_api() -> None:
    content = encode_delete_content(_SAMPLE)
    block = _decode_frame(content)
    assert block._records is None  # decoded as columns, records not made yet
    assert block.record_keys == ("key-1", "key-2")
    assert block.partition_paths == ("p=1", "p=1")
    assert block._records is None
    assert block.to_arrow().column("_hoodie_record_key").to_pylist() == ["key-1", "key-2"]
    assert block.ordering_values == tuple(r.ordering_value for r in _SAMPLE)
    assert block.records == tuple(_SAMPLE)
    in_memory = DeleteBlock(_SAMPLE, {HeaderKey.INSTANT_TIME: _INSTANT})
    assert block == in_memory
    assert block != DeleteBlock(_SAMPLE[:1], {HeaderKey.INSTANT_TIME: _INSTANT})
    assert pickle.loads(pickle.dumps(_decode_frame(content))) == in_memory
    assert encode_block(block) == encode_block(in_memory)
    assert in_memory.columns == block.columns
    with pytest.raises(AttributeError):
        block.header = {}  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(block)  # as the frozen dataclass it was: the header dict is unhashable


def test_block_from_columns_needs_an_ordering_column() -> None:
    columns = columns_from_records([DeleteRecord("k", "p", OrderingValue(OrderingType.ARRAY, None))])
    assert columns.ordering_values is None
    with pytest.raises(Exception, match="ordering column"):
        DeleteBlock.from_columns(columns, {HeaderKey.INSTANT_TIME: _INSTANT})


def test_float_columns_from_records_keep_exact_values() -> None:
    # 0.1 is no float32: the records keep it, so there is no float32 column to round it.
    columns = columns_from_records([DeleteRecord("k", "p", OrderingValue(OrderingType.FLOAT, 0.1))])
    assert columns.ordering_values is None
    exact = columns_from_records([DeleteRecord("k", "p", OrderingValue(OrderingType.FLOAT, 0.5))])
    assert exact.ordering_values is not None
    assert exact.ordering_values.type == pa.float32()


# ------------------------------------------------------------------------------------ delete rows
def _old_delete_rows(records: Sequence[DeleteRecord], task: Any, schema: pa.Schema) -> pa.Table:
    """The record-by-record conversion the columnar one replaced."""
    n = len(records)
    columns: dict[str, pa.Array] = {
        task.record_key_field: string_array([r.record_key for r in records]),
        IS_DELETED_FIELD: pa.array([True] * n, pa.bool_()),
    }
    if schema.get_field_index("_hoodie_partition_path") >= 0:
        columns["_hoodie_partition_path"] = string_array([r.partition_path for r in records])
    orderings = [r.ordering_value for r in records]
    if any(v is not None and v != COMMIT_TIME_ORDERING for v in orderings):
        for position, name in enumerate(task.ordering_fields):
            index = schema.get_field_index(name)
            if index >= 0 and name not in columns:
                columns[name] = log_records._ordering_column(orderings, schema.field(index), position)
    return conform_table(pa.table(columns), schema)


_ORDERING_FIELD_TYPES = [pa.int64(), pa.int32(), pa.float64(), pa.string(), pa.timestamp("us"), pa.date32(), pa.bool_()]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(uniform_records(), any_records),
    st.sampled_from(_ORDERING_FIELD_TYPES),
    st.sampled_from([("ts",), ("ts", "seq"), ()]),
)
def test_delete_rows_match_the_record_by_record_conversion(
    records: list[DeleteRecord], ordering_type: pa.DataType, ordering_fields: tuple[str, ...]
) -> None:
    merge_schema = pa.schema(
        [
            ("_hoodie_record_key", pa.string()),
            ("_hoodie_partition_path", pa.string()),
            ("ts", ordering_type),
            ("seq", pa.int64()),
            ("v", pa.string()),
        ]
    )
    schema = log_schema(merge_schema)
    task = SimpleNamespace(record_key_field="_hoodie_record_key", ordering_fields=ordering_fields)
    content = encode_delete_content(records)
    block = _decode_frame(content)
    new = log_records._delete_rows(block, cast(Any, task), schema)
    old = _old_delete_rows(decode_delete_content(content), task, schema)
    assert new.schema == old.schema
    # Arrow equality, not Python values: a timestamp before year 1 has no datetime.
    assert new.equals(old)


def test_commit_time_and_event_time_delete_rows() -> None:
    schema = log_schema(pa.schema([("_hoodie_record_key", pa.string()), ("ts", pa.int64())]))
    task = cast(Any, SimpleNamespace(record_key_field="_hoodie_record_key", ordering_fields=("ts",)))
    commit_time = DeleteBlock.create(["a", "b"], ["", ""], instant_time=_INSTANT)
    rows = log_records._delete_rows(_decode_frame(encode_delete_content(commit_time.records)), task, schema)
    assert rows.column("ts").to_pylist() == [None, None]
    assert rows.column(IS_DELETED_FIELD).to_pylist() == [True, True]
    event_time = [
        DeleteRecord("a", "", OrderingValue(OrderingType.INT, 7)),
        DeleteRecord("b", "", COMMIT_TIME_ORDERING),
        DeleteRecord("c", "", None),
    ]
    rows = log_records._delete_rows(_decode_frame(encode_delete_content(event_time)), task, schema)
    assert rows.column("_hoodie_record_key").to_pylist() == ["a", "b", "c"]
    assert rows.column("ts").to_pylist() == [7, None, None]
    assert rows.column(PRESENT_COLUMNS_FIELD).null_count == 3
    assert rows.schema.field(BLOCK_SEQ_FIELD).type == pa.int64()


def test_columns_dataclass_is_small() -> None:
    columns = DeleteColumns(pa.array(["k"]), pa.array(["p"]), None, pa.nulls(1))
    assert len(columns) == 1
    assert columns.to_records() == (DeleteRecord("k", "p", None),)
