"""``spark.read.format("hudi")`` and ``df.write.format("hudi")`` without any registration call."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.fixture_tables import FixtureTable, all_fixture_tables

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "shared" / "tools"))
from hudi_rs_check import canonical_hash

pytestmark = pytest.mark.spark
Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
COW = [t for t in all_fixture_tables() if t.id.startswith("cow/") and not t.is_lance]


@pytest.mark.parametrize("fixture", COW[:6], ids=[t.id for t in COW[:6]])
def test_read_fixture_equals_gold(spark: Any, fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, gold = extract_fixture(fixture)
    assert gold is not None
    df = spark.read.format("hudi").load(str(base))
    ours = df.toArrow()
    expected = pq.read_table(gold)
    assert ours.num_rows == expected.num_rows
    assert canonical_hash(ours) == canonical_hash(expected)


def test_write_then_read_round_trip(spark: Any, tmp_path: Path) -> None:
    path = str(tmp_path / "trips")
    opts = {
        "hoodie.table.name": "trips",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": "upsert",
    }
    first = spark.createDataFrame(
        pa.table({"id": ["a", "b", "c"], "city": ["sf", "sf", "ny"], "ts": [1, 1, 1], "v": [1.0, 2.0, 3.0]})
    )
    first.write.format("hudi").options(**opts).mode("append").save(path)
    second = spark.createDataFrame(pa.table({"id": ["a", "d"], "city": ["sf", "la"], "ts": [2, 1], "v": [9.0, 4.0]}))
    second.write.format("hudi").options(**opts).mode("append").save(path)

    rows = spark.read.format("hudi").load(path).select("id", "city", "ts", "v").orderBy("id").collect()
    assert [tuple(r) for r in rows] == [
        ("a", "sf", 2, 9.0),
        ("b", "sf", 1, 2.0),
        ("c", "ny", 1, 3.0),
        ("d", "la", 1, 4.0),
    ]
    rs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(path).build().read())
    assert sorted(rs.column("id").to_pylist()) == ["a", "b", "c", "d"]
    assert not list((tmp_path / "trips" / ".hoodie" / ".temp").rglob("*.parquet"))
