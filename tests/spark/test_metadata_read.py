"""``hoodie.metadata.enable`` through ``spark.read.format("hudi")``: both values read Apache Hudi's
tables right; on writes the option is still refused unless false (our writers do not keep the MDT)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

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


def test_metadata_enable_true_is_refused_on_writes(spark: Any, tmp_path: Path) -> None:
    df = spark.createDataFrame([("k1", "p", 1)], "id string, part string, ts long")
    writer = (
        df.write.format("hudi")
        .option("hoodie.table.name", "t")
        .option("hoodie.datasource.write.recordkey.field", "id")
        .option("hoodie.datasource.write.partitionpath.field", "part")
        .option("hoodie.datasource.write.precombine.field", "ts")
        .option("hoodie.metadata.enable", "true")
        .mode("append")
    )
    with pytest.raises(Exception, match=r"hoodie\.metadata\.enable"):
        writer.save(str(tmp_path / "t"))
