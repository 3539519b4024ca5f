"""``hudi-fw``: create and inspect Hudi tables from the shell."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import pyarrow.parquet as pq
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hudi_framework.cli.archive import archive
from hudi_framework.cli.clean import clean
from hudi_framework.cli.clustering import clustering
from hudi_framework.cli.compaction import compaction
from hudi_framework.cli.configured import ConfigOpt, config_file, open_table, settings_from
from hudi_framework.cli.index import index
from hudi_framework.cli.log_blocks import repair, show_log_blocks
from hudi_framework.cli.log_compaction import log_compaction
from hudi_framework.cli.metadata import metadata
from hudi_framework.cli.savepoint import restore, rollback, savepoint
from hudi_framework.cli.schema_spec import parse_schema_spec
from hudi_framework.cli.streamer import streamer
from hudi_framework.config.enums import WriteEngine
from hudi_framework.console import render
from hudi_framework.errors import ConfigError, HudiError, JobVerificationError, TableExistsError, TableNotFoundError
from hudi_framework.jobs.report import ProgressObserver, render_report
from hudi_framework.jobs.runner import run_job
from hudi_framework.merge.choose import strategy_of
from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.runtime.components import Components
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.timeline.instant import Instant

app = typer.Typer(help="Create and inspect Apache Hudi tables.", no_args_is_help=True, add_completion=False)
show = typer.Typer(help="Show a table, its timeline, file slices or schema.", no_args_is_help=True)
app.add_typer(show, name="show")
app.add_typer(compaction, name="compaction")
app.add_typer(clustering, name="clustering")
app.add_typer(clean, name="clean")
app.add_typer(savepoint, name="savepoint")
app.add_typer(repair, name="repair")
app.add_typer(metadata, name="metadata")
app.add_typer(index, name="index")
app.add_typer(log_compaction, name="logcompaction")
show.command("log-blocks")(show_log_blocks)
app.command("restore")(restore)
app.command("rollback")(rollback)
app.command("archive")(archive)
# Unknown flags reach the command, which names an unsupported HoodieStreamer flag as such.
app.command("streamer", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(streamer)

PathArg = Annotated[str, typer.Argument(help="Table base path or URI (/data/t, file:///data/t, s3://bucket/t).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]


def _console() -> Console:
    return Console()


def _open(path: str, config: Path | None) -> HudiTable:
    return open_table(path, settings_from(config))


ConfigArg = Annotated[
    Path | None,
    typer.Argument(
        help="A TOML or YAML config file (see configs/); or give it as --config.", exists=True, metavar="config"
    ),
]


@app.command()
def init(
    config_arg: ConfigArg = None,
    path: Annotated[str | None, typer.Option(help="Base path; overrides table.base_path.")] = None,
    schema: Annotated[str | None, typer.Option(help="Columns as name:type,... e.g. id:long,city:string.")] = None,
    schema_from: Annotated[Path | None, typer.Option(help="Take the schema from a Parquet file.")] = None,
    exist_ok: Annotated[bool, typer.Option("--exist-ok", help="Succeed if the same table already exists.")] = False,
    config: ConfigOpt = None,
) -> None:
    """Create a table from a config file."""
    settings = settings_from(config_file(config_arg, config))
    base = path or settings.table.base_path
    if not base:
        raise ConfigError("no base path: set table.base_path in the config or pass --path")
    if exist_ok:
        try:
            existing = open_table(base, settings)
        except TableNotFoundError:
            pass
        else:
            wanted = table_config_from_settings(settings)
            if (existing.config.name, existing.config.table_type) != (wanted.name, wanted.table_type):
                raise TableExistsError(base)
            _console().print(f"[yellow]exists[/] {existing!r}")
            return
    arrow_schema = parse_schema_spec(schema) if schema else pq.read_schema(schema_from) if schema_from else None
    table = HudiTable.create(base, table_config_from_settings(settings), schema=arrow_schema, settings=settings)
    _console().print(f"[green]created[/] {table!r}")


@app.command()
def run(
    config_arg: Annotated[
        Path | None,
        typer.Argument(
            help="A TOML or YAML config file with a \\[job] section; or give it as --config.",
            exists=True,
            metavar="config",
        ),
    ] = None,
    path: Annotated[str | None, typer.Option(help="Base path; overrides table.base_path.")] = None,
    rows: Annotated[int | None, typer.Option(min=1, help="Rows of the initial write; overrides job.rows.")] = None,
    engine: Annotated[WriteEngine | None, typer.Option(case_sensitive=False, help="Overrides write.engine.")] = None,
    config: ConfigOpt = None,
) -> None:
    """Run the config's job: write sample data, apply change batches, read back and verify.

    Spark runs on job.spark_master with this interpreter as PYSPARK_PYTHON; exits 1 on a mismatch.
    """
    overrides: dict[str, object] = {}
    if path is not None:
        overrides["table.base_path"] = path
    if rows is not None:
        overrides["job.rows"] = rows
    if engine is not None:
        overrides["write.engine"] = engine.value
    settings = settings_from(config_file(config_arg, config), overrides=overrides)
    console = _console()
    if not console.is_terminal:
        console = Console(width=120)  # logs and pipes: room for the summary table's columns
    with ProgressObserver(console) as progress:
        report = run_job(settings, observer=progress)
    render_report(report, console)
    if report.read is not None and not report.read.matches:
        raise JobVerificationError(
            expected_rows=report.read.expected_rows,
            actual_rows=report.read.rows,
            expected_checksum=report.read.expected_checksum,
            actual_checksum=report.read.checksum,
        )


@show.command("table")
def show_table(path: PathArg, as_json: JsonOpt = False, properties: bool = False, config: ConfigOpt = None) -> None:
    """Key facts of the table (and all of hoodie.properties with --properties)."""
    table = _open(path, config)
    if as_json:
        typer.echo(json.dumps(table.properties, indent=2, sort_keys=True))
        return
    console = _console()
    console.print(render.table_summary(table))
    if properties:
        console.print(render.properties_table(table.properties))


@show.command("timeline")
def show_timeline(
    path: PathArg,
    as_json: JsonOpt = False,
    commits_only: Annotated[bool, typer.Option("--commits", help="Only completed write commits.")] = False,
    config: ConfigOpt = None,
    archived: Annotated[
        bool, typer.Option("--archived", help="Archived instants first, then the active ones.")
    ] = False,
) -> None:
    """Instants with actions, states and completion times."""
    table = _open(path, config)
    timeline = table.timeline
    instants = list(timeline.commits_timeline()) if commits_only else list(timeline.instants)
    old: list[Instant] = []
    if archived:
        from hudi_framework.read.archived import archived_timeline

        history = archived_timeline(table)
        old = list(history.commits_timeline() if commits_only else history.instants)
        instants = [*old, *instants]
    if as_json:
        rows: list[dict[str, object]] = [
            {"requested": i.requested_time, "action": i.action.value, "state": i.state.value,
             "completed": i.completion_time}
            for i in instants
        ]  # fmt: skip
        if archived:  # which ones the archive holds
            for n, row in enumerate(rows):
                row["archived"] = n < len(old)
        typer.echo(json.dumps(rows, indent=2))
        return
    _console().print(render.timeline_table(instants))


@show.command("commits")
def show_commits(
    path: PathArg,
    limit: Annotated[int | None, typer.Option(help="Only the newest N commits.")] = None,
    as_json: JsonOpt = False,
    config: ConfigOpt = None,
) -> None:
    """Completed commits, newest first, with operation and counts (Apache Hudi's show_commits)."""
    from hudi_framework.timeline.history import instant_history

    rows = instant_history(_open(path, config).timeline, commits_only=True).to_pylist()[:limit]
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    _console().print(render.history_table(rows, title="commits"))


@show.command("file-slices")
def show_file_slices(
    path: PathArg,
    partition: Annotated[str | None, typer.Option(help="Only this partition path.")] = None,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Instant time (or ISO date-time).")] = None,
    as_json: JsonOpt = False,
    config: ConfigOpt = None,
) -> None:
    """The latest file slice of every file group."""
    slices = _open(path, config).latest_file_slices(partition=partition, as_of=as_of)
    if as_json:
        rows = [
            {"partition": s.partition_path, "file_id": s.file_id, "base_instant": s.base_instant_time,
             "base_file": s.base_file_name, "log_files": s.log_file_names}
            for s in slices
        ]  # fmt: skip
        typer.echo(json.dumps(rows, indent=2))
        return
    _console().print(render.slices_table(slices))


@show.command("schema")
def show_schema(path: PathArg, config: ConfigOpt = None) -> None:
    """The table schema (from the latest commit, else the create schema)."""
    typer.echo(str(_open(path, config).schema()))


@app.command("plugins")
def plugins(as_json: JsonOpt = False, config: ConfigOpt = None) -> None:
    """Installed plugins and the components they provide (mergers with their strategy UUIDs), as the
    config's plugins section loads them."""
    registry = Components.from_settings(settings_from(config)).registry
    rows = [
        (kind.label, comp, strategy_of(comp) if kind is ComponentKind.MERGER else None)
        for kind in ComponentKind.all()
        for comp in registry.specs(kind)
    ]
    if as_json:
        listing = [
            {
                "kind": label,
                "name": comp.spec.name,
                "strategy_id": strategy,
                "aliases": list(comp.spec.aliases),
                "provided_by": comp.provider,
                "description": comp.spec.description,
            }
            for label, comp, strategy in rows
        ]
        typer.echo(json.dumps(listing, indent=2))
        return
    out = Table(title="installed components")
    out.add_column("kind", no_wrap=True)
    # Names and UUIDs are what users copy into configs: never cut or folded; descriptions wrap.
    out.add_column("name", no_wrap=True, min_width=max(len(comp.spec.name) for _, comp, _ in rows))
    out.add_column("merge strategy id", no_wrap=True, min_width=36)
    out.add_column("provided by")
    out.add_column("description", ratio=1)
    for label, comp, strategy in rows:
        out.add_row(label, comp.spec.name, strategy or "", comp.provider, comp.spec.description)
    console = _console()
    if not console.is_terminal:
        console.width = max(console.width, 200)  # piped output: no terminal width to respect
    console.print(out)


def main() -> None:
    """Entry point of ``hudi-fw``: errors print one clear line on stderr, never a traceback.

    Exit status: 2 for a usage or configuration error (bad arguments, a missing or invalid config
    file or option), 1 for any other project error, 130 when interrupted.
    """
    try:
        app(standalone_mode=False)
    except HudiError as e:
        _error_line(f"{type(e).__name__}: {e}")
        raise SystemExit(2 if isinstance(e, ConfigError) else 1) from None
    except typer.Abort:
        raise SystemExit(130) from None
    except _usage_errors() as e:  # bad arguments arrive here with standalone_mode=False
        _error_line(str(getattr(e, "format_message", e.__str__)()))
        raise SystemExit(2) from None


def _error_line(text: str) -> None:
    # soft_wrap: one line however narrow the terminal, so scripts can grep it.
    Console(stderr=True, soft_wrap=True).print(f"[red]error:[/] {escape(text)}", highlight=False)


def _usage_errors() -> tuple[type[Exception], ...]:
    """The command-line usage errors of the installed Typer (it vendors Click from 0.20 on)."""
    errors: list[type[Exception]] = []
    try:
        import click

        errors.append(click.ClickException)
    except ImportError:  # pragma: no cover - Typer without a Click dependency
        pass
    typer_error = getattr(typer, "TyperException", None)
    if isinstance(typer_error, type) and issubclass(typer_error, Exception):
        errors.append(typer_error)
    return tuple(errors)
