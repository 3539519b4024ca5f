"""Read splits of ``format("hudi")``: files packed into about as many Spark partitions as the session
has slots, sized from the session's file-split settings when the data source is registered."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.read.splits import SplitSizing
from hudi_framework.spark.datasource import HudiDataSource
from hudi_framework.spark.session import register_data_source, spark_session, split_sizing

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from hudi_rs_check import build_table, canonical_hash, read_via_hudi_rs

pytestmark = pytest.mark.spark

CITIES = ["ams", "ber", "cph", "dub", "edi", "fra", "gva", "hel"]


def _write(spark: Any, path: str, table_type: str) -> None:
    opts = {
        "hoodie.table.name": "trips",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
    }
    rows = pa.table(
        {
            "id": [f"k{i:03d}" for i in range(80)],
            "city": [CITIES[i % len(CITIES)] for i in range(80)],
            "ts": [1] * 80,
            "v": [float(i) for i in range(80)],
        }
    )
    spark.createDataFrame(rows).write.format("hudi").options(**opts).mode("append").save(path)
    update = rows.slice(0, 20).set_column(2, "ts", pa.array([2] * 20, pa.int64()))
    update = update.set_column(3, "v", pa.array([-1.0] * 20))
    spark.createDataFrame(update).write.format("hudi").options(
        **opts, **{"hoodie.datasource.write.operation": "upsert"}
    ).mode("append").save(path)


@pytest.fixture
def restore_registration(spark: Any) -> Iterator[None]:
    yield
    spark.dataSource.register(HudiDataSource.for_session(split_sizing(spark)))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_eight_file_groups_read_in_as_many_partitions_as_slots(spark: Any, tmp_path: Path, table_type: str) -> None:
    path = str(tmp_path / "t")
    _write(spark, path, table_type)
    df = spark.read.format("hudi").load(path)
    # local[2]: 8 small file groups (MOR: base files with log files to merge) in 2 splits, not 8 tasks.
    assert df.rdd.getNumPartitions() == 2
    ours = df.toArrow()
    expected = read_via_hudi_rs(build_table(path))
    assert ours.num_rows == expected.num_rows == 80
    assert canonical_hash(ours) == canonical_hash(expected)
    assert sorted(ours.filter(pa.compute.equal(ours["v"], -1.0))["id"].to_pylist()) == [f"k{i:03d}" for i in range(20)]


def test_the_session_s_split_settings_travel_with_the_registration(
    spark: Any, tmp_path: Path, restore_registration: None
) -> None:
    path = str(tmp_path / "t")
    _write(spark, path, "COPY_ON_WRITE")
    assert split_sizing(spark).min_splits == 2
    spark.conf.set("spark.sql.files.minPartitionNum", "8")
    try:
        assert split_sizing(spark).min_splits == 8
        register_data_source(spark)  # already registered: keeps the sizing it was registered with
        assert spark.read.format("hudi").load(path).rdd.getNumPartitions() == 2
        register_data_source(spark, again=True)
        df = spark.read.format("hudi").load(path)
        assert df.rdd.getNumPartitions() == 8
        assert df.count() == 80
    finally:
        spark.conf.unset("spark.sql.files.minPartitionNum")
    spark.dataSource.register(HudiDataSource.for_session(SplitSizing(max_split_bytes=1, min_splits=1)))
    assert spark.read.format("hudi").load(path).rdd.getNumPartitions() == 8  # one file per split


def test_split_sizing_reads_the_session_s_file_split_settings(spark: Any) -> None:
    assert spark_session() is spark  # the running session, registered again with its own sizing
    assert split_sizing(spark) == SplitSizing(
        max_split_bytes=128 * 1024 * 1024, open_cost_bytes=4 * 1024 * 1024, min_splits=2
    )
