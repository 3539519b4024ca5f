"""``hudi-fw index build|schedule|run``: build a metadata-table index of an existing table with Apache
Hudi's asynchronous ``indexing`` action (its ``HoodieIndexer`` modes ``scheduleAndExecute``,
``schedule`` and ``execute``), while writers go on committing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.config import HudiSettings
from hudi_framework.lock.guard import LockPolicy, table_lock
from hudi_framework.metadata_writer.indexing import (
    INDEXABLE_PARTITIONS,
    IndexPlan,
    TableLock,
    execute_indexing,
    pending_index_plans,
    schedule_indexing,
)
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.runtime.table import HudiTable
from hudi_framework.write.metadata_upkeep import metadata_write_options

index = typer.Typer(help="Build a metadata-table index of an existing table.", no_args_is_help=True)

PathArg = Annotated[str, typer.Argument(help="Table base path or URI (/data/t, file:///data/t, s3://bucket/t).")]
TypeOpt = Annotated[
    str, typer.Option("--type", help=f"The index to build: {', '.join(INDEXABLE_PARTITIONS)} (Apache Hudi's names).")
]
InstantOpt = Annotated[
    str | None, typer.Option("--instant", help="The pending indexing instant to run (default: every pending one).")
]


def _partition(index_type: str) -> str:
    partition = index_type.strip().lower()
    if partition not in INDEXABLE_PARTITIONS:
        raise typer.BadParameter(
            f"{index_type!r} is not an index this command builds ({', '.join(INDEXABLE_PARTITIONS)})",
            param_hint="--type",
        )
    return partition


def _options(settings: HudiSettings, partition: str | None) -> MetadataWriteOptions:
    options = metadata_write_options(settings.write)
    enabled = {**options.partitions, partition: True} if partition else dict(options.partitions)
    return replace(options, enable=True, partitions=enabled)


def _lock(table: HudiTable, settings: HudiSettings) -> TableLock:
    policy = LockPolicy.from_settings(settings.lock)

    @contextmanager
    def held() -> Iterator[object]:
        provider = table.components.table_lock(
            base_path=table.base_uri, table_name=table.config.name, storage=table.storage
        )
        with table_lock(provider, table=table.base_uri, policy=policy, owner="the indexer") as lock:
            yield lock

    return held


def _schedule(path: str, index_type: str, config: Path | None) -> tuple[HudiTable, HudiSettings, IndexPlan | None]:
    partition = _partition(index_type)
    settings = settings_from(config)
    table = open_table(path, settings)
    plan = schedule_indexing(table.storage, partition, _options(settings, partition), _lock(table, settings))
    return table, settings, plan


@index.command("build")
def build(path: PathArg, index_type: TypeOpt = "record_index", config: ConfigOpt = None) -> None:
    """Schedule and run an ``indexing`` instant (Apache Hudi ``--mode scheduleAndExecute``).

    The table lock (``settings.lock``) is held only to write the plan and to complete it; the
    index is built from the table's files meanwhile, writers committing as usual (they log to the
    index being built). Creates the metadata table when the table has none. Writers keep the
    index in step with ``hoodie.metadata.enable=true``; a writer without it deletes the metadata
    table, and an index being built then fails and is rolled back.
    """
    table, settings, plan = _schedule(path, index_type, config)
    if plan is None:
        Console().print(f"{index_type} already built; left as it is")
        return
    execute_indexing(table.storage, plan, _options(settings, None), _lock(table, settings))
    Console().print(f"{index_type} built (indexing instant {plan.instant_time})")


@index.command("schedule")
def schedule(path: PathArg, index_type: TypeOpt = "record_index", config: ConfigOpt = None) -> None:
    """Schedule an ``indexing`` instant (Apache Hudi ``--mode schedule``); ``index run`` builds it.

    From now on writers also log to the index, which no reader uses until it is built.
    """
    _, _, plan = _schedule(path, index_type, config)
    if plan is None:
        Console().print(f"{index_type} already built; nothing scheduled")
        return
    Console().print(f"scheduled indexing instant {plan.instant_time} for {index_type}")


@index.command("run")
def run(path: PathArg, instant: InstantOpt = None, config: ConfigOpt = None) -> None:
    """Run pending ``indexing`` instants (Apache Hudi ``--mode execute``): one left by ``index
    schedule``, or by an indexer that died (the build starts again and completes)."""
    settings = settings_from(config)
    table = open_table(path, settings)
    plans = [p for p in pending_index_plans(table.timeline) if instant is None or p.instant_time == instant]
    if instant is not None and not plans:
        raise typer.BadParameter(f"no pending indexing instant {instant!r}", param_hint="--instant")
    if not plans:
        Console().print("no pending indexing instant")
        return
    for plan in plans:
        execute_indexing(table.storage, plan, _options(settings, None), _lock(table, settings))
        Console().print(f"{', '.join(plan.partitions)} built (indexing instant {plan.instant_time})")
