"""hudi_framework on the local engine (one process, pyarrow)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from bench import compaction64
from bench.dataset import EVENT_TIME, KEY, PARTITION
from bench.report import TAGGING_FILE_GROUPS
from bench.step import Step, StepContext
from hudi_framework import open_table_service
from hudi_framework.config.settings import HudiSettings
from hudi_framework.metadata.index_source import metadata_index_source
from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.read.options import ReadOptions
from hudi_framework.read.reader import collect_plan, plan_read, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.metadata import WriteStat
from hudi_framework.vocabulary import DataSkippingSource, TableType, WriteOperation
from hudi_framework.write.client import WriteClient
from hudi_framework.write.moves import tag_for_write
from hudi_framework.write.prepare import prepare_rows
from hudi_framework.write.session import WriteSession

SETTINGS = {"hoodie.index.type": "BLOOM"}  # everything else at its default
#: Merge-on-read steps measure the batch going to log files: with small-file handling on, the 2% new
#: keys land in every (small) file group, and a delta commit rewrites such groups copy-on-write style
#: (as Apache Hudi's delta-commit partitioner does with a bloom index), leaving no logs to read or compact.
MOR_SETTINGS = {"hoodie.parquet.small.file.limit": "0"}


#: The scaling section's record-size estimate: new files hold ``hoodie.parquet.max.file.size / 1024`` rows.
RECORD_SIZE_ESTIMATE = 1024


def scaling_settings(ctx: StepContext) -> HudiSettings:
    """The comparison's settings, with files sized to hold the inputs' ``file_group_rows`` rows each.

    Bulk insert sizes new file groups by ``max.file.size / record.size.estimate`` (no earlier commit);
    small-file handling is off (``small.file.limit=0``), so an upsert's new keys go to new file groups
    instead of growing the existing ones: the largest file group rewritten is the same at every size.
    """
    rows = ctx.inputs.scaling_shape().file_group_rows
    options = {
        **SETTINGS,
        "hoodie.copyonwrite.record.size.estimate": str(RECORD_SIZE_ESTIMATE),
        "hoodie.parquet.max.file.size": str(rows * RECORD_SIZE_ESTIMATE),
        "hoodie.parquet.small.file.limit": "0",
    }
    return HudiSettings.from_hoodie_options(options, env=False)


#: The metadata table with its record index (column stats are on by default with the MDT), and the
#: index that tags from it: the record-index steps' settings on top of :data:`SETTINGS`.
RLI_SETTINGS = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
    "hoodie.index.type": "RECORD_INDEX",
}
#: The metadata table with column stats (its default), for the filtered reads that plan from it.
MDT_SETTINGS = {"hoodie.metadata.enable": "true"}


def settings(table: HudiTable | None = None, extra: dict[str, str] | None = None) -> HudiSettings:
    """The write settings of every step of ours (the Spark engine's too), for ``table`` if given,
    with ``extra`` options over them."""
    mor = table is not None and table.config.table_type is TableType.MERGE_ON_READ
    options = {**SETTINGS, **(MOR_SETTINGS if mor else {}), **(extra or {})}
    return HudiSettings.from_hoodie_options(options, env=False)


def preload() -> None:
    """Import what our steps use before the timer, as every other system's modules are imported.

    Plugins name their implementations lazily ("module:attribute"), so a plugin manager alone no
    longer imports the key generators, merger, index and services: build them once for a table
    config like the bench's (no table is opened).
    """
    from hudi_framework import Components
    from hudi_framework.write.session import build_write_components

    components = Components.from_settings(settings())
    for table_type in ("COPY_ON_WRITE", "MERGE_ON_READ"):
        config = new_table_config(
            "bench", table_type=table_type, record_key_fields=[KEY], partition_fields=[PARTITION],
            ordering_fields=[EVENT_TIME],
        )  # fmt: skip
        build_write_components(components, config)
    for service in ("compaction", "clean"):
        components.registry.get(ComponentKind.SERVICE, service).spec.load_factory()


def _path(ctx: StepContext) -> str:
    return str(ctx.work / "table")


def _create(ctx: StepContext, table_type: str, schema: pa.Schema) -> HudiTable:
    config = new_table_config(
        "bench", table_type=table_type, record_key_fields=[KEY], partition_fields=[PARTITION],
        ordering_fields=[EVENT_TIME],
    )  # fmt: skip
    return HudiTable.create(_path(ctx), config, schema=schema)


def _load(table_type: str, extra: dict[str, str] | None = None) -> Any:
    def prepare(ctx: StepContext) -> None:
        base = ctx.inputs.read_base()
        WriteClient(_create(ctx, table_type, base.schema), settings(extra=extra)).bulk_insert(base)

    return prepare


def _load_and_upsert(table_type: str) -> Any:
    def prepare(ctx: StepContext) -> None:
        _load(table_type)(ctx)
        table = HudiTable.open(_path(ctx))
        WriteClient(table, settings(table)).upsert(ctx.inputs.read_changes())

    return prepare


#: Prepare a table holding the base data (load_cow is shared with the hudi-rs read and the Spark
#: upsert). One object per state, so the runner prepares each state once per size.
load_cow = _load("COPY_ON_WRITE")
load_mor = _load("MERGE_ON_READ")
upserted_mor = _load_and_upsert("MERGE_ON_READ")
#: The merge-on-read table bulk-inserted with the metadata table and its record index.
load_mor_rli = _load("MERGE_ON_READ", RLI_SETTINGS)


def bulk_insert(ctx: StepContext) -> dict[str, Any]:
    base = ctx.inputs.read_base()
    result = WriteClient(_create(ctx, "COPY_ON_WRITE", base.schema), settings()).bulk_insert(base)
    return {"rows": result.num_writes, "files": len(result.stats)}


def upsert(ctx: StepContext) -> dict[str, Any]:
    """Updates, inserts and deletes (``_hoodie_is_deleted`` rows) in one commit."""
    table = HudiTable.open(_path(ctx))
    result = WriteClient(table, settings(table)).upsert(ctx.inputs.read_changes())
    return {"rows": result.num_writes, "files": len(result.stats), "deletes": result.num_deletes}


def small_upsert(ctx: StepContext) -> dict[str, Any]:
    """A 1% batch of updates."""
    table = HudiTable.open(_path(ctx))
    result = WriteClient(table, settings(table)).upsert(ctx.inputs.read_small_changes())
    return {"rows": result.num_writes, "files": len(result.stats)}


def small_upsert_rli(ctx: StepContext) -> dict[str, Any]:
    """A 1% batch of updates tagged by the record index (the metadata table, kept up to date, timed)."""
    table = HudiTable.open(_path(ctx))
    result = WriteClient(table, settings(table, RLI_SETTINGS)).upsert(ctx.inputs.read_small_changes())
    return {"rows": result.num_writes, "files": len(result.stats)}


def compaction(ctx: StepContext) -> dict[str, Any]:
    table = HudiTable.open(_path(ctx))
    service, host = open_table_service(table, settings(table), "compaction")
    instant = service.schedule(host)
    if instant is not None:
        service.execute(host, instant)
    return {"instant": instant}


def snapshot_read(ctx: StepContext) -> dict[str, Any]:
    return {"rows": read_table(HudiTable.open(_path(ctx))).num_rows}


def incremental_read(ctx: StepContext) -> dict[str, Any]:
    table = HudiTable.open(_path(ctx))
    commits = table.timeline.commits_timeline()
    begin = commits[-2].completion_time if table.config.version >= 8 else commits[-2].requested_time
    return {"rows": read_table(table, query_type="incremental", begin=begin).num_rows}


#: The clustered table of the filtered reads: the base rows in ts order, one insert per chunk, so each
#: of the ``CLUSTERED_CHUNKS`` x 8 regions files holds its own ts range.
CLUSTERED_CHUNKS = 100
#: The filtered reads pick this chunk's ts range: 8 of 800 files (1%) hold matching rows.
_PICKED_CHUNK = 37
_BOUNDS_FILE = "picked_ts_range.json"


def _clustered(extra: dict[str, str]) -> Any:
    def prepare(ctx: StepContext) -> None:
        _write_clustered(ctx, extra)

    return prepare


def _write_clustered(ctx: StepContext, extra: dict[str, str]) -> None:
    base = ctx.inputs.read_base().sort_by(EVENT_TIME)
    table = _create(ctx, "COPY_ON_WRITE", base.schema)
    client = WriteClient(table, HudiSettings.from_hoodie_options({**SETTINGS, **MOR_SETTINGS, **extra}, env=False))
    size = -(-base.num_rows // CLUSTERED_CHUNKS)
    for k in range(CLUSTERED_CHUNKS):
        client.insert(base.slice(k * size, size))
    picked = base.column(EVENT_TIME).slice(_PICKED_CHUNK * size, size)
    bounds = [picked[0].as_py(), picked[len(picked) - 1].as_py()]
    (ctx.work / _BOUNDS_FILE).write_text(json.dumps(bounds), encoding="utf-8")


#: The clustered table without a metadata table, and the same written with one (column stats on).
load_clustered = _clustered({})
load_clustered_mdt = _clustered(MDT_SETTINGS)


def _filters(ctx: StepContext) -> list[tuple[str, str, Any]]:
    """The picked chunk's ts range, noted beside the table when it was prepared."""
    low, high = json.loads((ctx.work / _BOUNDS_FILE).read_text(encoding="utf-8"))
    return [(EVENT_TIME, ">=", low), (EVENT_TIME, "<=", high)]


def filtered_read_unpruned(ctx: StepContext) -> dict[str, Any]:
    """Without any skipping: every file read, then the rows filtered."""
    filters = _filters(ctx)
    rows = read_table(HudiTable.open(_path(ctx)))
    expression = (pc.field(EVENT_TIME) >= filters[0][2]) & (pc.field(EVENT_TIME) <= filters[1][2])
    return {"rows": rows.filter(expression).num_rows}


def filtered_read(ctx: StepContext) -> dict[str, Any]:
    """Default source (no file statistics): every file's footer read, only matching row groups decoded."""
    table = HudiTable.open(_path(ctx))
    plan = plan_read(table, ReadOptions(filters=tuple(_filters(ctx))))
    rows = sum(b.num_rows for b in collect_plan(plan, table.storage))
    return {"rows": rows, "files": len(plan.tasks), "files_skipped": plan.skipping.files_skipped}


def filtered_read_footers(ctx: StepContext) -> dict[str, Any]:
    """``data.skipping.source=parquet_footers``: files skipped while planning, only matching ones read."""
    table = HudiTable.open(_path(ctx))
    options = ReadOptions(filters=tuple(_filters(ctx)), data_skipping_source=DataSkippingSource.PARQUET_FOOTERS)
    plan = plan_read(table, options)
    rows = sum(b.num_rows for b in collect_plan(plan, table.storage))
    return {"rows": rows, "files": len(plan.tasks), "files_skipped": plan.skipping.files_skipped}


def filtered_read_mdt(ctx: StepContext) -> dict[str, Any]:
    """The default read (``data.skipping.source=metadata_table``) of a table with a metadata table:
    files listed and skipped from its column stats, only matching ones read."""
    table = HudiTable.open(_path(ctx))
    plan = plan_read(table, ReadOptions(filters=tuple(_filters(ctx))))
    rows = sum(b.num_rows for b in collect_plan(plan, table.storage))
    return {"rows": rows, "files": len(plan.tasks), "files_skipped": plan.skipping.files_skipped}


def filtered_read_mdt_off(ctx: StepContext) -> dict[str, Any]:
    """The same table and read with ``hoodie.metadata.enable=false``: the partitions listed and the
    files skipped from their Parquet footers (the data skipping there is without the metadata table)."""
    table = HudiTable.open(_path(ctx))
    options = ReadOptions(
        filters=tuple(_filters(ctx)), metadata_enable=False, data_skipping_source=DataSkippingSource.PARQUET_FOOTERS
    )
    plan = plan_read(table, options)
    rows = sum(b.num_rows for b in collect_plan(plan, table.storage))
    return {"rows": rows, "files": len(plan.tasks), "files_skipped": plan.skipping.files_skipped}


def bloom_tagging(ctx: StepContext) -> dict[str, Any]:
    """The index step of an upsert alone: keys of the batch located in the table's base files."""
    table = HudiTable.open(_path(ctx))
    session = WriteSession(table, settings())
    rows = prepare_rows(WriteOperation.UPSERT, ctx.inputs.read_changes(), table.schema(), session.keygen)
    tagged = tag_for_write(
        rows, table.latest_file_slices(), table.storage,
        config=table.config, index=session.index, merger=session.merger, keygen=session.keygen,
    )  # fmt: skip
    return {"rows": tagged.num_rows}


def file_group_settings(ctx: StepContext, file_groups: int) -> dict[str, str]:
    """Options that make bulk insert write the inputs' base table in ``file_groups`` file groups.

    As :func:`scaling_settings` does: new files hold ``max.file.size / record.size.estimate`` rows,
    so that quotient is the rows of one file group (rounded up: no partial group is left over);
    small-file handling off.
    """
    rows = ctx.inputs.base_rows()
    per_group = -(-rows // file_groups)
    return {
        "hoodie.copyonwrite.record.size.estimate": str(RECORD_SIZE_ESTIMATE),
        "hoodie.parquet.max.file.size": str(per_group * RECORD_SIZE_ESTIMATE),
        "hoodie.parquet.small.file.limit": "0",
    }


def _load_file_groups(file_groups: int) -> Any:
    def prepare(ctx: StepContext) -> None:
        base = ctx.inputs.read_base()
        extra = {**RLI_SETTINGS, **file_group_settings(ctx, file_groups)}
        WriteClient(_create(ctx, "COPY_ON_WRITE", base.schema), settings(extra=extra)).bulk_insert(base)

    return prepare


def _tagging(file_groups: int, index_type: str) -> Any:
    def run(ctx: StepContext) -> dict[str, Any]:
        extra = {**RLI_SETTINGS, **file_group_settings(ctx, file_groups), "hoodie.index.type": index_type}
        return tag_batch(ctx, extra)

    return run


def tag_batch(ctx: StepContext, extra: dict[str, str]) -> dict[str, Any]:
    """An upsert's index step alone, as the write client runs it: the change batch's keys located by
    the index ``extra`` configures (from the metadata table where that index uses it)."""
    table = HudiTable.open(_path(ctx))
    session = WriteSession(table, settings(extra=extra))
    rows = prepare_rows(WriteOperation.UPSERT, ctx.inputs.read_changes(), table.schema(), session.keygen)
    slices = table.latest_file_slices()
    metadata = metadata_index_source(session.index, table.storage, table.properties, table.timeline)
    tagged = tag_for_write(
        rows, slices, table.storage,
        config=table.config, index=session.index, merger=session.merger, keygen=session.keygen, metadata=metadata,
    )  # fmt: skip
    return {"rows": tagged.num_rows, "file_groups": len(slices)}


def tagging_steps() -> list[Step]:
    """Per file-group count, one table (written with the metadata table and its record index) tagged
    by the record index and, for contrast, by the bloom index (from base files' footers, its default)."""
    steps = []
    for count in TAGGING_FILE_GROUPS:
        load = _load_file_groups(count)
        steps.append(Step("ours", f"rli_tagging_{count}fg", _tagging(count, "RECORD_INDEX"), load))
        steps.append(Step("ours", f"bloom_tagging_{count}fg", _tagging(count, "BLOOM"), load))
    return steps


def _file_counters(stats: Sequence[WriteStat]) -> dict[str, Any]:
    rewritten = [s for s in stats if s.prev_commit not in (None, "null")]
    return {
        "rows": sum(s.num_writes or 0 for s in stats),
        "files": len(stats),
        "file_groups_rewritten": len(rewritten),
        "largest_file_rows": max((s.num_writes or 0 for s in stats), default=0),
        "largest_file_bytes": max((s.file_size_in_bytes or s.total_write_bytes or 0 for s in stats), default=0),
    }


def scaling_load(ctx: StepContext) -> None:
    base = ctx.inputs.read_base()
    WriteClient(_create(ctx, "COPY_ON_WRITE", base.schema), scaling_settings(ctx)).bulk_insert(base)


def scaling_bulk_insert(ctx: StepContext) -> dict[str, Any]:
    base = ctx.inputs.read_base()
    result = WriteClient(_create(ctx, "COPY_ON_WRITE", base.schema), scaling_settings(ctx)).bulk_insert(base)
    return _file_counters(result.stats)


def scaling_upsert(ctx: StepContext) -> dict[str, Any]:
    """The fixed-size batch into a table of fixed-size file groups: every file group is rewritten."""
    table = HudiTable.open(_path(ctx))
    result = WriteClient(table, scaling_settings(ctx)).upsert(ctx.inputs.read_changes())
    return _file_counters(result.stats) | {"deletes": result.num_deletes}


STEPS = [
    Step("ours", "bulk_insert", bulk_insert),
    Step("ours", "cow_upsert", upsert, load_cow),
    Step("ours", "mor_upsert", upsert, load_mor),
    Step("ours", "cow_upsert_1pct", small_upsert, load_cow),
    Step("ours", "mor_upsert_1pct", small_upsert, load_mor),
    Step("ours", "mor_compaction", compaction, upserted_mor),
    Step("ours", "cow_read", snapshot_read, load_cow),
    Step("ours", "mor_read", snapshot_read, upserted_mor),
    Step("ours", "incremental_read", incremental_read, _load_and_upsert("COPY_ON_WRITE")),
    Step("ours", "bloom_tagging", bloom_tagging, load_cow),
    Step("ours", "cow_read_1pct_files_unpruned", filtered_read_unpruned, load_clustered),
    Step("ours", "cow_read_1pct_files", filtered_read, load_clustered),
    Step("ours", "cow_read_1pct_files_footers", filtered_read_footers, load_clustered),
    Step("ours", "mor_upsert_1pct_rli", small_upsert_rli, load_mor_rli),
    Step("ours", "cow_read_1pct_files_mdt", filtered_read_mdt, load_clustered_mdt),
    Step("ours", "cow_read_1pct_files_mdt_off", filtered_read_mdt_off, load_clustered_mdt),
    *tagging_steps(),
    Step("ours", "mor_compaction_64fg", compaction64.single_process, compaction64.prepare),
    Step("ours-pool", "mor_compaction_64fg", compaction64.process_pool, compaction64.prepare),
]

#: The scaling section (inputs from :func:`bench.dataset.generate_scaling`): fixed file groups, fixed batch.
SCALING_STEPS = [
    Step("ours", "scale_bulk_insert", scaling_bulk_insert),
    Step("ours", "scale_cow_upsert", scaling_upsert, scaling_load),
    Step("ours", "scale_cow_read", snapshot_read, scaling_load),
]
