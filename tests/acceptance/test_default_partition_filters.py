"""Filters on a partition column find every row of the default partition.

``__HIVE_DEFAULT_PARTITION__`` holds the rows whose value is null, empty, or that very string (Apache
Hudi writes all three there), so partition pruning may not take it for a partition of nulls only.
Every filter result is compared with the same filter applied to an unfiltered read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.read.filters import normalize_filters, to_expression
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

DEFAULT = "__HIVE_DEFAULT_PARTITION__"

FILTERS: list[Any] = [
    [("city", "=", DEFAULT)],
    [("city", "=", "")],
    [("city", "is null")],
    [("city", "is not null")],
    [("city", "!=", "sf")],
    [("city", "!=", DEFAULT)],
    [("city", "in", [DEFAULT, "sf"])],
    [("city", "not in", ["sf"])],
    [("city", "starts with", "__")],
    [("city", ">", "a")],
    [("city", "<", "a")],
    [[("city", "is null")], [("city", "=", "ny")]],
    [("city", "=", DEFAULT), ("kind", "=", "x")],
    [("kind", "is null")],
    [("kind", "=", DEFAULT)],
    [("kind", "=", "")],
    [("kind", "is not null"), ("city", "is not null")],
]


def _table(path: Path, *, hive: bool, url: bool) -> HudiTable:
    config = new_table_config(
        "t",
        record_key_fields=["id"],
        partition_fields=["city", "kind"],
        ordering_fields=["ts"],
        key_generator_type="COMPLEX",
        hive_style_partitioning=hive,
        url_encode_partitions=url,
    )
    table = HudiTable.create(str(path), config)
    cities = [None, "", DEFAULT, "sf", "ny", DEFAULT, None]
    kinds = ["x", DEFAULT, None, "", "x", "x", ""]
    data = pa.table(
        {"id": [f"k{i}" for i in range(len(cities))], "city": cities, "kind": kinds, "ts": list(range(len(cities)))}
    )
    WriteClient(table).upsert(data)
    return table.reload()


def _ids(table: pa.Table) -> list[str]:
    return sorted(table.column("id").to_pylist())


@pytest.mark.parametrize(
    ("hive", "url"), [(False, False), (True, False), (True, True)], ids=["plain", "hive", "hive-url"]
)
def test_filters_on_default_partition_values(hive: bool, url: bool, tmp_path: Path) -> None:
    table = _table(tmp_path / "t", hive=hive, url=url)
    everything = read_table(table)
    assert everything.num_rows == 7
    for filters in FILTERS:
        expression = to_expression(normalize_filters(filters), everything.schema)
        expected = _ids(everything.filter(expression))
        got = _ids(read_table(table, filters=filters))
        assert got == expected, filters
    # The reviewer's case, spelled out.
    assert _ids(read_table(table, filters=[("city", "=", DEFAULT)])) == ["k2", "k5"]
    assert _ids(read_table(table, filters=[("city", "is null")])) == ["k0", "k6"]


@pytest.mark.spark
def test_spark_pushed_filters_on_default_partition_values(spark: Any, tmp_path: Path) -> None:
    path = tmp_path / "t"
    _table(path, hive=False, url=False)
    queries = [
        f"city = '{DEFAULT}'",
        "city = ''",
        "city IS NULL",
        "city IS NOT NULL",
        f"city IN ('{DEFAULT}', 'sf')",
        "city <> 'sf'",
        "city LIKE '\\_\\_%'",
    ]
    plain = spark.read.format("hudi").load(str(path))
    expected = {q: sorted(r.id for r in plain.filter(q).select("id").collect()) for q in queries}
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    try:
        pushed = spark.read.format("hudi").option("filter.pushdown", "true").load(str(path))
        got = {q: sorted(r.id for r in pushed.filter(q).select("id").collect()) for q in queries}
    finally:
        spark.conf.set("spark.sql.python.filterPushdown.enabled", "false")
    assert got == expected
    assert got[f"city = '{DEFAULT}'"] == ["k2", "k5"]
    assert got["city IS NULL"] == ["k0", "k6"]
    # The plain read filters after the scan: it is the truth for the pushed one.
    whole = read_table(HudiTable.open(str(path)))
    assert expected["city = ''"] == _ids(whole.filter(pc.equal(whole.column("city"), "")))
