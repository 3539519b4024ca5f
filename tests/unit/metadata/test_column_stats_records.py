"""Column statistics records as Apache Hudi 1.1 writes them (version 9, index V2): indexed columns,
physical value wrappers with logical value types, minimal two's-complement decimals."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pyarrow as pa
import pytest

from hudi_framework.metadata.keys import column_stats_key
from hudi_framework.metadata_writer.column_stats_partition import columns_to_index, stats_records
from hudi_framework.metadata_writer.file_column_stats import indexable, union_of
from hudi_framework.read.skipping import (
    COLUMN_NAME,
    FILE_NAME,
    IS_DELETED,
    MAX_VALUE,
    MIN_VALUE,
    NULL_COUNT,
    PARTITION,
    TOTAL_SIZE,
    TOTAL_UNCOMPRESSED_SIZE,
    VALUE_COUNT,
)  # fmt: skip

NS = "org.apache.hudi.avro.model."


def test_columns_to_index_follow_apache_hudi() -> None:
    schema = pa.schema(
        [("_hoodie_commit_time", pa.string()), ("id", pa.string()), ("tags", pa.list_(pa.int64())),
         ("raw", pa.binary()), ("amount", pa.decimal128(38, 10)), ("price", pa.decimal128(15, 2)),
         ("ts", pa.int64()), ("day", pa.date32())]
    )  # fmt: skip
    meta = ["_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key"]
    assert columns_to_index(schema, populate_meta_fields=True, column_list=None, max_columns=32) == [
        *meta, "id", "price", "ts", "day",
    ]  # fmt: skip
    assert columns_to_index(schema, populate_meta_fields=False, column_list=None, max_columns=2) == ["id", "price"]
    assert columns_to_index(schema, populate_meta_fields=True, column_list=["ts", "nope"], max_columns=1) == [
        *meta, "ts",
    ]  # fmt: skip
    assert indexable(pa.decimal128(30, 15))
    assert not indexable(pa.decimal128(31, 15))
    assert not indexable(pa.decimal128(16, 16))


@pytest.mark.parametrize(
    ("value", "unscaled"),
    [(Decimal("89.99"), b"#'"), (Decimal("0.00"), b"\x00"), (Decimal("-0.01"), b"\xff"), (Decimal("1.28"), b"\x00\x80"),
     (Decimal("-1.29"), b"\xff\x7f")],
)  # fmt: skip
def test_decimals_are_javas_minimal_unscaled_bytes(value: Decimal, unscaled: bytes) -> None:
    (record,) = stats_records(_stats("amount", pa.array([value, value], pa.decimal128(15, 2))))
    stats = record["ColumnStatsMetadata"]
    assert stats["minValue"] == (f"{NS}BytesWrapper", {"value": unscaled})
    assert stats["valueType"] == {"typeOrdinal": 10, "additionalInfo": "15,2"}


@pytest.mark.parametrize(
    ("values", "wrapper", "ordinal", "low"),
    [
        (pa.array(["a", "b"]), "StringWrapper", 7, "a"),
        (pa.array([1, 2], pa.int32()), "IntWrapper", 3, 1),
        (pa.array([1, 2], pa.int64()), "LongWrapper", 4, 1),
        (pa.array([True, True]), "BooleanWrapper", 2, True),
        (pa.array([1.5, 2.5]), "DoubleWrapper", 6, 1.5),
        (pa.array([datetime.date(1970, 1, 3)] * 2), "IntWrapper", 12, 2),
        (pa.array([1, 2], pa.timestamp("us", tz="UTC")), "LongWrapper", 16, 1),
        (pa.array([1, 2], pa.timestamp("us")), "LongWrapper", 19, 1),
        (pa.array([1, 2], pa.timestamp("ms", tz="UTC")), "LongWrapper", 15, 1),
    ],
)
def test_values_go_in_their_physical_wrapper(values: pa.Array, wrapper: str, ordinal: int, low: object) -> None:
    (record,) = stats_records(_stats("c", values))
    assert record["key"] == column_stats_key("c", "p", "f.parquet")
    assert record["type"] == 3
    stats = record["ColumnStatsMetadata"]
    assert stats["minValue"] == (f"{NS}{wrapper}", {"value": low})
    assert stats["valueType"] == {"typeOrdinal": ordinal, "additionalInfo": None}
    assert (stats["fileName"], stats["columnName"], stats["isDeleted"], stats["isTightBound"]) == (
        "f.parquet", "c", False, False,
    )  # fmt: skip


def _stats(column: str, bounds: pa.Array) -> pa.Table:
    return pa.table(
        {
            PARTITION: ["p"], FILE_NAME: ["f.parquet"], COLUMN_NAME: [column],
            MIN_VALUE: union_of([bounds.slice(0, 1)]), MAX_VALUE: union_of([bounds.slice(1, 1)]),
            NULL_COUNT: [0], VALUE_COUNT: [2], TOTAL_SIZE: [10], TOTAL_UNCOMPRESSED_SIZE: [12], IS_DELETED: [False],
        }
    )  # fmt: skip
