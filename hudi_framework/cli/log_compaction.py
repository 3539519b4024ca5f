"""``hudi-fw logcompaction schedule|run|show``: merge-on-read log compaction from the shell.

Log compaction merges a file slice's log blocks into one new log file (no base file is rewritten);
see :mod:`hudi_framework.write.log_compactor`. Settings as for ``hudi-fw compaction``: an optional
config file and ``--option hoodie.log.compaction.blocks.threshold=...``.
"""

from __future__ import annotations

from typing import Any

import typer

from hudi_framework.cli.compaction import OptionOpt
from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.cli.service_cli import InstantOpt, JsonOpt, PathArg, print_rows, requested_plan, run_each
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
        plan = requested_plan(table, inst, decode_compaction_plan)
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
    columns = {"instant": "instant", "state": "state", "completed": "completed", "file groups": "file_groups",
               "log files": "log_files"}  # fmt: skip
    print_rows(_rows(table), columns, title=f"log compactions of {table.config.name}", as_json=as_json)


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

    def run_one(inst: str) -> list[object]:
        result = execute_log_compaction(table, inst, settings)
        stats = result.stats
        return [
            result.instant.completion_time,
            len(stats),
            sum(s.num_writes or 0 for s in stats),
            sum(s.num_deletes or 0 for s in stats),
            sum(s.total_write_bytes or 0 for s in stats),
        ]

    run_each(
        [instant] if instant is not None else pending_log_compactions(table),
        lambda: run_one,
        nothing="no pending log compaction",
        title="log compactions run",
        columns=("completed", "log files written", "records", "deletes", "bytes written"),
    )
