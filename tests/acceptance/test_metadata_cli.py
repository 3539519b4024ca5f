"""``hudi-fw metadata validate``: the metadata table's files partition against storage, on fixtures."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from hudi_framework.cli.app import app
from tests.fixture_tables import FixtureTable, all_fixture_tables

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
runner = CliRunner()


def _fixture(extract_fixture: Extract, name: str) -> Path:
    return extract_fixture(next(t for t in all_fixture_tables() if t.id == name))[0]


def test_validate_reports_an_mdt_that_matches_storage(extract_fixture: Extract) -> None:
    base = _fixture(extract_fixture, "mor/avro/v9_txns_simple_meta")
    result = runner.invoke(app, ["metadata", "validate", str(base), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["ok"] is True
    assert report["in_sync"] is True
    assert report["missing"] == report["extra"] == []
    assert report["partitions"] == ["region=apac", "region=eu", "region=us"]


def test_validate_fails_on_a_file_the_mdt_lacks(extract_fixture: Extract, tmp_path: Path) -> None:
    base = tmp_path / "t"
    shutil.copytree(_fixture(extract_fixture, "cow/v9_txns_simple_meta"), base)
    stray = base / "region=us" / "00000000-0000-0000-0000-000000000000-0_0-1-1_20260307162557587.parquet"
    first_commit = sorted((base / ".hoodie" / "timeline").glob("*_*.commit"))[0].name.split("_")[0]
    stray = stray.with_name(f"00000000-0000-0000-0000-000000000000-0_0-1-1_{first_commit}.parquet")
    stray.write_bytes(b"PAR1")
    result = runner.invoke(app, ["metadata", "validate", str(base), "--json"])
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    assert report["ok"] is False
    assert report["missing"] == [f"region=us/{stray.name}"]


def test_validate_a_table_without_mdt(extract_fixture: Extract) -> None:
    base = _fixture(extract_fixture, "cow/v9_txns_simple_nometa")
    result = runner.invoke(app, ["metadata", "validate", str(base)])
    assert result.exit_code == 1
    assert "no metadata table" in result.output
