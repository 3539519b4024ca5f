"""DELETE blocks encoded from columns: the same bytes as the reference (fastavro) encoder."""

from __future__ import annotations

import datetime as dt
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework.errors import LogBlockEncodeError
from hudi_framework.log.blocks import DeleteBlock
from hudi_framework.log.codec import decode_block, encode_block
from hudi_framework.log.delete_columns import DeleteColumns, columns_from_records
from hudi_framework.log.delete_encode import encode_delete_columns
from hudi_framework.log.delete_records import DeleteRecord, OrderingType, encode_delete_content
from hudi_framework.write.log_task import delete_columns, ordering_column, ordering_values
from hudi_framework.write.prepare import RECORD_KEY
from tests.hypothesis_budget import examples
from tests.unit.log.test_delete_columns import _columnar, uniform_records

_INSTANT = "20250101000000001"


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(uniform_records())
def test_columns_encode_to_the_reference_bytes(records: list[DeleteRecord]) -> None:
    columns = columns_from_records(records)
    if not _columnar(records):
        assert columns.ordering_values is None
        with pytest.raises(LogBlockEncodeError):
            encode_delete_columns(columns)
        return
    assert encode_delete_columns(columns) == encode_delete_content(records)


def test_a_large_block_needs_a_multi_byte_count() -> None:
    records = [DeleteRecord(f"k{i}", "p", None) for i in range(70_000)]
    assert encode_delete_columns(columns_from_records(records)) == encode_delete_content(records)


def test_a_wrongly_typed_ordering_column_is_rejected() -> None:
    keys = pa.array(["a"], pa.string())
    columns = DeleteColumns(keys, keys, OrderingType.LONG, pa.array([1], pa.int32()))
    with pytest.raises(LogBlockEncodeError, match="LONG ordering values must be int64"):
        encode_delete_columns(columns)


def test_a_block_made_from_columns_round_trips() -> None:
    keys = pa.array(["a", "b"], pa.string())
    columns = DeleteColumns(keys, pa.array(["p", "q"], pa.string()), OrderingType.LONG, pa.array([5, -1], pa.int64()))
    block = DeleteBlock.create_from_columns(columns, instant_time=_INSTANT, schema='{"type": "null"}')
    assert block.held_columns is columns
    decoded = decode_block(encode_block(block))
    assert isinstance(decoded, DeleteBlock)
    assert decoded.records == block.records
    assert decoded.header == block.header
    # The same block made from records encodes to the same bytes.
    same = DeleteBlock.create(
        ["a", "b"], ["p", "q"], instant_time=_INSTANT, ordering_values=block.ordering_values, schema='{"type": "null"}'
    )
    assert same.held_columns is None
    assert encode_block(same) == encode_block(block)


_ORDERING_COLUMNS: list[tuple[pa.Array, OrderingType | None]] = [
    (pa.array([3, 1], pa.int64()), OrderingType.LONG),
    (pa.array([3, 1], pa.uint32()), OrderingType.LONG),
    (pa.array([3, 1], pa.int32()), OrderingType.INT),
    (pa.array([3, 1], pa.int8()), OrderingType.INT),
    (pa.array([3, 1], pa.uint16()), OrderingType.INT),
    (pa.array([True, False]), OrderingType.BOOLEAN),
    (pa.array([1.5, -2.0], pa.float32()), OrderingType.FLOAT),
    (pa.array([1.5, -2.0], pa.float64()), OrderingType.DOUBLE),
    (pa.array(["x", "é"], pa.large_string()), OrderingType.STRING),
    (pa.array([b"x", b""], pa.binary()), OrderingType.BYTES),
    (pa.array([dt.date(2024, 1, 1), dt.date(1969, 12, 31)], pa.date32()), OrderingType.DATE),
    (pa.array([10, 20], pa.timestamp("ms")), OrderingType.TIMESTAMP_MICROS),
    (pa.array([3, None], pa.int64()), None),  # a null is a commit-time delete beside typed values
    (pa.array([3, 1], pa.uint64()), None),
    (pa.array([1, 2], pa.decimal128(10, 2)), None),
    (pa.array([1, 2], pa.time32("s")), None),
]


@pytest.mark.parametrize(("values", "kind"), _ORDERING_COLUMNS, ids=lambda v: str(getattr(v, "type", v)))
def test_write_side_columns_encode_like_the_per_row_values(values: pa.Array, kind: OrderingType | None) -> None:
    rows = pa.table({RECORD_KEY: pa.array(["k1", "k2"], pa.large_string()), "ts": values})
    column = ordering_column(rows, ["ts"])
    if kind is None:
        assert column is None
        assert delete_columns(rows, "p", ["ts"]) is None
        return
    assert column is not None
    assert column[0] is kind
    columns = delete_columns(rows, "p", ["ts"])
    assert columns is not None
    from_columns = DeleteBlock.create_from_columns(columns, instant_time=_INSTANT)
    from_rows = DeleteBlock.create(
        ["k1", "k2"], ["p", "p"], instant_time=_INSTANT, ordering_values=ordering_values(rows, ["ts"])
    )
    assert encode_block(from_columns) == encode_block(from_rows)


@pytest.mark.parametrize("fields", [[], ["missing"], ["ts", "missing"]])
def test_commit_time_deletes_without_an_ordering_value(fields: list[str]) -> None:
    rows = pa.table({RECORD_KEY: ["k1", "k2"], "ts": [1, 2]})
    column = ordering_column(rows, fields)
    assert column is not None
    assert column[0] is OrderingType.INT
    assert column[1].to_pylist() == [0, 0]
    columns = delete_columns(rows, "", fields)
    assert columns is not None
    reference = DeleteBlock.create(["k1", "k2"], ["", ""], instant_time=_INSTANT)  # IntWrapper(0) each
    assert encode_block(DeleteBlock.create_from_columns(columns, instant_time=_INSTANT)) == encode_block(reference)


def test_several_ordering_fields_use_the_per_row_values() -> None:
    rows = pa.table({RECORD_KEY: ["k1"], "a": [1], "b": ["x"]})
    assert ordering_column(rows, ["a", "b"]) is None


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=50), st.data())
def test_random_long_orderings(values: list[int], data: Any) -> None:
    keys = data.draw(st.lists(st.text(max_size=20), min_size=len(values), max_size=len(values)))
    rows = pa.table({RECORD_KEY: pa.array(keys, pa.large_string()), "ts": pa.array(np.array(values, dtype=np.int64))})
    columns = delete_columns(rows, "region=eu", ["ts"])
    assert columns is not None
    reference = DeleteBlock.create(
        keys, ["region=eu"] * len(keys), instant_time=_INSTANT, ordering_values=ordering_values(rows, ["ts"])
    )
    assert encode_block(DeleteBlock.create_from_columns(columns, instant_time=_INSTANT)) == encode_block(reference)
