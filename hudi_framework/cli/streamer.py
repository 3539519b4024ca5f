"""``hudi-fw streamer``: ingest a source into a table, round after round, with HoodieStreamer's flags.

Settings come, lowest precedence first, from the optional config file, ``HUDI_*`` variables, the
``--props`` file, ``--hoodie-conf k=v`` options and the other flags. A HoodieStreamer flag this
command does not support fails naming it, never silently.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated, Final

import typer
from rich.console import Console

from hudi_framework.config.enums import WriteEngine
from hudi_framework.config.properties_file import read_properties_file
from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError
from hudi_framework.jobs.engine import start_spark
from hudi_framework.streamer.job import StopSignal, run_streamer
from hudi_framework.streamer.report import StreamerProgress, render_summary

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["streamer"]

#: HoodieStreamer flags with no counterpart here (their feature is absent, or Spark's own job does it).
_UNSUPPORTED_FLAGS: Final = frozenset(
    {
        "--base-file-format", "--enable-hive-sync", "--enable-sync", "--sync-tool-classes", "--filter-dupes",
        "--commit-on-errors", "--payload-class", "--allow-commit-on-no-checkpoint-change", "--force-empty-sync",
        "--delta-sync-scheduling-weight", "--compact-scheduling-weight", "--delta-sync-scheduling-minshare",
        "--compact-scheduling-minshare", "--cluster-scheduling-weight", "--cluster-scheduling-minshare",
        "--run-bootstrap", "--bootstrap-overwrite", "--bootstrap-index-class", "--retry-on-source-failures",
        "--retry-interval-seconds", "--max-retry-count", "--allow-fetch-from-multiple-sources",
        "--ingestion-metrics-class", "--config-hot-update-strategy-class", "--ignore-checkpoint",
        "--post-write-termination-strategy-class", "--initial-checkpoint-provider", "--error-table-enabled",
    }
)  # fmt: skip
#: Apache Hudi's schema provider that reads hoodie.streamer.schemaprovider.source.schema.file.
_FILE_SCHEMA_PROVIDERS: Final = frozenset(
    {"FilebasedSchemaProvider", "org.apache.hudi.utilities.schema.FilebasedSchemaProvider"}
)


def _hoodie_options(props: Path | None, confs: list[str] | None) -> dict[str, str]:
    options = read_properties_file(props) if props is not None else {}
    for item in confs or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--hoodie-conf needs key=value, got {item!r}")
        options[key.strip()] = value.strip()
    return options


def _refuse_extra(args: list[str]) -> None:
    if not args:
        return
    flag = next((a for a in args if a.startswith("-")), args[0])
    name = flag.split("=", 1)[0]
    if name in _UNSUPPORTED_FLAGS:
        raise ConfigError(f"HoodieStreamer flag {name} is not supported by hudi-fw streamer")
    if flag.startswith("-"):
        raise ConfigError(f"unknown flag {name} (see hudi-fw streamer --help)")
    raise ConfigError(f"unexpected argument {flag!r}: give at most one config file")


@contextmanager
def _stop_on_signals(stop: StopSignal, console: Console) -> Iterator[None]:
    """SIGTERM/SIGINT: finish the current round, then stop; a second one stops at once (the round's
    instant stays inflight and the next run rolls it back, as after a crash)."""

    def handler(number: int, frame: FrameType | None) -> None:
        name = signal.Signals(number).name
        if stop.stopped:
            raise KeyboardInterrupt(name)
        console.print(f"[yellow]{name}: stopping after the current round (again to stop now)[/]")
        stop.stop(name)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old)


def streamer(
    ctx: typer.Context,
    config_arg: Annotated[
        Path | None,
        typer.Argument(help="A TOML or YAML config file with a \\[streamer] section.", metavar="[config]"),
    ] = None,
    config: Annotated[Path | None, typer.Option("--config", help="The config file, as an option.")] = None,
    target_base_path: Annotated[str | None, typer.Option(help="The table's base path (table.base_path).")] = None,
    target_table: Annotated[str | None, typer.Option(help="The table's name (table.name).")] = None,
    table_type: Annotated[str | None, typer.Option(help="COPY_ON_WRITE or MERGE_ON_READ (table.type).")] = None,
    source_class: Annotated[
        str | None, typer.Option(help="The source: a name, alias or Apache Hudi class (streamer.source).")
    ] = None,
    source_ordering_field: Annotated[
        str | None, typer.Option(help="The ordering field (table.ordering_fields).")
    ] = None,
    op: Annotated[str | None, typer.Option("--op", help="UPSERT, INSERT or BULK_INSERT (streamer.operation).")] = None,
    props: Annotated[Path | None, typer.Option(help="A .properties file of Apache Hudi options.")] = None,
    hoodie_conf: Annotated[
        list[str] | None, typer.Option("--hoodie-conf", help="An Apache Hudi option key=value (repeatable).")
    ] = None,
    source_limit: Annotated[
        int | None, typer.Option(min=1, help="Bytes or records per round (streamer.source_limit).")
    ] = None,
    transformer_class: Annotated[
        list[str] | None,
        typer.Option(
            help="A transformer: SqlQueryBasedTransformer, a plugin (FlatteningTransformer...) or "
            "package.module:function (repeatable, or comma-separated)."
        ),
    ] = None,
    schemaprovider_class: Annotated[
        str | None, typer.Option(help="FilebasedSchemaProvider: cast batches to the schema file's schema.")
    ] = None,
    continuous: Annotated[bool, typer.Option("--continuous", help="Run rounds until stopped.")] = False,
    once: Annotated[bool, typer.Option("--once", help="One round, whatever the config says (for schedulers).")] = False,
    min_sync_interval_seconds: Annotated[
        float | None, typer.Option(min=0, help="Continuous: seconds between round starts.")
    ] = None,
    max_rounds: Annotated[int | None, typer.Option(min=1, help="Continuous: stop after this many rounds.")] = None,
    stop_after_idle_rounds: Annotated[
        int | None, typer.Option(min=1, help="Continuous: stop after this many rounds in a row found nothing new.")
    ] = None,
    checkpoint: Annotated[
        str | None, typer.Option(help="Resume from this checkpoint once (recorded as the reset key).")
    ] = None,
    disable_compaction: Annotated[
        bool, typer.Option("--disable-compaction", help="Merge-on-read: no compaction (streamer.disable_compaction).")
    ] = False,
    max_pending_compactions: Annotated[
        int | None, typer.Option(min=1, help="Continuous: rounds wait while this many compactions are pending.")
    ] = None,
    max_pending_clustering: Annotated[
        int | None, typer.Option(min=1, help="Continuous: rounds wait while this many clusterings are pending.")
    ] = None,
    spark_master: Annotated[str | None, typer.Option(help="Spark master (streamer.spark_master).")] = None,
    engine: Annotated[WriteEngine | None, typer.Option(case_sensitive=False, help="Overrides write.engine.")] = None,
) -> None:
    """Ingest a source into a table: one round, or round after round with --continuous.

    Takes Apache HoodieStreamer's flags; the checkpoint commits with each batch, so a restart after
    any crash resumes exactly once. SIGTERM/SIGINT stop a continuous run after the current round.
    """
    extra = list(ctx.args)
    if config_arg is not None and str(config_arg).startswith("-"):  # an unknown flag where the file would be
        extra, config_arg = [str(config_arg), *extra], None
    _refuse_extra(extra)
    if config_arg is not None and config is not None and config_arg != config:
        raise ConfigError("give the config file once: as the argument or as --config")
    if once and continuous:
        raise ConfigError("--once and --continuous exclude each other")
    if schemaprovider_class is not None and schemaprovider_class not in _FILE_SCHEMA_PROVIDERS:
        raise ConfigError(
            f"--schemaprovider-class {schemaprovider_class}: only FilebasedSchemaProvider is supported "
            "(hoodie.streamer.schemaprovider.source.schema.file)"
        )
    flags: dict[str, object | None] = {
        "table.base_path": target_base_path,
        "table.name": target_table,
        "table.type": table_type,
        "table.ordering_fields": [source_ordering_field] if source_ordering_field else None,
        "streamer.source": source_class,
        "streamer.operation": op.lower() if op else None,
        "streamer.source_limit": source_limit,
        "streamer.transformers": ",".join(transformer_class) if transformer_class else None,
        "streamer.min_sync_interval_seconds": min_sync_interval_seconds,
        "streamer.max_rounds": max_rounds,
        "streamer.stop_after_idle_rounds": stop_after_idle_rounds,
        "streamer.checkpoint": checkpoint,
        "streamer.spark_master": spark_master,
        "streamer.disable_compaction": True if disable_compaction else None,
        "streamer.max_pending_compactions": max_pending_compactions,
        "streamer.max_pending_clustering": max_pending_clustering,
        "streamer.continuous": True if continuous else False if once else None,
        "write.engine": engine.value if engine is not None else None,
    }
    overrides = {k: v for k, v in flags.items() if v is not None}
    settings = HudiSettings.load(
        config_arg or config, hoodie_options=_hoodie_options(props, hoodie_conf) or None, overrides=overrides or None
    )
    if schemaprovider_class is not None and settings.streamer.schema_file is None:
        raise ConfigError(f"{schemaprovider_class} needs hoodie.streamer.schemaprovider.source.schema.file")
    console = Console()
    if not console.is_terminal:
        console = Console(width=160)  # logs and pipes: room for the round lines and the summary
    stop = StopSignal()
    spark: SparkSession | None = None
    with StreamerProgress(console) as progress:
        try:
            if settings.write.engine is WriteEngine.SPARK:
                # Started before the handlers: a new SparkContext installs its own SIGINT handler
                # (cancel every job at once), which would replace ours.
                progress.status(f"starting a Spark session on {settings.streamer.spark_master}")
                spark = start_spark(settings.streamer.spark_master, settings.streamer.spark_conf)
            with _stop_on_signals(stop, console):
                report = run_streamer(settings, spark=spark, observer=progress, stop=stop)
        finally:
            if spark is not None:
                spark.stop()
    render_summary(report, console)
