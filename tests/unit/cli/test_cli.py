"""hudi-fw: init from a config file, show table/timeline/file-slices/schema, clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.cli.schema_spec import parse_schema_spec
from hudi_framework.errors import ConfigError
from hudi_framework.runtime.table import HudiTable

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
runner = CliRunner()


def test_init_then_show(tmp_path: Path) -> None:
    base = tmp_path / "trips"
    result = runner.invoke(
        app, ["init", str(CONFIGS / "local-cow.toml"), "--path", str(base),
              "--schema", "trip_id:string,city:string,ts:long,fare:decimal(10,2)"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    table = HudiTable.open(str(base))
    assert table.config.name == "trips_cow"
    assert table.schema().names == ["trip_id", "city", "ts", "fare"]

    shown = runner.invoke(app, ["show", "table", str(base), "--json"])
    assert json.loads(shown.output)["hoodie.table.name"] == "trips_cow"
    timeline = runner.invoke(app, ["show", "timeline", str(base), "--json"])
    assert json.loads(timeline.output) == []
    slices = runner.invoke(app, ["show", "file-slices", str(base), "--json"])
    assert json.loads(slices.output) == []
    schema = runner.invoke(app, ["show", "schema", str(base)])
    assert "fare: decimal128(10, 2)" in schema.output


def test_show_fixture_timeline_and_slices(extract_fixture, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.fixture_tables import all_fixture_tables

    fixture = next(t for t in all_fixture_tables() if t.id == "mor/avro/v9_txns_simple_meta")
    base, _ = extract_fixture(fixture)
    timeline = json.loads(runner.invoke(app, ["show", "timeline", str(base), "--json"]).output)
    completed = [r for r in timeline if r["state"] == "completed"]
    assert any(r["action"] == "replacecommit" for r in completed)
    assert all(r["completed"] and r["completed"] >= r["requested"] for r in completed)
    slices = json.loads(runner.invoke(app, ["show", "file-slices", str(base), "--json"]).output)
    assert len(slices) == len(HudiTable.open(str(base)).latest_file_slices())
    human = runner.invoke(app, ["show", "file-slices", str(base)])
    assert "latest file slices" in human.output


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    # COLUMNS=40: a narrow terminal must not fold the error line.
    return subprocess.run(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()", *args],
        capture_output=True, text=True, check=False, cwd=cwd, env={**os.environ, "COLUMNS": "40"},
    )  # fmt: skip


def test_errors_are_one_clear_line(tmp_path: Path) -> None:
    proc = _cli("show", "table", str(tmp_path))
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: TableNotFoundError: no Hudi table at")
    assert proc.stderr.count("\n") == 1, proc.stderr


@pytest.mark.parametrize(
    ("args", "config", "expected"),
    [
        (["run", "missing.toml"], None, "error: Invalid value for 'config': path 'missing.toml' does not exist."),
        (
            ["run", "bad.toml"],
            '[write]\noperaton = "upsert"\n',
            "error: UnknownConfigKeyError: unknown option 'write.operaton'; did you mean 'write.operation'? "
            "(in bad.toml)",
        ),
        (
            ["run", "bad.toml"],
            "[table]\nrecord_key_fields = 3\n",
            "error: InvalidConfigValueError: invalid value for 'table.record_key_fields': Input should be a list "
            "(in bad.toml)",
        ),
        (
            ["run", "bad.toml"],
            "[table\n",
            "error: ConfigFileError: cannot load configuration file 'bad.toml': invalid TOML",
        ),
        (["shw", "table", "x"], None, "error: No such command 'shw'."),
    ],
    ids=["missing-file", "unknown-key", "bad-value", "bad-toml", "unknown-command"],
)
def test_usage_and_config_errors_are_one_line_and_exit_2(
    tmp_path: Path, args: list[str], config: str | None, expected: str
) -> None:
    if config is not None:
        (tmp_path / "bad.toml").write_text(config)
    proc = _cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(expected), proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr


def test_init_twice_fails(tmp_path: Path) -> None:
    args = [
        "init",
        str(CONFIGS / "local-cow.toml"),
        "--path",
        str(tmp_path),
        "--schema",
        "trip_id:string,city:string,ts:long",
    ]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code != 0
    assert "already exists" in str(again.exception)


def test_schema_spec() -> None:
    schema = parse_schema_spec("id:long, amount:decimal(12,3), day:date")
    assert [str(f.type) for f in schema] == ["int64", "decimal128(12, 3)", "date32[day]"]
    with pytest.raises(ConfigError, match="'x'"):
        parse_schema_spec("x:uuid")
    with pytest.raises(ConfigError, match="name:type"):
        parse_schema_spec("justaname")


def test_init_exist_ok_is_idempotent(tmp_path: Path) -> None:
    args = [
        "init",
        str(CONFIGS / "local-cow.toml"),
        "--exist-ok",
        "--path",
        str(tmp_path),
        "--schema",
        "trip_id:string,city:string,ts:long",
    ]
    assert runner.invoke(app, args).exit_code == 0
    again = runner.invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "exists" in again.output


ACME_STRATEGY = "8c1f7a52-3c6b-4d2e-9a41-5f0e7d2b6a13"  # examples/acme-merger, installed by the test command


def test_plugins_lists_merger_strategy_ids_as_json() -> None:
    result = runner.invoke(app, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    listing = {(c["kind"], c["name"]): c for c in json.loads(result.output)}
    acme = listing[("record merger", "acme-order-merger")]
    assert acme["strategy_id"] == ACME_STRATEGY
    assert acme["provided_by"] == "plugin 'acme-merger' (distribution acme-merger)"
    assert listing[("record merger", "event-time-ordering")]["strategy_id"] == "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
    assert listing[("storage backend", "local")]["strategy_id"] is None


def test_plugins_never_cuts_names_or_strategy_ids_on_a_narrow_terminal() -> None:
    proc = _cli("plugins")  # COLUMNS=40
    assert proc.returncode == 0, proc.stderr
    line = next(x for x in proc.stdout.splitlines() if "acme-order-merger" in x)
    assert ACME_STRATEGY in line
