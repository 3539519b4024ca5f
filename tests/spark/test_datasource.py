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

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from hudi_rs_check import canonical_hash

pytestmark = pytest.mark.spark
Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
COW = [t for t in all_fixture_tables() if t.id.startswith("cow/") and not t.is_lance]


@pytest.mark.parametrize("fixture", COW, ids=[t.id for t in COW])
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


def _sql_fixture(extract_fixture: Extract, fixture_id: str) -> Path:
    fixture = next(t for t in all_fixture_tables() if t.id == fixture_id)
    base, _ = extract_fixture(fixture)
    return base


def test_delete_partition_drops_the_partitions_of_the_rows(spark: Any, tmp_path: Path) -> None:
    """``hoodie.datasource.write.operation=delete_partition``: as Apache Hudi's Spark writer without
    ``hoodie.datasource.write.partitions.to.delete``, the partitions of the DataFrame's rows go."""
    path = str(tmp_path / "trips")
    opts = _opts()
    rows = pa.table({"id": ["a", "b", "c"], "city": ["sf", "sf", "ny"], "ts": [1, 1, 1]})
    spark.createDataFrame(rows).write.format("hudi").options(**opts).mode("append").save(path)
    drop = spark.createDataFrame(pa.table({"id": ["x"], "city": ["sf"], "ts": [9]}))
    drop.write.format("hudi").options(**opts).option("hoodie.datasource.write.operation", "delete_partition").mode(
        "append"
    ).save(path)
    left = spark.read.format("hudi").load(path).select("id", "city").collect()
    assert [tuple(r) for r in left] == [("c", "ny")]


def test_partitions_to_delete_names_the_partitions_dropped(spark: Any, tmp_path: Path) -> None:
    """With ``hoodie.datasource.write.partitions.to.delete`` (``*`` a wildcard) the DataFrame's rows
    are not looked at, as in Apache Hudi's Spark writer."""
    path = str(tmp_path / "trips")
    opts = _opts()
    rows = pa.table({"id": ["a", "b", "c"], "city": ["sf", "sj", "ny"], "ts": [1, 1, 1]})
    spark.createDataFrame(rows).write.format("hudi").options(**opts).mode("append").save(path)
    named = spark.createDataFrame(pa.table({"id": ["x"], "city": ["ny"], "ts": [9]}))
    named.write.format("hudi").options(**opts).option("hoodie.datasource.write.operation", "delete_partition").option(
        "hoodie.datasource.write.partitions.to.delete", "s*"
    ).mode("append").save(path)
    left = spark.read.format("hudi").load(path).select("id", "city").collect()
    assert [tuple(r) for r in left] == [("c", "ny")]


def test_partition_filter_pushdown(spark: Any, extract_fixture: Extract) -> None:
    base = _sql_fixture(extract_fixture, "cow/v9_txns_simple_meta")
    plain = spark.read.format("hudi").load(str(base)).filter("region = 'us'")
    expected = sorted(tuple(r) for r in plain.select("txn_id", "region").collect())
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        pushed = spark.read.format("hudi").option("filter.pushdown", "true").load(str(base)).filter("region = 'us'")
        got = sorted(tuple(r) for r in pushed.select("txn_id", "region").collect())
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
    assert got == expected
    assert got
    assert {r[1] for r in got} == {"us"}


def test_time_travel_and_incremental_options_match_hudi_rs(spark: Any, extract_fixture: Extract) -> None:
    base = _sql_fixture(extract_fixture, "cow/v9_txns_simple_meta")
    from hudi_framework.runtime.table import HudiTable

    commits = HudiTable.open(str(base)).timeline.commits_timeline()
    first, second = commits[0], commits[1]
    rs = hudi.HudiTableBuilder.from_base_uri(str(base)).build()

    travelled = spark.read.format("hudi").option("as.of.instant", first.requested_time).load(str(base)).toArrow()
    theirs = pa.Table.from_batches(rs.read(hudi.HudiReadOptions().with_as_of_timestamp(first.requested_time)))
    assert canonical_hash(travelled) == canonical_hash(theirs)

    incremental = (
        spark.read.format("hudi")
        .option("hoodie.datasource.query.type", "incremental")
        .option("hoodie.datasource.read.begin.instanttime", first.completion_time)
        .option("hoodie.datasource.read.end.instanttime", second.completion_time)
        .load(str(base))
        .toArrow()
    )
    assert incremental.num_rows > 0
    assert set(incremental.column("_hoodie_commit_time").to_pylist()) == {second.requested_time}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _opts() -> dict[str, str]:
    return {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
    }


def test_unknown_option_and_failed_task_leave_the_table_unchanged(spark: Any, tmp_path: Path) -> None:
    from pyspark.sql import functions as F  # noqa: N812
    from pyspark.sql.types import LongType

    path = tmp_path / "t"
    seed = spark.createDataFrame(pa.table({"id": ["a", "b"], "city": ["sf", "ny"], "ts": [1, 1], "v": [1.0, 2.0]}))
    seed.write.format("hudi").options(**_opts()).mode("append").save(str(path))
    before = _tree(path)

    with pytest.raises(Exception, match="did you mean"):
        seed.write.format("hudi").options(**_opts()).option("hoodie.datasource.write.recordkey.feild", "id").mode(
            "append"
        ).save(str(path))
    assert _tree(path) == before

    @F.udf(returnType=LongType())  # type: ignore[untyped-decorator]
    def explode_on_c(key):  # type: ignore[no-untyped-def]  # no hints: Spark would infer an Arrow UDF
        if key == "c":
            raise RuntimeError("injected task failure")
        return 2

    batch = spark.createDataFrame(
        pa.table({"id": ["a", "b", "c", "d"], "city": ["sf", "ny", "la", "sf"], "ts": [0, 0, 0, 0], "v": [5.0] * 4})
    ).repartition(2, "id")
    failing = batch.withColumn("ts", explode_on_c("id"))
    with pytest.raises(Exception, match="injected task failure"):
        failing.write.format("hudi").options(**_opts()).mode("append").save(str(path))
    after = _tree(path)
    assert {k: after.get(k) for k in before} == before
    # A straggling task (Spark aborts without awaiting the tasks it stops) may have staged rows in
    # .hoodie/.temp after the abort; the next write sweeps them.
    stragglers = set(after) - set(before)
    assert all(k.startswith(".hoodie/.temp/") for k in stragglers)
    seed.write.format("hudi").options(**_opts()).mode("append").save(str(path))
    assert not stragglers & set(_tree(path))
