"""What the table-service commands (``compaction``, ``clean``) share: console and service lookup."""

from __future__ import annotations

from rich.console import Console

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.service import TableService
from hudi_framework.table.table import HudiTable

__all__ = ["build_service", "console"]


def console() -> Console:
    """A console; logs and pipes get room for instant times and file ids instead of wrapping them."""
    terminal = Console()
    return terminal if terminal.is_terminal else Console(width=160)


def build_service(table: HudiTable, settings: HudiSettings, name: str) -> TableService:
    """The table service plugin ``name``, from the plugins ``settings`` load.

    Raises:
        UnknownComponentError: No such service is installed.
        PluginError: The component is not a table service.
    """
    return table.components.with_settings(settings).service(name, {"settings": settings})
