"""``hoodie.metadata.enable`` through ``spark.read.format("hudi")``: both values read Apache Hudi's
tables right; on writes (``df.write`` and ``SparkWriteClient``) ``true``, the default, keeps the
metadata table in step with every commit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.write_engine import SparkWriteClient
from hudi_framework.table.table_config import new_table_config
from tests.acceptance.test_metadata_table_write import MDT_ON, check_mdt
from tests.compat.test_read_fixtures import _hash
from tests.fixture_tables import FixtureTable, all_fixture_tables

pytestmark = pytest.mark.spark
Extract = Callable[[FixtureTable], tuple[Path, Path | None]]


@pytest.mark.parametrize("enabled", ["true", "false"])
def test_metadata_enable_on_spark_reads(spark: Any, extract_fixture: Extract, enabled: str) -> None:
    fixture = next(t for t in all_fixture_tables() if t.id == "mor/avro/v9_txns_simple_meta")
    base, gold = extract_fixture(fixture)
    assert gold is not None
    ours = spark.read.format("hudi").option("hoodie.metadata.enable", enabled).load(str(base)).toArrow()
    expected = pa.concat_tables([pq.read_table(p) for p in sorted(gold.glob("*.parquet"))])
    assert _hash(ours) == _hash(expected)


@pytest.mark.parametrize("given", [True, False], ids=["given", "default"])
def test_df_write_with_metadata_enable_keeps_the_mdt(
    spark: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture, given: bool
) -> None:
    path = tmp_path / "t"

    def write(rows: list[tuple[str, str, int]]) -> None:
        df = spark.createDataFrame(rows, "id string, city string, ts long")
        writer = (
            df.write.format("hudi")
            .option("hoodie.table.name", "t")
            .option("hoodie.datasource.write.recordkey.field", "id")
            .option("hoodie.datasource.write.partitionpath.field", "city")
            .option("hoodie.datasource.write.precombine.field", "ts")
        )
        if given:
            writer = writer.option("hoodie.metadata.enable", "true")
        writer.mode("append").save(str(path))

    # Column statistics are on by default with the metadata table.
    kept = ("column_stats", "files", "partition_stats")
    write([("a", "sf", 1), ("x", "ny", 1)])
    assert check_mdt(path, caplog, kept) == [("a", "sf", 1), ("x", "ny", 1)]
    write([("a", "sf", 2), ("b", "la", 1)])
    assert check_mdt(path, caplog, kept) == [("a", "sf", 2), ("b", "la", 1), ("x", "ny", 1)]


@pytest.mark.parametrize("given", [True, False], ids=["given", "default"])
def test_spark_write_client_with_metadata_enable_keeps_the_mdt(
    spark: Any, tmp_path: Path, caplog: pytest.LogCaptureFixture, given: bool
) -> None:
    path = tmp_path / "t"
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    settings = HudiSettings.from_hoodie_options(MDT_ON if given else {}, env=False)
    client = SparkWriteClient(HudiTable.create(str(path), config), settings, spark)
    client.insert(spark.createDataFrame([("a", "sf", 1), ("x", "ny", 1)], "id string, city string, ts long"))
    client.upsert(spark.createDataFrame([("a", "sf", 2)], "id string, city string, ts long"))
    # The default keeps the column and partition statistics too (Apache Hudi's Spark default).
    kept = ("files",) if given else ("column_stats", "files", "partition_stats")
    assert check_mdt(path, caplog, kept) == [("a", "sf", 2), ("x", "ny", 1)]
