"""Data skipping with the metadata table's ``column_stats`` (the default statistics source), on the
v9 fixture tables Apache Hudi wrote: filtered reads skip files the statistics rule out and return
exactly the rows of the gold read that pass the filter; an out-of-sync metadata table skips nothing."""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.read import read_table
from hudi_framework.read.reader import build_options, plan_read
from hudi_framework.runtime.table import HudiTable
from tests.acceptance.test_metadata_table_read import READABLE, _gold, _rows
from tests.fixture_tables import FixtureTable

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]

WITH_STATS = [t for t in READABLE if not t.id.startswith("mor/")]
#: The columns filtered on, when a fixture has them (strings and numbers, as Apache Hudi indexes them).
_CANDIDATES = ("txn_id", "id", "name", "amount", "price", "ts", "event_time", "quantity")


def _filter_cases(table: HudiTable, gold: pa.Table) -> list[tuple[str, object]]:
    """(column, value) pairs: indexed columns, each with the median of its values in the gold read."""
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    indexed = set(mdt.column_stats().column("column_name").to_pylist())
    cases = []
    for column in _CANDIDATES:
        if column in indexed and column in gold.column_names:
            values = sorted(v for v in gold.column(column).to_pylist() if v is not None)
            if values:
                cases.append((column, values[len(values) // 2]))
    return cases


@pytest.mark.parametrize("fixture", WITH_STATS, ids=[t.id for t in WITH_STATS])
def test_filtered_reads_skip_files_by_column_stats_and_equal_the_gold_rows(
    fixture: FixtureTable, extract_fixture: Extract
) -> None:
    base, gold_dir = extract_fixture(fixture)
    assert gold_dir is not None
    table = HudiTable.open(str(base))
    if "column_stats" not in table.properties.get("hoodie.table.metadata.partitions", ""):
        pytest.skip(f"{fixture.id} has no column_stats partition")
    gold = _gold(gold_dir)
    cases = _filter_cases(table, gold)
    assert cases, "no indexed column to filter on"
    matched = 0
    for column, value in cases:
        filters = [(column, "=", value)]
        plan = plan_read(table, build_options(filters=filters))
        assert plan.skipping.stats_source == "metadata_table"
        expected = gold.filter(pc.equal(gold.column(column), pa.scalar(value, gold.schema.field(column).type)))
        ours = read_table(table, filters=filters)
        assert ours.num_rows == expected.num_rows
        matched += ours.num_rows
        assert _rows(ours) == _rows(expected.select(ours.column_names))
        # The same read listing storage and skipping nothing gives the same rows.
        plain = read_table(table, filters=filters, options={"hoodie.enable.data.skipping": "false"})
        assert _rows(plain) == _rows(ours)
    assert matched > 0


def test_some_fixture_skips_files_by_column_stats(extract_fixture: Extract) -> None:
    skipped = 0
    for fixture in WITH_STATS:
        base, gold_dir = extract_fixture(fixture)
        assert gold_dir is not None
        table = HudiTable.open(str(base))
        if "column_stats" not in table.properties.get("hoodie.table.metadata.partitions", ""):
            continue
        for column, value in _filter_cases(table, _gold(gold_dir)):
            plan = plan_read(table, build_options(filters=[(column, "=", value)]))
            skipped += plan.skipping.files_skipped
    assert skipped > 0


def test_an_out_of_sync_metadata_table_skips_nothing(
    extract_fixture: Extract, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    fixture = next(t for t in WITH_STATS if "txns_simple_meta" in t.id)
    shared, gold_dir = extract_fixture(fixture)
    assert gold_dir is not None
    base = tmp_path / shared.name  # the extracted fixture is shared by every test: damage a copy
    shutil.copytree(shared, base)
    table = HudiTable.open(str(base))
    gold = _gold(gold_dir)
    column, value = _filter_cases(table, gold)[0]
    # The MDT's delta commit of the latest data commit is gone: it no longer has every data instant.
    data_commits = [p.name for p in (base / ".hoodie" / "timeline").iterdir() if p.name.endswith(".commit")]
    latest = max(data_commits).split("_")[0]
    timeline = base / ".hoodie" / "metadata" / ".hoodie" / "timeline"
    (done,) = [p for p in timeline.iterdir() if p.name.startswith(f"{latest}_") and p.name.endswith(".deltacommit")]
    done.unlink()
    table = HudiTable.open(str(base))
    with caplog.at_level(logging.WARNING):
        plan = plan_read(table, build_options(filters=[(column, "=", value)]))
    assert plan.skipping.stats_source is None
    assert plan.skipping.files_skipped == 0
    assert any("metadata table" in r.getMessage() for r in caplog.records)
    expected = gold.filter(pc.equal(gold.column(column), pa.scalar(value, gold.schema.field(column).type)))
    ours = read_table(HudiTable.open(str(base)), filters=[(column, "=", value)])
    assert _rows(ours) == _rows(expected.select(ours.column_names))
