"""``hudi-fw metadata validate|init|delete``: is a table's metadata table usable and does it match
storage; build it from a listing; remove it."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Annotated

import typer
from rich.console import Console

from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.errors import MetadataTableUnusableError
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_framework.metadata_writer.writer import prepare_metadata_table
from hudi_framework.table.metadata_table import disable_metadata_table
from hudi_framework.write.metadata_upkeep import metadata_write_options

metadata = typer.Typer(help="Inspect, build or remove a table's metadata table.", no_args_is_help=True)

PathArg = Annotated[str, typer.Argument(help="Table base path or URI (/data/t, file:///data/t, s3://bucket/t).")]


@metadata.command("validate")
def validate(
    path: PathArg,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    config: ConfigOpt = None,
) -> None:
    """Compare the metadata table's files partition with a storage listing (committed files only).

    Exits with 1 when the table has no usable metadata table or when they differ.
    """
    table = open_table(path, settings_from(config))
    try:
        mdt = MetadataTable.open(table.storage, table.properties)
        if mdt is None:
            raise MetadataTableUnusableError("the table has no metadata table")
        try:
            check_in_sync(mdt, table.timeline)
            in_sync, why = True, ""
        except MetadataTableUnusableError as e:
            in_sync, why = False, e.reason
        report = validate_files(table.storage, table.timeline, table.properties)
        partitions = mdt.all_partitions()
    except MetadataTableUnusableError as e:
        if as_json:
            typer.echo(json.dumps({"ok": False, "error": e.reason}))
        else:
            Console().print(f"metadata table not usable: {e.reason}")
        raise typer.Exit(1) from None
    ok = report.ok and in_sync
    differences = {
        "missing": list(report.missing),
        "extra": list(report.extra),
        "partitions_missing": list(report.partitions_missing),
        "partitions_extra": list(report.partitions_extra),
    }
    if as_json:
        out = {
            "ok": ok,
            "in_sync": in_sync,
            "out_of_sync_reason": why,
            "partitions": partitions,
            **differences,
            "size_mismatch": {k: list(v) for k, v in report.size_mismatch.items()},
        }
        typer.echo(json.dumps(out))
    else:
        console = Console()
        console.print(f"metadata table {'matches storage' if ok else 'differs from storage'}")
        if not in_sync:
            console.print(f"  {why}")
        for name, items in differences.items():
            for item in items:
                console.print(f"  {name.replace('_', ' ')}: {item}")
        for key, (in_mdt, on_storage) in report.size_mismatch.items():
            console.print(f"  size: {key}: {in_mdt} in the metadata table, {on_storage} on storage")
    if not ok:
        raise typer.Exit(1)


@metadata.command("init")
def init(path: PathArg, config: ConfigOpt = None) -> None:
    """Build the metadata table from a storage listing (its files partition, and the column statistics
    partitions unless the config turns them off), or bring an existing one to the config's partitions.

    Run it with no writer on the table; writers then need ``hoodie.metadata.enable=true`` to keep it
    (a writer with ``false`` deletes it).
    """
    settings = settings_from(config)
    table = open_table(path, settings)
    had = "files" in table.config.metadata_partitions
    options = replace(metadata_write_options(settings.write, settings.services.clean), enable=True)
    changed = prepare_metadata_table(table.storage, table.config, lambda: table.timeline, options)
    if not changed:
        Console().print("metadata table already there; left as it is")
    elif had:
        Console().print("metadata table already there; its partitions now follow the options")
    else:
        Console().print("metadata table built")


@metadata.command("delete")
def delete(path: PathArg, config: ConfigOpt = None) -> None:
    """Remove the metadata table: its partitions leave ``hoodie.properties`` first, then ``.hoodie/metadata`` goes."""
    table = open_table(path, settings_from(config))
    removed = disable_metadata_table(table.storage)
    Console().print("metadata table deleted" if removed else "the table has no metadata table")
