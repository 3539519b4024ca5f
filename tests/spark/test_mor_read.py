"""Merge-on-read fixtures through ``spark.read.format("hudi")``: snapshot, read-optimized, incremental."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from tests.compat.test_read_fixtures import _bounds, _hash
from tests.fixture_tables import FixtureTable, all_fixture_tables

pytestmark = pytest.mark.spark
Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
MOR_ALL = [t for t in all_fixture_tables() if t.id.startswith("mor/")]
MOR = [t for t in MOR_ALL if not t.is_lance]


def _by_id(fixture_id: str) -> FixtureTable:
    return next(t for t in MOR if t.id == fixture_id)


@pytest.mark.parametrize("fixture", MOR, ids=[t.id for t in MOR])
def test_snapshot_equals_gold(spark: Any, fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, gold = extract_fixture(fixture)
    assert gold is not None
    ours = spark.read.format("hudi").option("hoodie.datasource.query.type", "snapshot").load(str(base)).toArrow()
    expected = pa.concat_tables([pq.read_table(p) for p in sorted(gold.glob("*.parquet"))])
    assert ours.num_rows == expected.num_rows
    assert _hash(ours) == _hash(expected)


def test_read_optimized_and_spilled_merges(spark: Any, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(_by_id("mor/parquet/v6_nonpartitioned_rollback"))
    table = HudiTable.open(str(base))
    reader = spark.read.format("hudi")
    optimized = reader.option("hoodie.datasource.query.type", "read_optimized").load(str(base)).toArrow()
    assert _hash(optimized) == _hash(read_table(table, query_type="read_optimized"))
    spilled = spark.read.format("hudi").option("hoodie.memory.merge.max.size", "1").load(str(base)).toArrow()
    assert _hash(spilled) == _hash(read_table(table))
    assert _hash(spilled) != _hash(optimized)  # the log files changed the table


def test_incremental_windows(spark: Any, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(_by_id("mor/avro/v9_txns_simple_meta"))
    table = HudiTable.open(str(base))
    bounds = _bounds(table)
    for begin, end in list(itertools.pairwise(bounds))[:4]:
        df = (
            spark.read.format("hudi")
            .option("hoodie.datasource.query.type", "incremental")
            .option("hoodie.datasource.read.begin.instanttime", begin)
            .option("hoodie.datasource.read.end.instanttime", end)
            .load(str(base))
        )
        ours = df.toArrow()
        expected = read_table(table, query_type="incremental", begin=begin, end=end)
        assert ours.num_rows == expected.num_rows
        if expected.num_rows:
            assert _hash(ours) == _hash(expected)


@pytest.mark.parametrize("fixture", [t for t in MOR_ALL if t.is_lance], ids=lambda t: t.id)
def test_lance_is_refused(spark: Any, fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    with pytest.raises(Exception, match=r"(?i)lance"):
        spark.read.format("hudi").load(str(base)).toArrow()
