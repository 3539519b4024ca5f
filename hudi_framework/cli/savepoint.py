"""``hudi-fw savepoint create|list|delete``, ``hudi-fw restore`` and ``hudi-fw rollback``."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.write.savepoint import (
    create_savepoint,
    delete_savepoint,
    list_savepoints,
    restore_to_savepoint,
    rollback_latest_commit,
)

savepoint = typer.Typer(help="Create, list and delete savepoints.", no_args_is_help=True)

PathArg = Annotated[str, typer.Argument(help="Table base path or URI (/data/t, file:///data/t, s3://bucket/t).")]
InstantArg = Annotated[str, typer.Argument(help="An instant time (yyyyMMddHHmmssSSS).")]


@savepoint.command("create")
def create(
    path: PathArg,
    instant: Annotated[str | None, typer.Argument(help="The completed commit to keep; the latest by default.")] = None,
    user: Annotated[str | None, typer.Option(help="Recorded as savepointedBy.")] = None,
    comments: Annotated[str, typer.Option(help="Free text stored with the savepoint.")] = "",
    config: ConfigOpt = None,
) -> None:
    """Savepoint a completed commit."""
    table = open_table(path, settings_from(config))
    if instant is None:
        latest = table.timeline.latest_completed_commit()
        if latest is None:
            raise typer.BadParameter("the table has no completed commit")
        instant = latest.requested_time
    sp = create_savepoint(table, instant, user=user, comments=comments)
    files = sum(len(v) for v in sp.files.values())
    Console().print(f"savepoint {sp.instant_time} created ({files} files in {len(sp.files)} partitions)")


@savepoint.command("list")
def list_(
    path: PathArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    config: ConfigOpt = None,
) -> None:
    """List savepoints, oldest first."""
    points = list_savepoints(open_table(path, settings_from(config)))
    if as_json:
        rows = [
            {"instant": s.instant_time, "by": s.savepointed_by, "at_ms": s.savepointed_at_ms, "comments": s.comments}
            for s in points
        ]
        typer.echo(json.dumps(rows))
        return
    out = Table("instant", "savepointed by", "files", "comments")
    for s in points:
        out.add_row(s.instant_time, s.savepointed_by, str(sum(len(v) for v in s.files.values())), s.comments)
    Console().print(out)


@savepoint.command("delete")
def delete(path: PathArg, instant: InstantArg, config: ConfigOpt = None) -> None:
    """Delete a savepoint."""
    delete_savepoint(open_table(path, settings_from(config)), instant)
    Console().print(f"savepoint {instant} deleted")


def restore(path: PathArg, instant: InstantArg, config: ConfigOpt = None) -> None:
    """Restore the table to a savepoint: every later instant is rolled back."""
    result = restore_to_savepoint(open_table(path, settings_from(config)), instant)
    Console().print(
        f"restored to {instant} by {result.restore_instant.requested_time}; "
        f"rolled back {len(result.rolled_back)} instants: {', '.join(result.rolled_back) or '-'}"
    )


def rollback(
    path: PathArg,
    instant: Annotated[str | None, typer.Argument(help="The latest completed commit (checked).")] = None,
    config: ConfigOpt = None,
) -> None:
    """Roll back the latest completed commit (a rollback instant records it)."""
    result = rollback_latest_commit(open_table(path, settings_from(config)), instant)
    done = result.rollback_instant
    Console().print(
        f"rolled back by {done.requested_time if done else '-'}; deleted {len(result.deleted)} files, "
        f"{len(result.rollback_logs)} rollback log files"
    )
