"""Writers leave Apache Hudi's metadata table behind (format section 7), so readers list files."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import hudi
import pyarrow as pa

from hudi_framework.table.metadata_table import METADATA_TABLE_DIR, disable_metadata_table
from hudi_framework.table.properties import load_properties
from hudi_framework.table.table import HudiTable
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]


def _copy(extract_fixture: Extract, fixture_id: str, tmp_path: Path) -> Path:
    fixture = next(t for t in all_fixture_tables() if t.id == fixture_id)
    base, _ = extract_fixture(fixture)
    target = tmp_path / "t"
    shutil.copytree(base, target)
    return target


def _hudi_rs_keys(path: Path) -> list[str]:
    batches = hudi.HudiTableBuilder.from_base_uri(str(path)).build().read()
    return sorted(pa.Table.from_batches(batches).column("_hoodie_record_key").to_pylist())


def test_disabling_clears_properties_then_deletes_the_directory(extract_fixture: Extract, tmp_path: Path) -> None:
    path = _copy(extract_fixture, "cow/v9_txns_simple_meta", tmp_path)
    storage = HudiTable.open(str(path)).storage
    assert "files" in load_properties(storage)["hoodie.table.metadata.partitions"]
    assert (path / METADATA_TABLE_DIR).is_dir()
    rows_before = _hudi_rs_keys(path)

    assert disable_metadata_table(storage) is True
    props = load_properties(storage)
    assert "hoodie.table.metadata.partitions" not in props
    assert "hoodie.table.metadata.partitions.inflight" not in props
    assert not [p for p in (path / METADATA_TABLE_DIR).rglob("*") if p.is_file()]
    # Other keys are untouched and the table reads the same through a listing.
    assert props["hoodie.table.name"] == "v9_txns_cow_simple_meta"
    assert _hudi_rs_keys(path) == rows_before
    assert disable_metadata_table(storage) is False
