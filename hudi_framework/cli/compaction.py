"""``hudi-fw compaction schedule|run|show``: merge-on-read compaction from the shell.

The commands go through the compaction service plugin found in the registry
(``services.compaction.service``), so they work with whichever implementation is installed.
Settings come from an optional config file (``--config``) and ``HUDI_*`` variables plus Apache Hudi
options (``--option hoodie.compaction.strategy=...``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.table import Table

from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.cli.service_cli import (
    InstantOpt,
    JsonOpt,
    PathArg,
    build_service,
    print_rows,
    requested_plan,
    run_each,
)
from hudi_framework.cli.service_cli import console as make_console
from hudi_framework.contracts.compaction import TOTAL_IO_MB, TOTAL_LOG_FILES_SIZE
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.compaction_plan import CompactionPlan, decode_compaction_plan
from hudi_framework.timeline.instant import Action, Instant, State

compaction = typer.Typer(help="Schedule, run and inspect merge-on-read compactions.", no_args_is_help=True)

OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option", "-o", help="An Apache Hudi option key=value (repeatable), e.g. hoodie.compaction.target.io=500."
    ),
]


def _compactions(table: HudiTable) -> list[Instant]:
    # Pending compactions, and completed commits that started as compactions (requested file kept).
    timeline = table.timeline
    out = []
    for inst in timeline.by_action(Action.COMMIT):
        if inst.action is Action.COMPACTION:
            out.append(inst)
        elif inst.is_completed:
            try:
                timeline.file_key(inst, State.REQUESTED)
            except LookupError:
                continue
            if timeline.read_commit_metadata(inst).compacted:
                out.append(inst)
    return out


def _plan(table: HudiTable, inst: Instant) -> CompactionPlan:
    return requested_plan(table, inst, decode_compaction_plan)


def _plan_rows(plan: CompactionPlan) -> list[dict[str, Any]]:
    return [
        {
            "partition": op.partition_path,
            "file_id": op.file_id,
            "base_instant": op.base_instant_time,
            "base_file": op.data_file_name,
            "log_files": list(op.delta_file_names),
            "metrics": dict(op.metrics),
        }
        for op in plan.operations
    ]


def _plan_table(inst: Instant, plan: CompactionPlan) -> Table:
    out = Table(title=f"compaction {inst.requested_time} ({inst.state})")
    for col in ("partition", "file id", "base instant", "base file", "log files", "log bytes", "IO MB"):
        out.add_column(col, justify="right" if col in ("log files", "log bytes", "IO MB") else "left")
    for op in plan.operations:
        out.add_row(
            op.partition_path or "(none)",
            op.file_id,
            op.base_instant_time,
            op.data_file_name or "-",
            str(len(op.delta_file_names)),
            str(int(op.metric(TOTAL_LOG_FILES_SIZE))),
            str(int(op.metric(TOTAL_IO_MB))),
        )
    return out


@compaction.command("show")
def show(path: PathArg, instant: InstantOpt = None, as_json: JsonOpt = False, config: ConfigOpt = None) -> None:
    """Compactions on the timeline (pending and completed), or the plan of one with --instant."""
    table = open_table(path, settings_from(config))
    instants = _compactions(table)
    if instant is not None:
        chosen = [i for i in instants if i.requested_time == instant]
        if not chosen:
            raise typer.BadParameter(f"no compaction {instant} on the timeline", param_hint="--instant")
        plan = _plan(table, chosen[0])
        if as_json:
            typer.echo(
                json.dumps(
                    {"instant": instant, "state": chosen[0].state.value, "operations": _plan_rows(plan)}, indent=2
                )
            )
            return
        make_console().print(_plan_table(chosen[0], plan))
        return
    rows = []
    for inst in instants:
        plan = _plan(table, inst)
        rows.append(
            {"instant": inst.requested_time, "state": inst.state.value, "completed": inst.completion_time,
             "operations": len(plan.operations),
             "log_files": sum(len(op.delta_file_names) for op in plan.operations)}
        )  # fmt: skip
    columns = {"instant": "instant", "state": "state", "completed": "completed", "file groups": "operations",
               "log files": "log_files"}  # fmt: skip
    print_rows(rows, columns, title=f"compactions of {table.config.name}", as_json=as_json)


@compaction.command("schedule")
def schedule(path: PathArg, config: ConfigOpt = None, option: OptionOpt = None) -> None:
    """Write a compaction plan (T.compaction.requested) with the configured strategy."""
    settings = settings_from(config, option)
    table = open_table(path, settings)
    service, host = build_service(table, settings, "compaction")
    instant = service.schedule(host)
    console = make_console()
    if instant is None:
        console.print("nothing to compact")
        return
    plan = _plan(table.reload(), table.timeline.get(instant, Action.COMPACTION))
    console.print(f"[green]scheduled[/] compaction {instant}: {len(plan.operations)} file group(s)")
    console.print(_plan_table(table.timeline.get(instant, Action.COMPACTION), plan))


SkipCorruptOpt = Annotated[
    bool,
    typer.Option(
        "--skip-corrupt-log-blocks",
        help="Compact file slices with corrupt log blocks that may hold committed rows, losing those rows "
        "for good (services.compaction.skip_corrupt_log_blocks); refused by default.",
    ),
]


@compaction.command("run")
def run(
    path: PathArg,
    instant: InstantOpt = None,
    config: ConfigOpt = None,
    option: OptionOpt = None,
    skip_corrupt_log_blocks: SkipCorruptOpt = False,
) -> None:
    """Execute a pending compaction (--instant), or every pending one, oldest first."""
    flags: dict[str, object] = {"services.compaction.skip_corrupt_log_blocks": True} if skip_corrupt_log_blocks else {}
    settings = settings_from(config, option, flags)
    table = open_table(path, settings)
    pending = [i.requested_time for i in table.timeline.pending({Action.COMPACTION})]

    def start() -> Callable[[str], list[object]]:
        service, host = build_service(table, settings, "compaction")

        def run_one(inst: str) -> list[object]:
            service.execute(host, inst)
            done = table.reload().timeline.get(inst, Action.COMMIT)
            stats = table.timeline.read_commit_metadata(done).write_stats()
            return [
                done.completion_time,
                len(stats),
                sum(s.num_writes or 0 for s in stats),
                sum(s.total_log_records or 0 for s in stats),
                sum(s.total_write_bytes or 0 for s in stats),
            ]

        return run_one

    run_each(
        [instant] if instant is not None else pending,
        start,
        nothing="no pending compaction",
        title="compactions run",
        columns=("completed", "file groups", "rows written", "log records", "bytes written"),
    )
