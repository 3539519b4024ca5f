"""Writers leave Apache Hudi's metadata table behind (format section 7), so readers list files."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import hudi
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.metadata.validate import validate_files
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.metadata_table import METADATA_TABLE_DIR, disable_metadata_table
from hudi_framework.table.properties import load_properties
from hudi_framework.write.client import WriteClient
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


@pytest.mark.parametrize("fixture_id", ["cow/v9_txns_simple_meta", "mor/avro/v9_txns_simple_meta"])
def test_our_write_to_a_table_with_a_metadata_table_is_visible_to_hudi_rs(
    fixture_id: str, extract_fixture: Extract, tmp_path: Path
) -> None:
    path = _copy(extract_fixture, fixture_id, tmp_path)
    table = HudiTable.open(str(path))
    rs = hudi.HudiTableBuilder.from_base_uri(str(path)).build()
    stored = pa.Table.from_batches(rs.read()).drop_columns([c for c in rs.read()[0].schema.names if c.startswith("_")])
    update = stored.filter(pc.equal(stored.column("txn_id"), "TXN-011"))
    update = update.set_column(update.schema.get_field_index("currency"), "currency", pa.array(["CHF"]))
    update = update.set_column(update.schema.get_field_index("txn_ts"), "txn_ts", pa.array([2_000_000_000_000]))
    done = WriteClient(table).upsert(update)

    # The MDT is on by default: Apache Hudi's MDT is kept in step (the partitions we keep; its record
    # index and secondary indexes, which we do not keep, are dropped).
    kept = table.reload().config.metadata_partitions
    assert kept == ("column_stats", "files", "partition_stats")
    assert validate_files(table.storage, table.timeline, table.properties).ok
    with_mdt = hudi.HudiTableBuilder.from_base_uri(str(path)).with_hudi_option("hoodie.metadata.enable", "true")
    assert pa.Table.from_batches(with_mdt.build().read()).num_rows == stored.num_rows
    after = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(str(path)).build().read())
    row = after.filter(pc.equal(after.column("txn_id"), "TXN-011")).to_pylist()
    assert [(r["currency"], r["_hoodie_commit_time"]) for r in row] == [("CHF", done.instant.requested_time)]
    assert after.num_rows == stored.num_rows
    ours = read_table(table.reload())
    assert sorted(ours.column("txn_id").to_pylist()) == sorted(after.column("txn_id").to_pylist())
