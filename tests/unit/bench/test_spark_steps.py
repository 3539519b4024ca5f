"""The two Spark upserts of the benchmark leave exactly the rows the change batch implies (small data,
the tests' session): our SparkWriteClient's table and the naive job's rewritten parquet files."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as ds
import pytest

from bench.dataset import KEY, Inputs, generate, split_changes
from bench.step import StepContext
from bench.systems import ours, pyarrow_floor
from bench.systems import spark as spark_steps
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable

pytestmark = pytest.mark.spark
ROWS = 2_000


def _expected(inputs: Inputs) -> pa.Table:
    base = inputs.read_base()
    upserts, deletes = split_changes(inputs.read_changes())
    touched = pa.concat_arrays([upserts.column(KEY).combine_chunks(), deletes.column(KEY).combine_chunks()])
    kept = base.filter(pc.invert(pc.is_in(base.column(KEY), value_set=touched)))
    return pa.concat_tables([kept, upserts.select(base.column_names).cast(base.schema)])


def _rows(table: pa.Table, schema: pa.Schema) -> list[dict[str, Any]]:
    return table.select(schema.names).cast(schema).sort_by(KEY).to_pylist()


def test_both_spark_upserts_leave_the_rows_the_batch_implies(spark: Any, tmp_path: Path) -> None:
    inputs = generate(tmp_path / "inputs", ROWS)
    expected = _expected(inputs)
    assert expected.num_rows == ROWS + ROWS // 50 - ROWS // 100

    ctx = StepContext(inputs, tmp_path / "ours", spark=spark)
    ours.load_cow(replace(ctx, spark=None))
    counters = spark_steps.upsert(ctx)
    # Copy-on-write: every row of every rewritten file group is written again.
    assert (counters["rows"], counters["deletes"]) == (expected.num_rows, ROWS // 100)
    assert _rows(read_table(HudiTable.open(str(ctx.work / "table"))), expected.schema) == _rows(
        expected, expected.schema
    )

    ctx = StepContext(inputs, tmp_path / "naive", spark=spark)
    pyarrow_floor.prepare(replace(ctx, spark=None))
    spark_steps.naive_upsert(ctx)
    written = ds.dataset(spark_steps.naive_output(ctx), format="parquet", partitioning="hive").to_table()
    assert _rows(written, expected.schema) == _rows(expected, expected.schema)


def test_our_spark_snapshot_reads_every_row_the_local_engine_reads(spark: Any, tmp_path: Path) -> None:
    inputs = generate(tmp_path / "inputs", ROWS)
    for name, prepare in (("cow", ours.load_cow), ("mor", ours.upserted_mor)):
        ctx = StepContext(inputs, tmp_path / name, spark=spark)
        prepare(replace(ctx, spark=None))
        local = read_table(HudiTable.open(str(ctx.work / "table")))
        assert spark_steps.snapshot_read(ctx) == {}
        read = spark_steps.snapshot(ctx).toArrow()
        assert read.num_rows == local.num_rows > 0
        assert _rows(read, local.schema) == _rows(local, local.schema)
