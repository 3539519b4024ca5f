"""``hudi-fw index build``: build a metadata-table index of an existing table (Apache Hudi's
``indexing``), here the record-level index (``record_index``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

import typer
from rich.console import Console

from hudi_framework.cli.configured import ConfigOpt, open_table, settings_from
from hudi_framework.lock.guard import LockPolicy, table_lock
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.metadata_writer.writer import prepare_metadata_table
from hudi_framework.write.metadata_upkeep import metadata_write_options

index = typer.Typer(help="Build a metadata-table index of an existing table.", no_args_is_help=True)

PathArg = Annotated[str, typer.Argument(help="Table base path or URI (/data/t, file:///data/t, s3://bucket/t).")]
#: Index types by their Apache Hudi SQL name (``CREATE INDEX ... USING record_index``).
_TYPES = {"record_index": MetadataPartition.RECORD_INDEX.value}
TypeOpt = Annotated[str, typer.Option("--type", help="The index to build: record_index.")]


@index.command("build")
def build(path: PathArg, index_type: TypeOpt = "record_index", config: ConfigOpt = None) -> None:
    """Build the index from the table's latest files, under the table lock (``settings.lock``).

    Creates the metadata table when the table has none. Writers keep the index in step only with
    ``hoodie.metadata.enable=true`` and the index's own option (``hoodie.metadata.record.index.enable``);
    a writer without them drops it.
    """
    partition = _TYPES.get(index_type.lower())
    if partition is None:
        raise typer.BadParameter(f"{index_type!r} is not an index this command builds ({', '.join(_TYPES)})")
    settings = settings_from(config)
    table = open_table(path, settings)
    if partition in table.config.metadata_partitions:
        Console().print(f"{index_type} already built; left as it is")
        return
    options = metadata_write_options(settings.write)
    options = replace(options, enable=True, partitions={**options.partitions, partition: True})
    provider = table.components.table_lock(
        base_path=table.base_uri, table_name=table.config.name, storage=table.storage
    )
    with table_lock(provider, table=table.base_uri, policy=LockPolicy.from_settings(settings.lock)):
        fresh = table.reload()
        prepare_metadata_table(fresh.storage, fresh.config, lambda: fresh.timeline, options)
    Console().print(f"{index_type} built")
