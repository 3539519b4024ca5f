"""What the table-service commands (``compaction``, ``clean``) share: console, settings and service lookup."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.service import TableService
from hudi_framework.errors import ConfigError, PluginError
from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.table.table import HudiTable

__all__ = ["build_service", "console", "settings_from"]


def console() -> Console:
    """A console; logs and pipes get room for instant times and file ids instead of wrapping them."""
    terminal = Console()
    return terminal if terminal.is_terminal else Console(width=160)


def settings_from(
    config: Path | None, options: list[str] | None, overrides: dict[str, object] | None = None
) -> HudiSettings:
    """Settings from an optional config file plus ``key=value`` Apache Hudi options and command-line flags
    (``overrides``, dotted field paths, which win).

    Raises:
        ConfigError: An option is not ``key=value``.
    """
    hoodie: dict[str, str] = {}
    for item in options or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--option needs key=value, got {item!r}")
        hoodie[key.strip()] = value.strip()
    return HudiSettings.load(config, hoodie_options=hoodie or None, overrides=overrides or None)


def build_service(table: HudiTable, settings: HudiSettings, name: str) -> TableService:
    """The table service plugin ``name`` from the table's registry.

    Raises:
        PluginError: The component is not a table service.
    """
    service = table.registry.build(ComponentKind.SERVICE, name, {"settings": settings})
    if not isinstance(service, TableService):
        raise PluginError(f"component {name!r} built a {type(service).__name__}, not a TableService")
    return service
