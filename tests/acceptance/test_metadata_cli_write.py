"""``hudi-fw metadata init`` and ``hudi-fw metadata delete``: build a table's metadata table from a
listing, and remove it (properties first)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.table.properties import load_properties
from hudi_storage_local.backend import LocalStorageBackend
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
runner = CliRunner()


def test_init_validate_delete(extract_fixture: Extract, tmp_path: Path) -> None:
    base = tmp_path / "t"
    shutil.copytree(
        extract_fixture(next(t for t in all_fixture_tables() if t.id == "cow/v9_txns_simple_nometa"))[0], base
    )
    result = runner.invoke(app, ["metadata", "init", str(base)])
    assert result.exit_code == 0, result.output
    assert "built" in result.output
    listed = load_properties(LocalStorageBackend(str(base)))["hoodie.table.metadata.partitions"]
    assert listed == "column_stats,files,partition_stats"  # column statistics are on by default
    assert (base / ".hoodie" / "metadata" / "files" / "files-0000-0_0-0-0_00000000000000000.hfile").is_file()
    result = runner.invoke(app, ["metadata", "validate", str(base)])
    assert result.exit_code == 0, result.output
    result = runner.invoke(app, ["metadata", "init", str(base)])
    assert result.exit_code == 0, result.output
    assert "already" in result.output

    result = runner.invoke(app, ["metadata", "delete", str(base)])
    assert result.exit_code == 0, result.output
    assert "hoodie.table.metadata.partitions" not in load_properties(LocalStorageBackend(str(base)))
    assert not [p for p in (base / ".hoodie" / "metadata").rglob("*") if p.is_file()]
    result = runner.invoke(app, ["metadata", "validate", str(base)])
    assert result.exit_code == 1
