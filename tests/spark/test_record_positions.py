"""``hoodie.merge.use.record.positions`` through ``spark.read.format("hudi")``: a merge-on-read table whose
logs carry record positions reads the same merged by position (on the Python workers) as by key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, read_table
from hudi_framework.log import DataBlock, read_log_file
from hudi_framework.log.blocks import HeaderKey

SCHEMA = pa.schema([("id", pa.string()), ("part", pa.string()), ("ts", pa.int64()), ("v", pa.int64())])


def _rows(ids: np.ndarray, ts: int) -> pa.Table:
    return pa.table(
        {"id": [f"k{i:05d}" for i in ids], "part": [f"p{i % 2}" for i in ids],
         "ts": pa.array(np.full(len(ids), ts, dtype=np.int64)), "v": pa.array(ids * 10 + ts)},
        schema=SCHEMA,
    )  # fmt: skip


def _sorted(table: pa.Table) -> pa.Table:
    return table.select(["_hoodie_record_key", "_hoodie_commit_time", "id", "part", "ts", "v"]).sort_by("id")


def test_spark_reads_merge_by_position(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    config = new_table_config(
        "t", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["part"], ordering_fields=["ts"]
    )
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.write.record.positions": "true", "hoodie.parquet.small.file.limit": "0"}, env=False
    )
    client = WriteClient(HudiTable.create(path, config, schema=SCHEMA), settings)
    client.bulk_insert(_rows(np.arange(2_000), 1))
    client.upsert(_rows(np.arange(0, 2_000, 3), 2))
    table = HudiTable.open(path)
    logs = [k for s in table.file_system_view().latest_file_slices() for k in s.log_file_keys]
    blocks = [b for k in logs for b in read_log_file(table.storage, k) if isinstance(b, DataBlock)]
    assert blocks
    assert all(HeaderKey.RECORD_POSITIONS in b.header for b in blocks)
    expected = _sorted(read_table(table))
    for flag in ("true", "false"):
        df = spark.read.format("hudi").option("hoodie.merge.use.record.positions", flag).load(path)
        assert _sorted(df.toArrow()).equals(expected), flag
