"""``hudi-fw archive``: archive a table's timeline once, and the archived part of ``show timeline``.

``archive`` applies ``services.archive`` (``--option hoodie.keep.min.commits=20``...) exactly as the
inline archival after a commit does, whether or not ``hoodie.archive.automatic`` is on: the rules
decide whether anything moves.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.cli.service_cli import console as make_console
from hudi_framework.timeline.instant import Instant
from hudi_framework.write.archival import archive_timeline

__all__ = ["archive"]

PathArg = Annotated[str, typer.Argument(help="Table base path or URI (/data/t, file:///data/t, s3://bucket/t).")]
OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option", "-o", help="An Apache Hudi option key=value (repeatable), e.g. hoodie.keep.max.commits=30."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _rows(instants: list[Instant], where: str) -> list[dict[str, str | None]]:
    return [
        {"requested": i.requested_time, "action": i.action.value, "state": i.state.value,
         "completed": i.completion_time, "timeline": where}
        for i in instants
    ]  # fmt: skip


def archive(path: PathArg, config: ConfigOpt = None, option: OptionOpt = None, as_json: JsonOpt = False) -> None:
    """Archive the oldest completed instants when the active timeline holds more than hoodie.keep.max.commits."""
    settings = settings_from(config, option)
    table = open_table(path, settings)
    result = archive_timeline(table, settings)
    rows = _rows(list(result.archived), "data") + _rows(list(result.metadata_archived), "metadata")
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    console = make_console()
    if not rows:
        console.print("nothing to archive")
        return
    out = Table(title=f"archived from {table.config.name}")
    for col in ("timeline", "requested", "action", "completed"):
        out.add_column(col)
    for row in rows:
        out.add_row(row["timeline"], row["requested"], row["action"], row["completed"] or "-")
    console.print(out)
