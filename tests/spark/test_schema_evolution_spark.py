"""Schema evolution on the Spark engine: ``df.write.format("hudi")`` and ``SparkWriteClient`` evolve a
table as the local engine does, and ``spark.read.format("hudi")`` reads older files with nulls and casts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.errors import ColumnTypeError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from tests.spark.test_datasource_write import _opts

pytestmark = pytest.mark.spark

COLUMNS = ["id", "city", "ts", "n", "s", "tip"]


def _first() -> pa.Table:
    return pa.table(
        {
            "id": ["a", "b", "c"],
            "city": ["sf", "sf", "ny"],
            "ts": pa.array([1, 1, 1], pa.int64()),
            "n": pa.array([1, 2, 3], pa.int32()),
            "s": pa.array([{"m": 1}] * 3, pa.struct([("m", pa.int32())])),
        }
    )


def _evolved() -> pa.Table:
    member = pa.struct([("m", pa.int32()), ("x", pa.string())])
    return pa.table(
        {
            "id": ["a", "d"],
            "city": ["sf", "ny"],
            "ts": pa.array([2, 2], pa.int64()),
            "n": pa.array([2**40, 5], pa.int64()),
            "s": pa.array([{"m": 7, "x": "y"}] * 2, member),
            "tip": [0.5, 1.5],
        }
    )


EXPECTED = [
    {"id": "a", "city": "sf", "ts": 2, "n": 2**40, "s": {"m": 7, "x": "y"}, "tip": 0.5},
    {"id": "b", "city": "sf", "ts": 1, "n": 2, "s": {"m": 1, "x": None}, "tip": None},
    {"id": "c", "city": "ny", "ts": 1, "n": 3, "s": {"m": 1, "x": None}, "tip": None},
    {"id": "d", "city": "ny", "ts": 2, "n": 5, "s": {"m": 7, "x": "y"}, "tip": 1.5},
]


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    return table.select(COLUMNS).sort_by("id").to_pylist()


def _hudi_rs(path: Path) -> list[dict[str, Any]]:
    return _rows(
        pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(str(path)).build().read(hudi.HudiReadOptions()))
    )


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_the_data_source_evolves_the_table_and_reads_older_files(spark: Any, tmp_path: Path, table_type: str) -> None:
    path = str(tmp_path / "t")
    opts = {**_opts("upsert"), "hoodie.datasource.write.table.type": table_type}
    spark.createDataFrame(_first()).write.format("hudi").options(**opts).mode("append").save(path)
    spark.createDataFrame(_evolved()).write.format("hudi").options(**opts).mode("append").save(path)
    frame = spark.read.format("hudi").load(path).select(*COLUMNS).orderBy("id")
    assert [r.asDict(recursive=True) for r in frame.collect()] == EXPECTED
    assert _rows(read_table(HudiTable.open(path))) == _hudi_rs(tmp_path / "t") == EXPECTED
    # Incompatible: refused on the driver with the typed error, the table as it was.
    bad = _evolved().set_column(3, "n", pa.array([True, False]))
    with pytest.raises(Exception, match=r"ColumnTypeError.*'n'.*bool.*int64"):
        spark.createDataFrame(bad).write.format("hudi").options(**opts).mode("append").save(path)
    assert _rows(read_table(HudiTable.open(path))) == EXPECTED


def test_spark_write_client_evolves_as_the_local_engine(spark: Any, tmp_path: Path) -> None:
    from hudi_framework.spark.write_engine import SparkWriteClient

    config = new_table_config(
        "t", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    table = HudiTable.create(str(tmp_path / "t"), config)
    SparkWriteClient(table, None, spark).upsert(spark.createDataFrame(_first()))
    SparkWriteClient(table.reload(), None, spark).upsert(spark.createDataFrame(_evolved()))
    table = table.reload()
    assert table.schema().names == COLUMNS
    assert _rows(read_table(table)) == _hudi_rs(tmp_path / "t") == EXPECTED
    with pytest.raises(ColumnTypeError):
        SparkWriteClient(table, None, spark).upsert(
            spark.createDataFrame(_evolved().set_column(5, "tip", pa.array(["x", "y"]).cast(pa.binary())))
        )
