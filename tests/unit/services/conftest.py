"""Writable copies of Apache Hudi's merge-on-read fixture tables, and hudi-rs snapshots of them."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import hudi
import pyarrow as pa
import pytest

from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.properties import update_properties
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
CopyTable = Callable[[str], Path]

#: Merge-on-read fixtures whose latest file slices have log files (all have no pending instants).
V6_WITH_LOGS = (
    "mor/parquet/v6_nonpartitioned",
    "mor/parquet/v6_nonpartitioned_rollback",
    "mor/parquet/v6_simplekeygen_nonhivestyle",
    "mor/parquet/v6_complexkeygen_hivestyle",
)
V9_WITH_LOGS = "mor/avro/v9_timebasedkeygen_nonhivestyle"


@pytest.fixture
def copy_table(extract_fixture: Extract, tmp_path: Path) -> CopyTable:
    """Copy a fixture table (by id) into ``tmp_path``, so a test may change it."""

    def _copy(fixture_id: str) -> Path:
        (fixture,) = [f for f in all_fixture_tables() if f.id == fixture_id]
        base, _gold = extract_fixture(fixture)
        dest = tmp_path / fixture.name
        shutil.copytree(base, dest)
        return dest

    return _copy


def without_metadata_table(base: Path) -> Path:
    """Disable the metadata table as Apache Hudi does when a writer does not maintain it.

    hudi-rs lists files through the metadata table's ``files`` partition when the table config
    says it exists; our writers do not update it, so tests that compare with hudi-rs after a write
    drop it first (delete ``.hoodie/metadata``, clear ``hoodie.table.metadata.partitions``).
    """
    shutil.rmtree(base / ".hoodie" / "metadata", ignore_errors=True)
    table = HudiTable.open(str(base))
    update_properties(table.storage, {"hoodie.table.metadata.partitions": ""})
    return base


def rs_snapshot(base: Path) -> pa.Table:
    """hudi-rs's snapshot read, rows sorted, without ``_hoodie_file_name`` (compaction rewrites it)."""
    batches = hudi.HudiTableBuilder.from_base_uri(str(base)).build().read(hudi.HudiReadOptions())
    table = pa.Table.from_batches(batches)
    return canonical(table)


def canonical(table: pa.Table) -> pa.Table:
    """Rows sorted by every column, ``_hoodie_file_name`` dropped."""
    if "_hoodie_file_name" in table.column_names:
        table = table.drop_columns(["_hoodie_file_name"])
    sortable = [c for c in table.column_names if not pa.types.is_nested(table.schema.field(c).type)]
    return table.sort_by([(c, "ascending") for c in sortable]).combine_chunks()
