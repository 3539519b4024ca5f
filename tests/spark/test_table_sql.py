"""SQL over ``hudi`` tables, as far as PySpark lets a Python data source take part (docs/spark.md,
"SQL"): temporary views read and insert; catalog tables and row-level SQL are refused, saying why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark import HudiSparkTable
from hudi_framework.table.table_config import new_table_config

pytestmark = pytest.mark.spark


def _table(spark: Any, tmp_path: Path) -> str:
    path = str(tmp_path / "t")
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    HudiTable.create(path, config)
    rows = pa.table({"id": ["a", "b"], "city": ["sf", "ny"], "ts": pa.array([1, 1], pa.int64()), "v": [1.0, 2.0]})
    HudiSparkTable.for_path(spark, path).upsert(spark.createDataFrame(rows))
    return path


def _hudi_rs(path: str) -> list[tuple[str, float]]:
    table = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(path).build().read())
    return sorted((r["id"], r["v"]) for r in table.select(["id", "v"]).to_pylist())


def test_a_temporary_view_selects_and_inserts(spark: Any, tmp_path: Path) -> None:
    path = _table(spark, tmp_path)
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW orders USING hudi OPTIONS (path '{path}')")
    assert sorted(tuple(r) for r in spark.sql("SELECT id, v FROM orders WHERE v > 0").collect()) == [
        ("a", 1.0),
        ("b", 2.0),
    ]
    commits = len(HudiTable.open(path).timeline.completed())
    spark.sql("INSERT INTO orders (id, city, ts, v) VALUES ('a', 'sf', 2, 10.0), ('c', 'la', 2, 3.0)")
    assert len(HudiTable.open(path).timeline.completed()) == commits + 1  # one upsert commit
    assert _hudi_rs(path) == [("a", 10.0), ("b", 2.0), ("c", 3.0)]
    # The view pins the snapshot it was created on, as a DataFrame does; re-create it to see new commits.
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW orders USING hudi OPTIONS (path '{path}')")
    assert spark.sql("SELECT count(*) AS n FROM orders").first()["n"] == 3


def test_catalog_tables_and_row_level_sql_are_refused_saying_why(spark: Any, tmp_path: Path) -> None:
    path = _table(spark, tmp_path)
    spark.sql(f"CREATE TABLE hudi_catalog_t USING hudi LOCATION '{path}'")
    try:
        described = {r["col_name"] for r in spark.sql("DESCRIBE TABLE hudi_catalog_t").collect()}
        assert {"id", "city", "ts", "v", "_hoodie_record_key"} <= described
        with pytest.raises(Exception, match="TEMPORARY VIEW"):
            spark.sql("SELECT * FROM hudi_catalog_t").collect()
        spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW hudi_view_t USING hudi OPTIONS (path '{path}')")
        for statement in (
            "UPDATE hudi_view_t SET v = 0 WHERE id = 'a'",
            "DELETE FROM hudi_view_t WHERE id = 'a'",
            "MERGE INTO hudi_view_t t USING (SELECT 'a' AS id) s ON t.id = s.id WHEN MATCHED THEN DELETE",
        ):
            with pytest.raises(Exception, match=r"(?i)not supported|does not support"):
                spark.sql(statement)
    finally:
        spark.sql("DROP TABLE IF EXISTS hudi_catalog_t")
    assert _hudi_rs(path) == [("a", 1.0), ("b", 2.0)]
