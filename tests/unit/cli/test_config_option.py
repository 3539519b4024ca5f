"""Every ``hudi-fw`` command takes ``--config``: the storage a table needs is never out of reach."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from typer.testing import CliRunner

from hudi_framework.cli.app import app

runner = CliRunner()
CONFIGS = Path(__file__).resolve().parents[3] / "configs"


def _commands(command: Any, name: str = "hudi-fw") -> Iterator[tuple[str, Any]]:
    # Typer vendors Click from 0.20 on: recognise a group by its commands, not by Click's class.
    if hasattr(command, "commands"):
        for sub_name, sub in command.commands.items():
            yield from _commands(sub, f"{name} {sub_name}")
    else:
        yield name, command


def test_every_command_takes_config() -> None:
    commands = dict(_commands(typer.main.get_command(app)))
    assert len(commands) >= 19
    missing = [name for name, cmd in commands.items() if not any("--config" in p.opts for p in cmd.params)]
    assert missing == []


def test_run_and_init_take_the_file_as_argument_or_option(tmp_path: Path) -> None:
    config = str(CONFIGS / "local-cow.toml")
    base = str(tmp_path / "t")
    schema = "trip_id:string,city:string,ts:long"
    created = runner.invoke(app, ["init", "--config", config, "--path", base, "--schema", schema])
    assert created.exit_code == 0, created.output
    again = runner.invoke(app, ["init", config, "--path", base, "--schema", schema, "--exist-ok"])
    assert again.exit_code == 0, again.output
    both = runner.invoke(app, ["init", config, "--config", str(CONFIGS / "quickstart.toml"), "--path", base])
    assert both.exit_code != 0
    neither = runner.invoke(app, ["init", "--path", base])
    assert neither.exit_code != 0
