"""``hudi-fw streamer``: HoodieStreamer's flags, ``--props`` files, refused flags, the example config."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.config import HudiSettings
from hudi_framework.config.properties_file import read_properties_file
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.vocabulary import TableType, WriteOperation
from tests.unit.streamer.test_streamer import SOURCE_MODULE, land

runner = CliRunner()
CONFIGS = Path(__file__).resolve().parents[3] / "configs"


@pytest.fixture
def plugin_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HUDI_PLUGINS__MODULES", json.dumps([SOURCE_MODULE]))


def test_hoodie_streamer_flags_and_a_props_file_run_a_round(tmp_path: Path, plugin_env: None) -> None:
    land(tmp_path / "landing", 0, 3)
    props = tmp_path / "streamer.properties"
    props.write_text(
        "# HoodieStreamer properties\n"
        "hoodie.datasource.write.recordkey.field=id\n"
        f"hoodie.streamer.source.dfs.root : {tmp_path / 'landing'}\n"
        "hoodie.datasource.write.partitionpath.field \\\n    =file\n"
    )
    base = str(tmp_path / "t")
    args = [
        "streamer", "--target-base-path", base, "--target-table", "landed", "--table-type", "MERGE_ON_READ",
        "--source-class", "org.example.sources.TestLandingSource", "--source-ordering-field", "ts",
        "--op", "BULK_INSERT", "--props", str(props), "--hoodie-conf", "hoodie.table.version=8",
        "--engine", "local",
    ]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "round 1" in result.output
    assert "1 rounds (one round), 1 commits, 9 rows" in result.output
    table = HudiTable.open(base)
    assert table.config.table_type is TableType.MERGE_ON_READ
    assert table.config.version == 8
    assert table.config.partition_fields == ("file",)
    assert read_table(table).num_rows == 9
    again = runner.invoke(app, args)
    assert "nothing new after file:b002.json" in again.output


def test_continuous_with_limits_and_once_overrides_it(tmp_path: Path, plugin_env: None) -> None:
    land(tmp_path / "landing", 0, 3)
    config = tmp_path / "s.toml"
    config.write_text(
        f'[table]\nbase_path = "{tmp_path / "t"}"\nname = "t"\nrecord_key_fields = ["id"]\nordering_fields = ["ts"]\n'
        f'[write]\nengine = "local"\n[streamer]\nsource = "test-landing"\ncontinuous = true\n'
        f'source_limit = 1\nstop_after_idle_rounds = 1\n[streamer.source_options]\nroot = "{tmp_path / "landing"}"\n'
    )
    once = runner.invoke(app, ["streamer", str(config), "--once"])
    assert once.exit_code == 0, once.output
    assert "1 rounds (one round)" in once.output
    rest = runner.invoke(app, ["streamer", "--config", str(config), "--max-rounds", "5"])
    assert rest.exit_code == 0, rest.output
    assert "3 rounds (idle), 2 commits" in rest.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--enable-hive-sync"], "HoodieStreamer flag --enable-hive-sync is not supported"),
        (["--filter-dupes", "--target-table", "t"], "HoodieStreamer flag --filter-dupes is not supported"),
        (["--target-table", "t", "--no-such-flag", "1"], "unknown flag --no-such-flag"),
        (["--schemaprovider-class", "SchemaRegistryProvider"], "only FilebasedSchemaProvider"),
        (["--once", "--continuous"], "exclude each other"),
        (["--hoodie-conf", "novalue"], "--hoodie-conf needs key=value"),
        (["--target-base-path", "/tmp/x", "--target-table", "t", "--op", "DELETE"], "streamer.operation"),
    ],
)
def test_bad_flags_fail_naming_the_flag(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["streamer", *args])
    assert result.exit_code != 0
    assert message in str(result.exception) + result.output


def test_properties_files_follow_java_syntax(tmp_path: Path) -> None:
    props = tmp_path / "p.properties"
    props.write_text("! comment\n\na=1\nb: two words\nc three\nd=x\\\n  y\ne\n")
    assert read_properties_file(props) == {"a": "1", "b": "two words", "c": "three", "d": "xy", "e": ""}


def test_the_example_streamer_config() -> None:
    settings = HudiSettings.load(CONFIGS / "streamer-json-dfs.toml", env=False)
    assert settings.streamer.source == "JsonDFSSource"
    assert settings.streamer.source_options == {"hoodie.streamer.source.dfs.root": "/tmp/hudi/landing"}
    assert settings.streamer.operation is WriteOperation.UPSERT
    assert settings.streamer.continuous
    assert settings.streamer.min_sync_interval_seconds == 10
