"""When ``format("hudi")`` plans a read: at ``load()``, in the schema's planner process, from the
timeline the schema came from; a later action on the same DataFrame reads the same files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

pytestmark = pytest.mark.spark


def _rows(keys: range, ts: int) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{i}" for i in keys],
            "city": [("sf", "ny")[i % 2] for i in keys],
            "ts": [ts] * len(keys),
            "v": [float(i) for i in keys],
        }
    )


def test_a_dataframe_reads_the_table_as_of_its_load(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    config = new_table_config("trips", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    settings = HudiSettings.from_hoodie_options({}, env=False)
    WriteClient(HudiTable.create(path, config, schema=_rows(range(1), 1).schema), settings).upsert(_rows(range(40), 1))

    loaded = spark.read.format("hudi").load(path)
    WriteClient(HudiTable.open(path), settings).upsert(_rows(range(30, 70), 2))

    # The files of the instant whose schema the DataFrame has, at every action (as spark.read.parquet).
    assert loaded.count() == 40
    assert sorted(r.ts for r in loaded.select("ts").distinct().collect()) == [1]
    assert spark.read.format("hudi").load(path).count() == 70


def test_a_pushdown_read_plans_at_each_action(spark: Any, tmp_path: Path) -> None:
    """With ``filter.pushdown`` Spark's filters reach only the reader: the read is planned there."""
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        path = str(tmp_path / "trips")
        config = new_table_config("trips", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
        settings = HudiSettings.from_hoodie_options({}, env=False)
        table = HudiTable.create(path, config, schema=_rows(range(1), 1).schema)
        WriteClient(table, settings).upsert(_rows(range(40), 1))

        loaded = spark.read.format("hudi").option("filter.pushdown", "true").load(path).filter("city = 'sf'")
        assert loaded.count() == 20
        WriteClient(HudiTable.open(path), settings).upsert(_rows(range(40, 60), 2))
        assert loaded.count() == 30
    finally:
        spark.conf.unset("spark.sql.python.filterPushdown.enabled")
