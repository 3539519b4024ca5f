"""Spark reads with ``filter.pushdown``: files and row groups whose statistics exclude the pushed
filters are not decoded (their data pages are damaged here, so decoding them would fail)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

pytestmark = pytest.mark.spark
SEPARATE_FILES = HudiSettings.from_hoodie_options({"hoodie.parquet.small.file.limit": "0"}, env=False)


def _table(path: Path) -> list[Path]:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(str(path), config), SEPARATE_FILES)
    for k in range(4):
        client.insert(pa.table({"id": [f"k{k}-{i}" for i in range(20)], "city": ["sf"] * 20,
                                "ts": pa.array([100 * k + i for i in range(20)], pa.int64())}))  # fmt: skip
    return sorted((path / "sf").glob("*.parquet"))


def _damage_data_pages(file: Path) -> None:
    """Zero everything between the leading magic and the footer: the footer (statistics) still reads."""
    data = bytearray(file.read_bytes())
    footer = int.from_bytes(data[-8:-4], "little") + 8
    data[4 : len(data) - footer] = bytes(len(data) - footer - 4)
    file.write_bytes(bytes(data))


def test_pushed_filters_skip_files_by_statistics(spark: Any, tmp_path: Path) -> None:
    files = _table(tmp_path / "t")
    assert len(files) == 4
    kept = [f for f in files if pq.read_table(f, columns=["ts"]).column("ts")[0].as_py() // 100 == 2]
    assert len(kept) == 1
    for f in files:
        if f not in kept:
            _damage_data_pages(f)
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:

        def reader() -> Any:  # a DataFrameReader's option() changes it: one per query
            return spark.read.format("hudi").option("data.skipping.source", "parquet_footers")

        pushed = reader().option("filter.pushdown", "true").load(str(tmp_path / "t")).filter("ts >= 205 AND ts < 208")
        got = sorted(tuple(r) for r in pushed.select("id", "ts").collect())
        assert got == [("k2-5", 205), ("k2-6", 206), ("k2-7", 207)]
        # The same query without pushdown decodes every file: the damaged ones fail.
        plain = reader().load(str(tmp_path / "t")).filter("ts >= 205 AND ts < 208")
        with pytest.raises(Exception, match=r"CorruptDataFileError"):
            plain.collect()
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
