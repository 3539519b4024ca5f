"""Partition pruning by ``partition_stats`` on the fixture tables Apache Hudi wrote (table version 9,
copy-on-write and merge-on-read): filters on data columns prune partitions by Apache Hudi's partition
statistics, and every filtered read returns exactly the gold read's rows that pass the filter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.read import read_table
from hudi_framework.read.reader import build_options, plan_read
from hudi_framework.runtime.table import HudiTable
from tests.acceptance.test_metadata_table_read import READABLE, _gold, _rows
from tests.fixture_tables import FixtureTable

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
#: Data columns filtered on, when a fixture has them.
_COLUMNS = ("txn_id", "amount", "txn_date", "txn_ts")


def _partition_stats_tables() -> list[FixtureTable]:
    return [t for t in READABLE if "txns_simple" in t.id or "txns_complex" in t.id]


def _values(gold: pa.Table, column: str) -> list[Any]:
    values = sorted({v for v in gold.column(column).to_pylist() if v is not None})
    return [values[0], values[len(values) // 2]] if values else []


@pytest.mark.parametrize("fixture", _partition_stats_tables(), ids=[t.id for t in _partition_stats_tables()])
def test_filtered_reads_prune_partitions_and_equal_the_gold_rows(
    fixture: FixtureTable, extract_fixture: Extract
) -> None:
    base, gold_dir = extract_fixture(fixture)
    assert gold_dir is not None
    table = HudiTable.open(str(base))
    if "partition_stats" not in table.config.metadata_partitions:
        pytest.skip(f"{fixture.id} has no partition_stats partition")
    gold = _gold(gold_dir)
    pruned = 0
    for column in (c for c in _COLUMNS if c in gold.column_names):
        typ = gold.schema.field(column).type
        for value in _values(gold, column):
            for op, compare in (("=", pc.equal), (">", pc.greater)):
                filters = [(column, op, value)]
                plan = plan_read(table, build_options(filters=filters))
                pruned += plan.skipping.partitions_pruned_by_stats
                expected = gold.filter(pc.fill_null(compare(gold.column(column), pa.scalar(value, typ)), False))
                ours = read_table(table, filters=filters)
                assert _rows(ours) == _rows(expected.select(ours.column_names)), (column, op, value)
    assert pruned > 0  # each of these tables has partitions the statistics tell apart
