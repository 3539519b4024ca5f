"""What the table-service commands (``compaction``, ``clean``) share: console and service lookup."""

from __future__ import annotations

from rich.console import Console

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.service import TableService
from hudi_framework.runtime.table import HudiTable
from hudi_framework.write.service_host import ServiceHost, open_table_service

__all__ = ["build_service", "console"]


def console() -> Console:
    """A console; logs and pipes get room for instant times and file ids instead of wrapping them."""
    terminal = Console()
    return terminal if terminal.is_terminal else Console(width=160)


def build_service(table: HudiTable, settings: HudiSettings, slot: str) -> tuple[TableService, ServiceHost]:
    """The table service of ``settings.services.<slot>`` from the table's registry, and the host it works on.

    Raises:
        UnknownComponentError: No plugin provides the service.
        PluginConfigError: The section's options fail the service's options model.
        PluginError: The component is not a table service.
    """
    return open_table_service(table, settings, slot)
