"""Spark reads with ``filter.pushdown`` skip files by the column statistics our writer keeps in the
metadata table: the files the statistics rule out have damaged data pages, so decoding them would fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.spark.test_data_skipping import _damage_data_pages

pytestmark = pytest.mark.spark
OURS = HudiSettings.from_hoodie_options(
    {"hoodie.parquet.small.file.limit": "0", "hoodie.metadata.enable": "true"}, env=False
)


def test_pushed_filters_skip_files_by_our_metadata_table_statistics(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(str(path), config), OURS)
    for k in range(4):
        client.insert(pa.table({"id": [f"k{k}-{i}" for i in range(20)], "city": ["sf"] * 20,
                                "ts": pa.array([100 * k + i for i in range(20)], pa.int64())}))  # fmt: skip
    table = HudiTable.open(str(path))
    assert "column_stats" in table.config.metadata_partitions
    files = sorted((path / "sf").glob("*.parquet"))
    assert len(files) == 4
    written_second = table.timeline.completed()[2].requested_time  # ts 200..219
    for f in files:
        if written_second not in f.name:
            _damage_data_pages(f)
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:

        def reader() -> Any:
            return spark.read.format("hudi").option("data.skipping.source", "metadata_table")

        pushed = reader().option("filter.pushdown", "true").load(str(path)).filter("ts >= 205 AND ts < 208")
        got = sorted(tuple(r) for r in pushed.select("id", "ts").collect())
        assert got == [("k2-5", 205), ("k2-6", 206), ("k2-7", 207)]
        plain = reader().load(str(path)).filter("ts >= 205 AND ts < 208")
        with pytest.raises(Exception, match=r"CorruptDataFileError"):
            plain.collect()
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
