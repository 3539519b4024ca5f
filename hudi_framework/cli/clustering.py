"""``hudi-fw clustering schedule|run|show``: clustering from the shell.

The commands go through the clustering service plugin found in the registry
(``services.clustering.service``), so they work with whichever implementation is installed.
Settings come from an optional config file (``--config``) and ``HUDI_*`` variables plus Apache Hudi
options (``--option hoodie.clustering.plan.strategy.sort.columns=...``).
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
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clustering_plan import ClusteringPlan, decode_clustering_plan
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.vocabulary import WriteOperationType

clustering = typer.Typer(help="Schedule, run and inspect clustering.", no_args_is_help=True)

OptionOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--option",
        "-o",
        help="An Apache Hudi option key=value (repeatable), e.g. hoodie.clustering.plan.strategy.sort.columns=ts.",
    ),
]


def _clusterings(table: HudiTable) -> list[Instant]:
    """Pending clusterings, and completed replacecommits whose operation was CLUSTER."""
    timeline = table.timeline
    pending = set(timeline.pending_clustering_plans())
    out = []
    for inst in timeline.by_action(Action.REPLACE_COMMIT):
        if inst in pending:
            out.append(inst)
        elif inst.is_completed:
            metadata = timeline.read_commit_metadata(inst)
            if metadata.operation_type == WriteOperationType.CLUSTER.value:
                out.append(inst)
    return out


def _plan(table: HudiTable, inst: Instant) -> ClusteringPlan:
    return requested_plan(table, inst, decode_clustering_plan)


def _group_rows(plan: ClusteringPlan) -> list[dict[str, Any]]:
    return [
        {
            "group": n,
            "partition": g.partition_path,
            "file_ids": [s.file_id for s in g.slices],
            "output_file_groups": g.num_output_file_groups,
            "metrics": dict(g.metrics),
        }
        for n, g in enumerate(plan.input_groups)
    ]


def _plan_table(inst: Instant, plan: ClusteringPlan) -> Table:
    sort = ",".join(plan.sort_columns) or "-"
    out = Table(title=f"clustering {inst.requested_time} ({inst.state}), sort: {sort} ({plan.layout_strategy})")
    for col in ("group", "partition", "file slices", "output file groups"):
        out.add_column(col)
    for n, g in enumerate(plan.input_groups):
        out.add_row(str(n), g.partition_path or "(none)", str(len(g.slices)), str(g.num_output_file_groups))
    return out


@clustering.command("show")
def show(path: PathArg, instant: InstantOpt = None, as_json: JsonOpt = False, config: ConfigOpt = None) -> None:
    """Clusterings on the timeline (pending and completed), or the plan of one with --instant."""
    table = open_table(path, settings_from(config))
    instants = _clusterings(table)
    if instant is not None:
        chosen = [i for i in instants if i.requested_time == instant]
        if not chosen:
            raise typer.BadParameter(f"no clustering {instant} on the timeline", param_hint="--instant")
        plan = _plan(table, chosen[0])
        if as_json:
            doc = {
                "instant": instant,
                "state": chosen[0].state.value,
                "sort_columns": list(plan.sort_columns),
                "layout_strategy": plan.layout_strategy,
                "groups": _group_rows(plan),
            }
            typer.echo(json.dumps(doc, indent=2))
            return
        make_console().print(_plan_table(chosen[0], plan))
        return
    rows = []
    for inst in instants:
        plan = _plan(table, inst)
        rows.append(
            {"instant": inst.requested_time, "state": inst.state.value, "completed": inst.completion_time,
             "groups": len(plan.input_groups), "file_groups": len(plan.file_groups)}
        )  # fmt: skip
    columns = {"instant": "instant", "state": "state", "completed": "completed", "groups": "groups",
               "file groups": "file_groups"}  # fmt: skip
    print_rows(rows, columns, title=f"clusterings of {table.config.name}", as_json=as_json)


@clustering.command("schedule")
def schedule(path: PathArg, config: ConfigOpt = None, option: OptionOpt = None) -> None:
    """Write a clustering plan with the configured strategy."""
    settings = settings_from(config, option)
    table = open_table(path, settings)
    service, host = build_service(table, settings, "clustering")
    instant = service.schedule(host)
    console = make_console()
    if instant is None:
        console.print("nothing to cluster")
        return
    inst = table.reload().timeline.get(instant, Action.CLUSTERING)
    plan = _plan(table, inst)
    console.print(f"[green]scheduled[/] clustering {instant}: {len(plan.file_groups)} file group(s)")
    console.print(_plan_table(inst, plan))


@clustering.command("run")
def run(path: PathArg, instant: InstantOpt = None, config: ConfigOpt = None, option: OptionOpt = None) -> None:
    """Execute a pending clustering (--instant), or every pending one, oldest first."""
    settings = settings_from(config, option)
    table = open_table(path, settings)
    pending = sorted(i.requested_time for i in table.timeline.pending_clustering_plans())

    def start() -> Callable[[str], list[object]]:
        service, host = build_service(table, settings, "clustering")

        def run_one(inst: str) -> list[object]:
            service.execute(host, inst)
            done = table.reload().timeline.get(inst, Action.CLUSTERING)
            metadata = table.timeline.read_commit_metadata(done)
            stats = metadata.write_stats()
            replaced = (getattr(metadata, "partition_to_replace_file_ids", None) or {}).values()
            return [
                done.completion_time,
                sum(len(v) for v in replaced),
                len(stats),
                sum(s.num_writes or 0 for s in stats),
                sum(s.total_write_bytes or 0 for s in stats),
            ]

        return run_one

    run_each(
        [instant] if instant is not None else pending,
        start,
        nothing="no pending clustering",
        title="clusterings run",
        columns=("completed", "replaced file groups", "new file groups", "rows written", "bytes written"),
    )
