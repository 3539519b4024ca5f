"""Parquet files typed as Apache Hudi's parquet-avro writer types them; codec names as Apache Hudi's."""

from __future__ import annotations

import datetime as dt
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.errors import SchemaMismatchError
from hudi_framework.model.parquet_format import PARQUET_TYPE_OPTIONS, as_file_types, pyarrow_codec


def _logical(table: pa.Table) -> dict[str, dict[str, object]]:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, **PARQUET_TYPE_OPTIONS)
    schema = pq.ParquetFile(pa.BufferReader(sink.getvalue())).schema
    return {schema.column(i).path: json.loads(schema.column(i).logical_type.to_json()) for i in range(len(schema))}


def test_units_and_time_zone_flags_are_the_arrow_types() -> None:
    got = _logical(
        pa.table({
            "ms": pa.array([1], pa.timestamp("ms", tz="UTC")),
            "local_ms": pa.array([1], pa.timestamp("ms")),
            "us": pa.array([1], pa.timestamp("us", tz="UTC")),
            "time_ms": pa.array([1], pa.time32("ms")),
            "time_us": pa.array([1], pa.time64("us")),
        })
    )  # fmt: skip
    assert {k: (v["timeUnit"], v["isAdjustedToUTC"]) for k, v in got.items()} == {
        "ms": ("milliseconds", True),
        "local_ms": ("milliseconds", False),
        "us": ("microseconds", True),
        # parquet-avro writes Avro time-millis/time-micros as TIME(isAdjustedToUTC=true).
        "time_ms": ("milliseconds", True),
        "time_us": ("microseconds", True),
    }


def test_rows_are_cast_to_the_file_types() -> None:
    schema = pa.schema([("t", pa.timestamp("ms", tz="UTC")), ("f", pa.binary(2)), ("s", pa.string())])
    rows = pa.table({
        "t": pa.array([dt.datetime(2024, 1, 1, 0, 0, 0, 5000, tzinfo=dt.UTC)], pa.timestamp("us", tz="UTC")),
        "f": pa.array([b"ab"], pa.binary()),
        "s": pa.array(["x"]).dictionary_encode(),
    })  # fmt: skip
    out = as_file_types(rows, schema)
    assert out.schema.field("t").type == pa.timestamp("ms", tz="UTC")
    assert out.schema.field("f").type == pa.binary(2)
    assert pa.types.is_dictionary(out.schema.field("s").type), "a dictionary of the right values stays one"
    assert out.column("t").to_pylist() == rows.column("t").to_pylist()


def test_values_that_do_not_fit_the_file_type_name_the_column() -> None:
    schema = pa.schema([("t", pa.timestamp("ms", tz="UTC"))])
    rows = pa.table({"t": pa.array([1_001], pa.timestamp("us", tz="UTC"))})
    with pytest.raises(SchemaMismatchError, match="'t'"):
        as_file_types(rows, schema)


@pytest.mark.parametrize(
    ("hudi", "pyarrow"),
    [("gzip", "gzip"), ("SNAPPY", "snappy"), ("uncompressed", "none"), ("zstd", "zstd"), ("lz4", "lz4")],
)
def test_codec_names(hudi: str, pyarrow: str) -> None:
    assert pyarrow_codec(hudi) == pyarrow
