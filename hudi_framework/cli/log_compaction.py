"""``hudi-fw logcompaction schedule|run|show``: merge-on-read log compaction from the shell.

Log compaction merges a file slice's log blocks into one new log file (no base file is rewritten);
see :mod:`hudi_framework.write.log_compactor`. Settings as for ``hudi-fw compaction``: an optional
config file and ``--option hoodie.log.compaction.blocks.threshold=...``.
"""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.table import Table

from hudi_framework.cli.compaction import InstantOpt, JsonOpt, OptionOpt, PathArg
from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.cli.service_cli import console as make_console
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.compaction_plan import decode_compaction_plan
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.write.log_compactor import (
    execute_log_compaction,
    pending_log_compactions,
    schedule_log_compaction,
)

log_compaction = typer.Typer(help="Schedule, run and inspect merge-on-read log compactions.", no_args_is_help=True)


def _log_compactions(table: HudiTable) -> list[tuple[Instant, Instant | None]]:
    """(requested-or-pending instant, completed deltacommit or None) of every log compaction."""
    timeline = table.timeline
    out: list[tuple[Instant, Instant | None]] = []
    for inst in timeline.instants:
        if inst.action is Action.LOG_COMPACTION:
            out.append((inst, None))
        elif inst.action is Action.DELTA_COMMIT and inst.is_completed:
            try:
                timeline.file_key(inst, State.REQUESTED)
            except LookupError:
                continue
            if timeline.read_commit_metadata(inst).operation_type == "LOG_COMPACT":
                out.append((inst, inst))
    return out


def _rows(table: HudiTable) -> list[dict[str, Any]]:
    rows = []
    for inst, done in _log_compactions(table):
        key = table.timeline.file_key(inst, State.REQUESTED)
        plan = decode_compaction_plan(table.storage.read(key), path=key)
        rows.append(
            {
                "instant": inst.requested_time,
                "state": inst.state.value,
                "completed": done.completion_time if done else None,
                "file_groups": [f"{op.partition_path}/{op.file_id}" for op in plan.operations],
                "log_files": sum(len(op.delta_file_names) for op in plan.operations),
            }
        )
    return rows


@log_compaction.command("show")
def show(path: PathArg, as_json: JsonOpt = False, config: ConfigOpt = None) -> None:
    """Log compactions on the timeline, pending and completed."""
    table = open_table(path, settings_from(config))
    rows = _rows(table)
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    out = Table(title=f"log compactions of {table.config.name}")
    for col in ("instant", "state", "completed", "file groups", "log files"):
        out.add_column(col)
    for row in rows:
        out.add_row(
            row["instant"], row["state"], row["completed"] or "-", str(len(row["file_groups"])), str(row["log_files"])
        )
    make_console().print(out)


@log_compaction.command("schedule")
def schedule(path: PathArg, config: ConfigOpt = None, option: OptionOpt = None) -> None:
    """Write a log compaction plan (T.logcompaction.requested) of the slices with enough log blocks
    (services.log_compaction.blocks_threshold, hoodie.log.compaction.blocks.threshold)."""
    settings = settings_from(config, option)
    table = open_table(path, settings)
    instant = schedule_log_compaction(table, blocks_threshold=settings.services.log_compaction.blocks_threshold)
    console = make_console()
    if instant is None:
        console.print("nothing to log-compact")
        return
    console.print(f"[green]scheduled[/] log compaction {instant}")


@log_compaction.command("run")
def run(path: PathArg, instant: InstantOpt = None, config: ConfigOpt = None, option: OptionOpt = None) -> None:
    """Execute a pending log compaction (--instant), or every pending one, oldest first."""
    settings = settings_from(config, option)
    table = open_table(path, settings)
    todo = [instant] if instant is not None else pending_log_compactions(table)
    console = make_console()
    if not todo:
        console.print("no pending log compaction")
        return
    out = Table(title="log compactions run")
    for col in ("instant", "completed", "log files written", "records", "deletes", "bytes written"):
        out.add_column(col)
    for inst in todo:
        result = execute_log_compaction(table, inst, settings)
        stats = result.stats
        out.add_row(
            inst,
            result.instant.completion_time or "-",
            str(len(stats)),
            str(sum(s.num_writes or 0 for s in stats)),
            str(sum(s.num_deletes or 0 for s in stats)),
            str(sum(s.total_write_bytes or 0 for s in stats)),
        )
    console.print(out)
