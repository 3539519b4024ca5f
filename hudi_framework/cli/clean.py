"""``hudi-fw clean run|show``: cleaning from the shell.

``run`` goes through the cleaning service plugin found in the registry (``services.clean.service``):
it finishes pending cleans, then plans a clean with the configured policy and executes it (an
explicit run does not wait for ``hoodie.clean.max.commits``). Settings come from an optional config
file (``--config``) and ``HUDI_*`` variables plus Apache Hudi options
(``--option hoodie.cleaner.commits.retained=5``).
``show`` reads clean instants directly.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.cli.service_cli import InstantOpt, JsonOpt, PathArg, build_service, requested_plan
from hudi_framework.cli.service_cli import console as make_console
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clean_plan import CleanerPlan, decode_cleaner_plan
from hudi_framework.timeline.clean_metadata import CleanMetadata, decode_clean_metadata
from hudi_framework.timeline.instant import Action, Instant

clean = typer.Typer(help="Run and inspect cleaning (old file slices deleted by policy).", no_args_is_help=True)

OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option", "-o", help="An Apache Hudi option key=value (repeatable), e.g. hoodie.cleaner.commits.retained=5."
    ),
]


def _plan(table: HudiTable, inst: Instant) -> CleanerPlan:
    return requested_plan(table, inst, decode_cleaner_plan)


def _metadata(table: HudiTable, inst: Instant) -> CleanMetadata | None:
    if not inst.is_completed:
        return None
    key = table.timeline.file_key(inst)
    return decode_clean_metadata(table.storage.read(key), path=key)


def _summary(table: HudiTable, inst: Instant) -> dict[str, Any]:
    plan = _plan(table, inst)
    meta = _metadata(table, inst)
    retained = plan.earliest_instant_to_retain
    return {
        "instant": inst.requested_time,
        "state": inst.state.value,
        "completed": inst.completion_time,
        "policy": plan.policy,
        "earliest_retained": retained.timestamp if retained is not None else None,
        "planned": plan.file_count,
        "deleted": meta.total_files_deleted if meta is not None else None,
        "failed": sum(len(p.failed_delete_files) for p in meta.partitions.values()) if meta is not None else None,
    }


def _files(table: HudiTable, inst: Instant) -> list[dict[str, Any]]:
    plan = _plan(table, inst)
    meta = _metadata(table, inst)
    rows = []
    for partition, infos in plan.files.items():
        done = set(meta.partitions[partition].success_delete_files) if meta and partition in meta.partitions else set()
        rows += [{"partition": partition, "file": f.name, "deleted": f.name in done} for f in infos]
    return rows


@clean.command("show")
def show(path: PathArg, instant: InstantOpt = None, as_json: JsonOpt = False, config: ConfigOpt = None) -> None:
    """Clean instants on the timeline, or the files of one with --instant."""
    table = open_table(path, settings_from(config))
    instants = table.timeline.by_action(Action.CLEAN)
    if instant is not None:
        chosen = [i for i in instants if i.requested_time == instant]
        if not chosen:
            raise typer.BadParameter(f"no clean {instant} on the timeline", param_hint="--instant")
        rows = _files(table, chosen[0])
        if as_json:
            typer.echo(json.dumps({**_summary(table, chosen[0]), "files": rows}, indent=2))
            return
        out = Table(title=f"clean {instant} ({chosen[0].state})")
        for col in ("partition", "file", "deleted"):
            out.add_column(col)
        for row in rows:
            out.add_row(row["partition"] or "(none)", row["file"], "yes" if row["deleted"] else "no")
        make_console().print(out)
        return
    summaries = [_summary(table, i) for i in instants]
    if as_json:
        typer.echo(json.dumps(summaries, indent=2))
        return
    out = Table(title=f"cleans of {table.config.name}")
    for col in ("instant", "state", "completed", "policy", "earliest retained", "planned", "deleted"):
        out.add_column(col)
    for s in summaries:
        out.add_row(
            s["instant"], s["state"], s["completed"] or "-", s["policy"], s["earliest_retained"] or "-",
            str(s["planned"]), "-" if s["deleted"] is None else str(s["deleted"]),
        )  # fmt: skip
    make_console().print(out)


@clean.command("run")
def run(path: PathArg, config: ConfigOpt = None, option: OptionOpt = None) -> None:
    """Finish pending cleans, then plan and execute a clean with the configured policy."""
    settings = settings_from(config, option)
    table = open_table(path, settings)
    service, host = build_service(table, settings, "clean")
    todo = [i.requested_time for i in table.timeline.pending({Action.CLEAN})]
    for inst in todo:
        service.execute(host, inst)
    scheduled = service.schedule(host)
    if scheduled is not None:
        service.execute(host, scheduled)
        todo.append(scheduled)
    console = make_console()
    if not todo:
        console.print("nothing to clean")
        return
    out = Table(title="cleans run")
    for col in ("instant", "completed", "earliest retained", "files deleted"):
        out.add_column(col)
    for inst in todo:
        s = _summary(table.reload(), table.timeline.get(inst, Action.CLEAN))
        out.add_row(inst, s["completed"] or "-", s["earliest_retained"] or "-", str(s["deleted"]))
    console.print(out)
