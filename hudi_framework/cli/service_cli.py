"""What the table-service commands (``compaction``, ``logcompaction``, ``clustering``, ``clean``) share:
their arguments, console, service lookup, plan reading, and the tables ``show`` and ``run`` print."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.service import TableService
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Instant, State
from hudi_framework.write.service_host import ServiceHost, open_table_service

__all__ = [
    "InstantOpt",
    "JsonOpt",
    "PathArg",
    "build_service",
    "console",
    "print_rows",
    "requested_plan",
    "run_each",
]

PathArg = Annotated[str, typer.Argument(help="Table base path or URI (/data/t, file:///data/t, s3://bucket/t).")]
InstantOpt = Annotated[str | None, typer.Option("--instant", help="The instant time of the service's plan.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]

P = TypeVar("P")


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


def requested_plan(table: HudiTable, instant: Instant, decode: Callable[..., P]) -> P:
    """The plan in ``instant``'s requested file, decoded by ``decode(data, path=key)``."""
    key = table.timeline.file_key(instant, State.REQUESTED)
    return decode(table.storage.read(key), path=key)


def _cell(value: object) -> str:
    if value is None or value == "":
        return "-"
    if isinstance(value, list | tuple):
        return str(len(value))
    return str(value)


def print_rows(rows: list[dict[str, Any]], columns: Mapping[str, str], *, title: str, as_json: bool) -> None:
    """``rows`` as JSON, or as a table with ``columns`` (heading -> row key): a missing value shows
    as ``-``, a list as its length."""
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    out = Table(title=title)
    for heading in columns:
        out.add_column(heading)
    for row in rows:
        out.add_row(*(_cell(row[key]) for key in columns.values()))
    console().print(out)


def run_each(
    todo: Sequence[str],
    start: Callable[[], Callable[[str], Sequence[object]]],
    *,
    nothing: str,
    title: str,
    columns: Sequence[str],
) -> None:
    """Run the service on each instant of ``todo`` and print a row per instant (the instant, then
    ``columns``' cells); ``nothing`` when there is none. ``start`` returns the function running one
    instant (called once, and only when there is something to run)."""
    terminal = console()
    if not todo:
        terminal.print(nothing)
        return
    run_one = start()
    out = Table(title=title)
    for heading in ("instant", *columns):
        out.add_column(heading)
    for instant in todo:
        out.add_row(instant, *(_cell(cell) for cell in run_one(instant)))
    terminal.print(out)
