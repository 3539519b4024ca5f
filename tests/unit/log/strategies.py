"""Hypothesis strategies for log blocks: arbitrary schemas, records, deletes and block sequences."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

import pyarrow as pa
from hypothesis import strategies as st

from hudi_framework.log import (
    BlockType,
    CommandBlock,
    DataBlock,
    DeleteBlock,
    DeleteRecord,
    HeaderKey,
    HFileBlock,
    LogBlock,
    OrderingType,
    OrderingValue,
)
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, avro_to_arrow, with_meta_fields

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
UTC = dt.UTC

instants = st.integers(min_value=10**16, max_value=10**17 - 1).map(str)
texts = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)
# Avro names; "fixed" is left out because the Spark-style schema names decimal types "fixed".
names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(lambda n: n != "fixed")

leaf_types = st.sampled_from(
    [
        pa.bool_(),
        pa.int32(),
        pa.int64(),
        pa.float32(),
        pa.float64(),
        pa.string(),
        pa.binary(),
        pa.binary(3),
        pa.date32(),
        pa.timestamp("us", tz="UTC"),
        pa.timestamp("us"),
        pa.timestamp("ms", tz="UTC"),
        pa.time64("us"),
        pa.time32("ms"),
    ]
) | st.builds(
    lambda p, s: pa.decimal128(p, min(s, p)),
    st.integers(min_value=1, max_value=38),
    st.integers(min_value=0, max_value=38),
)


def _fields(children: st.SearchStrategy[pa.DataType]) -> st.SearchStrategy[list[pa.Field]]:
    return st.lists(st.tuples(names, children), min_size=1, max_size=3, unique_by=lambda f: f[0]).map(
        lambda fs: [pa.field(n, t) for n, t in fs]
    )


arrow_types = st.recursive(
    leaf_types,
    lambda children: st.one_of(
        _fields(children).map(pa.struct),
        children.map(pa.list_),
        children.map(lambda t: pa.map_(pa.string(), t)),
    ),
    max_leaves=4,
)


@st.composite
def writer_schemas(draw: st.DrawFn) -> dict[str, Any]:
    """An Avro writer schema with meta fields, as the Spark writer shapes it."""
    fields = draw(_fields(arrow_types).filter(lambda fs: not {f.name for f in fs} & set(META_FIELDS)))
    return with_meta_fields(arrow_to_avro(pa.schema(fields), draw(names)))


def values(t: pa.DataType) -> st.SearchStrategy[Any]:
    """Python values of Arrow type ``t`` (never null; see :func:`nullable`)."""
    if pa.types.is_boolean(t):
        return st.booleans()
    if pa.types.is_int32(t):
        return st.integers(*INT32)
    if pa.types.is_int64(t):
        return st.integers(*INT64)
    if pa.types.is_float32(t):
        return st.floats(width=32, allow_nan=False)
    if pa.types.is_float64(t):
        return st.floats(allow_nan=False)
    if pa.types.is_string(t):
        return texts
    if pa.types.is_fixed_size_binary(t):
        return st.binary(min_size=t.byte_width, max_size=t.byte_width)
    if pa.types.is_binary(t):
        return st.binary(max_size=12)
    if pa.types.is_decimal(t):
        bound = 10**t.precision - 1
        return st.integers(-bound, bound).map(lambda i: Decimal(f"{i}E-{t.scale}"))
    if pa.types.is_date(t):
        return st.dates()
    if pa.types.is_timestamp(t):
        stamps = st.datetimes(timezones=st.just(UTC)) if t.tz else st.datetimes()
        return stamps.map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)) if t.unit == "ms" else stamps
    if pa.types.is_time64(t):
        return st.times()
    if pa.types.is_time32(t):
        return st.times().map(lambda x: x.replace(microsecond=x.microsecond // 1000 * 1000))
    if pa.types.is_struct(t):
        return st.fixed_dictionaries({f.name: nullable(f.type) for f in t})
    if pa.types.is_map(t):
        return st.dictionaries(texts, nullable(t.item_type), max_size=3)
    if pa.types.is_list(t):
        return st.lists(nullable(t.value_type), max_size=3)
    raise AssertionError(f"no strategy for {t}")


def nullable(t: pa.DataType) -> st.SearchStrategy[Any]:
    return st.none() | values(t)


@st.composite
def record_tables(draw: st.DrawFn, schema: dict[str, Any], max_rows: int = 4) -> pa.Table:
    """Rows for writer schema ``schema``; meta fields are strings like Java fills them."""
    arrow = avro_to_arrow(schema)
    row = st.fixed_dictionaries({f.name: nullable(f.type) for f in arrow})
    rows = draw(st.lists(row, max_size=max_rows))
    return pa.Table.from_pylist(rows, schema=arrow)


@st.composite
def data_blocks(draw: st.DrawFn, block_type: BlockType = BlockType.AVRO_DATA) -> DataBlock:
    schema = draw(writer_schemas())
    records = draw(record_tables(schema))
    return DataBlock.create(records, instant_time=draw(instants), schema=schema, block_type=block_type)


_SCALAR_VALUES: dict[OrderingType, st.SearchStrategy[Any]] = {
    OrderingType.BOOLEAN: st.booleans(),
    OrderingType.INT: st.integers(*INT32),
    OrderingType.LONG: st.integers(*INT64),
    OrderingType.FLOAT: st.floats(width=32, allow_nan=False),
    OrderingType.DOUBLE: st.floats(allow_nan=False),
    OrderingType.BYTES: st.binary(max_size=8),
    OrderingType.STRING: texts,
    OrderingType.DATE: st.integers(*INT32),
    OrderingType.DECIMAL: st.integers(-(10**30) + 1, 10**30 - 1).map(lambda i: Decimal(f"{i}E-15")),
    OrderingType.TIME_MICROS: st.integers(*INT64),
    OrderingType.TIMESTAMP_MICROS: st.integers(*INT64),
}
_ITEM_VALUES = {**_SCALAR_VALUES, OrderingType.LOCAL_DATE: st.integers(*INT32)}


def _ordering(choices: dict[OrderingType, st.SearchStrategy[Any]]) -> st.SearchStrategy[OrderingValue]:
    return st.one_of(*(st.builds(OrderingValue, st.just(t), s) for t, s in choices.items()))


scalar_orderings = _ordering(_SCALAR_VALUES)
array_orderings = st.none() | st.lists(st.none() | _ordering(_ITEM_VALUES), max_size=3).map(tuple)
ordering_values = st.none() | scalar_orderings | array_orderings.map(lambda v: OrderingValue(OrderingType.ARRAY, v))

delete_records = st.builds(DeleteRecord, st.none() | texts, st.none() | texts, ordering_values)


@st.composite
def delete_blocks(draw: st.DrawFn) -> DeleteBlock:
    header = {HeaderKey.INSTANT_TIME: draw(instants)}
    if draw(st.booleans()):
        header[HeaderKey.SCHEMA] = json.dumps(draw(writer_schemas()))
    return DeleteBlock(tuple(draw(st.lists(delete_records, max_size=4))), header)


command_blocks = st.builds(
    lambda i, t: CommandBlock.rollback(instant_time=i, target_instant_time=t), instants, instants
)
hfile_blocks = st.builds(
    lambda c, i: HFileBlock(c + b"\x00\x00\x00\x03", {HeaderKey.INSTANT_TIME: i}), st.binary(max_size=40), instants
)

log_blocks: st.SearchStrategy[LogBlock] = st.one_of(
    data_blocks(), delete_blocks(), command_blocks, hfile_blocks, data_blocks(BlockType.PARQUET_DATA)
)
small_blocks: st.SearchStrategy[LogBlock] = st.one_of(data_blocks(), delete_blocks(), command_blocks)
