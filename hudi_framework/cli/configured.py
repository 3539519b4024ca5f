"""How every ``hudi-fw`` command gets its settings and opens its table: ``--config`` (a TOML or YAML
file), ``HUDI_*`` environment variables, and for the service commands ``--option key=value``.

The table is always opened with the settings' storage and plugin sections, so an S3 endpoint,
region or credentials given in any of those places reach every command.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError
from hudi_framework.runtime.table import HudiTable

__all__ = ["ConfigOpt", "config_file", "open_table", "settings_from"]

ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        exists=True,
        dir_okay=False,
        help="A TOML or YAML config file (storage.s3, plugins, services...); HUDI_* variables apply too.",
    ),
]


def config_file(argument: Path | None, option: Path | None) -> Path:
    """The config file of ``init`` and ``run``, given as their argument or as ``--config``.

    Raises:
        typer.BadParameter: Neither or two different files were given.
    """
    if argument is not None and option is not None and argument != option:
        raise typer.BadParameter("give the config file once: as the argument or as --config", param_hint="--config")
    chosen = argument or option
    if chosen is None:
        raise typer.BadParameter("a config file is required (the argument or --config)", param_hint="CONFIG")
    return chosen


def settings_from(
    config: Path | None, options: list[str] | None = None, overrides: dict[str, object] | None = None
) -> HudiSettings:
    """Settings from an optional config file and ``HUDI_*`` variables, plus ``key=value`` Apache Hudi
    options and command-line flags (``overrides``, dotted field paths, which win).

    Raises:
        ConfigError: An option is not ``key=value``, or the settings are invalid.
    """
    hoodie: dict[str, str] = {}
    for item in options or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option needs key=value, got {item!r}")
        hoodie[key.strip()] = value.strip()
    return HudiSettings.load(config, hoodie_options=hoodie or None, overrides=overrides or None)


def open_table(path: str, settings: HudiSettings) -> HudiTable:
    """The table at ``path`` on the storage, with the plugins, that ``settings`` describe."""
    return HudiTable.open(path, settings=settings)
