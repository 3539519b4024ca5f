"""Spark reads with ``filter.pushdown`` prune partitions by the metadata table's ``partition_stats``:
the files of the partitions the statistics rule out have damaged data pages, so reading them would
fail, and the rows equal those of the Python API's read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.read.reader import build_options, plan_read, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.spark.test_data_skipping import _damage_data_pages
from tests.spark.test_metadata_stats_pushdown import OURS

pytestmark = pytest.mark.spark


def test_pushed_filters_prune_partitions_by_partition_stats(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["region"], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(str(path), config), OURS)
    rows = [(f"r{r}-{i}", f"r{r}", 1000 * r + i) for r in range(4) for i in range(10)]
    client.insert(pa.table({"id": [r[0] for r in rows], "region": [r[1] for r in rows],
                            "ts": pa.array([r[2] for r in rows], pa.int64())}))  # fmt: skip
    table = HudiTable.open(str(path))
    filters = [("ts", ">=", 2003), ("ts", "<", 2006)]
    assert plan_read(table, build_options(filters=filters)).skipping.partitions_pruned_by_stats == 3
    expected = sorted(tuple(r.values()) for r in read_table(table, filters=filters, columns=["id", "ts"]).to_pylist())
    assert expected == [("r2-3", 2003), ("r2-4", 2004), ("r2-5", 2005)]
    for region in ("r0", "r1", "r3"):
        for f in (path / region).glob("*.parquet"):
            _damage_data_pages(f)
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        pushed = spark.read.format("hudi").option("filter.pushdown", "true").load(str(path))
        got = sorted(tuple(r) for r in pushed.filter("ts >= 2003 AND ts < 2006").select("id", "ts").collect())
        assert got == expected
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
