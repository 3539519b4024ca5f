"""``hudi-fw show log-blocks`` and ``hudi-fw repair truncate-log``: inspect and repair log files."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.cli.service_cli import console
from hudi_framework.read.log_inspection import LogBlockInfo, inspect_log_blocks
from hudi_framework.write.log_repair import truncate_log_tail

__all__ = ["repair", "show_log_blocks"]

repair = typer.Typer(help="Repair damaged table files (see docs/operations.md).", no_args_is_help=True)

PathArg = Annotated[str, typer.Argument(help="Table base path or URI (/data/t, file:///data/t, s3://bucket/t).")]
_GUIDE = "docs/operations.md, 'Recovering from a corrupt log block'"


def _row(info: LogBlockInfo) -> dict[str, object]:
    return {
        "partition": info.partition_path, "file_id": info.file_id, "log_file": info.log_file,
        "offset": info.offset, "length": info.length, "type": info.block_type, "instant": info.instant_time,
        "target_instant": info.target_instant_time, "records": info.record_count, "status": info.status,
        "corrupt": info.corrupt, "reason": info.reason,
    }  # fmt: skip


def show_log_blocks(
    path: PathArg,
    partition: Annotated[str | None, typer.Option(help="Only this partition path.")] = None,
    file_id: Annotated[str | None, typer.Option("--file-id", help="Only this file group.")] = None,
    corrupt_only: Annotated[bool, typer.Option("--corrupt-only", help="Only damaged blocks.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    config: ConfigOpt = None,
) -> None:
    """Every block of the latest file slices' log files: offset, type, instant, records, damage.

    A corrupt block's status says what readers lose by skipping it: lost (rows of a completed write),
    unknown (its writer cannot be read), rolled-back or uncommitted (nothing).
    """
    infos = inspect_log_blocks(open_table(path, settings_from(config)), partition=partition, file_id=file_id)
    if corrupt_only:
        infos = [i for i in infos if i.corrupt]
    if as_json:
        typer.echo(json.dumps([_row(i) for i in infos], indent=2))
        return
    out = Table(title=f"log blocks of {path}")
    for col in ("log file", "offset", "bytes", "type", "instant", "records", "status", "reason"):
        out.add_column(col, justify="right" if col in ("offset", "bytes", "records") else "left")
    for i in infos:
        style = "red" if i.may_lose_rows else "yellow" if i.corrupt else None
        out.add_row(
            i.log_file, str(i.offset), str(i.length), i.block_type, i.instant_time or "-",
            "-" if i.record_count is None else str(i.record_count),
            f"corrupt: {i.status}" if i.corrupt else i.status, i.reason or "", style=style,
        )  # fmt: skip
    shown = console()
    shown.print(out)
    lossy = sum(1 for i in infos if i.may_lose_rows)
    damaged = sum(1 for i in infos if i.corrupt)
    if damaged:
        shown.print(
            f"{damaged} corrupt block(s), {lossy} of which may hold committed rows that every reader skips "
            f"and compaction refuses to drop; see {_GUIDE}"
        )


@repair.command("truncate-log")
def truncate_log(
    path: PathArg,
    log_file: Annotated[str, typer.Argument(help="The log file (its key in the table, as show log-blocks prints).")],
    offset: Annotated[int, typer.Option("--offset", min=0, help="Offset of the corrupt tail block to cut off.")],
    config: ConfigOpt = None,
) -> None:
    """Cut a torn tail (a corrupt block running to the end of a log file) off the file.

    Refused when intact blocks follow the offset or a completed write wrote the tail; the original
    file is kept under .hoodie/.aux/log-repair/.
    """
    done = truncate_log_tail(open_table(path, settings_from(config)), log_file, offset)
    action = "deleted (nothing intact)" if done.deleted else f"truncated to {done.offset} bytes"
    console().print(f"{done.log_file}: {action}, {done.removed_bytes} bytes removed; original at {done.backup_key}")
