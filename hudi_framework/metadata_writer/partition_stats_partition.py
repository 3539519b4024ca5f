"""The MDT ``partition_stats`` partition: per (data partition, indexed column) statistics.

Records (type 6, key ``column id + partition id``) hold ``HoodieMetadataColumnStats`` with
``fileName`` = the partition path, ``isTightBound`` true, min and max over the partition's latest
file slices (base and log files), counts and sizes summed (Apache Hudi 1.1,
``convertFilesToPartitionStatsRecords`` / ``isShouldScanColStatsForTightBound``). Partitioned tables
only; kept whenever ``column_stats`` is (Apache Hudi 1.1 ties the two to one option).

* init: every partition, from the column statistics of its latest files;
* a commit: each partition it wrote, from the statistics of the files it wrote and the
  ``column_stats`` of the partition's other latest files;
* a clean: nothing (the latest slices do not change).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.layout.fs_view import FileSystemView
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.metadata_writer.column_stats_partition import (
    SHARED_STATS,
    ColumnStatsBuilder,
    index_version,
    latest_schema,
    stats_records,
)
from hudi_framework.metadata_writer.file_column_stats import concat_stats, file_column_stats, union_of
from hudi_framework.metadata_writer.partition_builder import (
    DATA_TIMELINE_FACT,
    InitContext,
    InstantContext,
    MetadataRecord,
    PartitionBuilder,
    PartitionRecords,
)
from hudi_framework.read.metadata_stats import MetadataTableStats
from hudi_framework.read.skipping import (
    COLUMN_NAME,
    FILE_NAME,
    IS_DELETED,
    MAX_VALUE,
    MIN_VALUE,
    NULL_COUNT,
    PARTITION,
    TOTAL_SIZE,
    TOTAL_UNCOMPRESSED_SIZE,
    VALUE_COUNT,
)
from hudi_framework.table.table_config import TableConfig
from hudi_framework.timeline.archived_timeline import timeline_start
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.metadata import CommitMetadata, ReplaceCommitMetadata

__all__ = ["PARTITION_STATS_FILE_GROUPS_KEY", "PartitionStatsBuilder", "partition_stats"]

PARTITION_STATS_FILE_GROUPS_KEY: Final = "hoodie.metadata.index.partition.stats.file.group.count"
_STATS: Final = "ColumnStatsMetadata"
#: Completion time given to the instant being synced: later than every completed one.
_NOW: Final = "99999999999999999"


def _latest_files(view: FileSystemView, partitions: Sequence[str]) -> list[tuple[str, str]]:
    return [
        (p, name)
        for p in partitions
        for s in view.latest_file_slices(p)
        for name in ([s.base_file_name] if s.base_file_name else []) + list(s.log_file_names)
    ]


def partition_stats(stats: pa.Table) -> pa.Table | None:
    """Per-file statistics (the shape of ``file_column_stats``) folded per (partition, column): the
    extremes of the bounds and summed counts. A column whose bounds do not compare is left out."""
    if stats.num_rows == 0:
        return None
    lows = stats.column(MIN_VALUE).combine_chunks()
    highs = stats.column(MAX_VALUE).combine_chunks()
    low_values, low_types = _values(lows)
    high_values, _ = _values(highs)
    keys = list(zip(stats.column(PARTITION).to_pylist(), stats.column(COLUMN_NAME).to_pylist(), strict=True))
    counts = {n: stats.column(n).to_pylist() for n in (NULL_COUNT, VALUE_COUNT, TOTAL_SIZE, TOTAL_UNCOMPRESSED_SIZE)}
    groups: dict[tuple[str, str], list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    rows: list[tuple[str, str, pa.Array, pa.Array, list[int]]] = []
    for (partition, column), members in sorted(groups.items()):
        typ = low_types[members[0]]
        found_low = [low_values[i] for i in members if low_values[i] is not None]
        found_high = [high_values[i] for i in members if high_values[i] is not None]
        try:
            low, high = (min(found_low) if found_low else None), (max(found_high) if found_high else None)
            bounds = pa.array([low, high], typ)
        except (TypeError, pa.ArrowException):
            continue  # bounds of two types: no order to fold them in, no statistics
        sums = [sum(max(int(counts[n][i] or 0), 0) for i in members) for n in counts]
        rows.append((partition, column, bounds.slice(0, 1), bounds.slice(1, 1), sums))
    if not rows:
        return None
    n = len(rows)
    return pa.table(
        {
            PARTITION: pa.array([r[0] for r in rows], pa.string()),
            FILE_NAME: pa.array([r[0] for r in rows], pa.string()),
            COLUMN_NAME: pa.array([r[1] for r in rows], pa.string()),
            MIN_VALUE: union_of([r[2] for r in rows]),
            MAX_VALUE: union_of([r[3] for r in rows]),
            NULL_COUNT: pa.array([r[4][0] for r in rows], pa.int64()),
            VALUE_COUNT: pa.array([r[4][1] for r in rows], pa.int64()),
            TOTAL_SIZE: pa.array([r[4][2] for r in rows], pa.int64()),
            TOTAL_UNCOMPRESSED_SIZE: pa.array([r[4][3] for r in rows], pa.int64()),
            IS_DELETED: pa.array([False] * n),
        }
    )


def _values(union: pa.UnionArray) -> tuple[list[Any], list[pa.DataType]]:
    """Plain value and type of every row of a dense union (one entry per file and column: few)."""
    children = [union.field(i) for i in range(union.type.num_fields)]
    plain = [c.to_pylist() for c in children]
    index = {code: i for i, code in enumerate(union.type.type_codes)}
    values: list[Any] = []
    types: list[pa.DataType] = []
    for code, offset in zip(union.type_codes.to_pylist(), union.offsets.to_pylist(), strict=True):
        child = index[code]
        values.append(plain[child][offset])
        types.append(children[child].type)
    return values, types


class PartitionStatsBuilder(PartitionBuilder):
    """Builds ``partition_stats`` (``hoodie.metadata.index.partition.stats.file.group.count`` groups)."""

    partition = MetadataPartition.PARTITION_STATS.value

    def applies_to(self, config: TableConfig) -> bool:
        return config.version >= 8 and bool(config.partition_fields)

    def file_group_count(self, ctx: InitContext) -> int:
        return ctx.options.integer(PARTITION_STATS_FILE_GROUPS_KEY, 1)

    def init_records(self, ctx: InitContext) -> PartitionRecords:
        columns = ColumnStatsBuilder().init_columns(ctx)
        files = _latest_files(ctx.view, ctx.partitions)
        if not columns or not files:
            return PartitionRecords()
        stats = file_column_stats(ctx.storage, files, columns)
        folded = partition_stats(stats) if stats is not None else None
        version = index_version(ctx.storage, ctx.config)
        return PartitionRecords(
            stats_records(folded, tight=True, partition_level=True, version=version) if folded else []
        )

    def commit_records(self, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
        touched = sorted(p or "" for p in (metadata.partition_to_write_stats or {}))
        if not touched or ctx.data_timeline is None:
            return PartitionRecords()
        columns, version = ColumnStatsBuilder().columns_and_version(ctx, metadata)
        if not columns:
            return PartitionRecords()
        timeline = ctx.data_timeline()
        new = ctx.shared.get(SHARED_STATS)
        written = {
            (p or "", s.path.rsplit("/", 1)[-1])
            for p, stats in (metadata.partition_to_write_stats or {}).items()
            for s in stats
            if s.path
        }
        parts: list[pa.Table] = []
        if isinstance(new, pa.Table):
            parts.append(new)
        else:
            written_stats = file_column_stats(ctx.storage, sorted(written), columns)
            if written_stats is not None:
                parts.append(written_stats)
        opened: list[MetadataTableStats | None] = []

        def mdt_stats() -> MetadataTableStats | None:
            # The MDT and the latest schema are read only when a partition needs them.
            if not opened:
                mdt = ctx.open_mdt()
                earlier = ctx.facts.get(DATA_TIMELINE_FACT)
                schema = latest_schema(timeline, ctx.config, earlier) if mdt is not None else None
                opened.append(MetadataTableStats(mdt, _with_meta(schema)) if mdt and schema is not None else None)
            return opened[0]

        merged: set[str] = set()
        appended = self.appended_partitions(metadata, touched)
        source = mdt_stats() if appended else None
        if source is not None:
            previous = source.partition_stats(appended, columns)
            merged = _mergeable(appended, previous, parts[0] if parts else None)
            if merged and previous is not None:
                parts.append(previous.filter(pc.is_in(previous.column(PARTITION), value_set=pa.array(sorted(merged)))))
        # Partitions not merged: the statistics of their other latest files, from column_stats.
        recomputed = [p for p in touched if p not in merged]
        files: list[tuple[str, str]] = []
        if recomputed:
            this = Instant(ctx.instant_time, Action(ctx.action), State.COMPLETED, _NOW)
            view = FileSystemView.from_storage(
                ctx.storage,
                partitions=recomputed,
                completed_instants=[*timeline.completed(), this],
                table_version=ctx.config.version,
                timeline_start=timeline_start(timeline),
            )
            files = _latest_files(view, recomputed)
        older = [f for f in files if f not in written]
        known: set[tuple[str, str]] = set()
        source = mdt_stats() if older else None
        if source is not None:
            kept = source.column_stats(older, columns)
            if kept is not None:
                parts.append(kept)
                known = set(zip(kept.column(FILE_NAME).to_pylist(), kept.column(COLUMN_NAME).to_pylist(), strict=True))
        # A file whose statistics the MDT does not hold in one type (another writer's, a log file of
        # deletes) is read itself: bounds left out would make the partition's too narrow.
        unknown = [f for f in older if any((f[1], c) not in known for c in columns)]
        if unknown:
            read = file_column_stats(ctx.storage, unknown, columns)
            if read is not None:
                fresh = pa.array(
                    [
                        (n, c) not in known
                        for n, c in zip(
                            read.column(FILE_NAME).to_pylist(), read.column(COLUMN_NAME).to_pylist(), strict=True
                        )
                    ]
                )
                parts.append(read.filter(fresh))
        folded = partition_stats(concat_stats(parts)) if parts else None
        return PartitionRecords(
            stats_records(folded, tight=True, partition_level=True, version=version) if folded else []
        )

    def appended_partitions(self, metadata: CommitMetadata, touched: Sequence[str]) -> list[str]:
        """The touched partitions this commit only added log files to: their latest slices are
        the previous ones plus these logs, so their statistics are the previous partition
        statistics folded with the new logs' (a delta commit; a compaction or a rewritten base file
        drops files, and those partitions are recomputed)."""
        if metadata.compacted or (metadata.operation_type or "").lower() == "compact":
            return []
        if isinstance(metadata, ReplaceCommitMetadata):
            return []
        written = metadata.partition_to_write_stats or {}
        return [p for p in touched if all(s.path and ".log." in s.path.rsplit("/", 1)[-1] for s in written.get(p, []))]

    def compacted(self, record: MetadataRecord) -> MetadataRecord | None:
        stats = record.get(_STATS) or {}
        return None if stats.get("isDeleted") else record


def _mergeable(partitions: Sequence[str], previous: pa.Table | None, new: pa.Table | None) -> set[str]:
    """The ``partitions`` whose previous statistics fold with the new files' to exactly what a
    recomputation gives: a tight record for every column the new files have statistics of, each
    in the new statistics' type."""
    if previous is None or new is None or not partitions:
        return set()
    before = _bound_types(previous)
    after = _bound_types(new)
    out: set[str] = set()
    for partition in partitions:
        columns = {c: t for (p, c), t in after.items() if p == partition}
        if columns and all(before.get((partition, c)) == t for c, t in columns.items()):
            out.add(partition)
    return out


def _bound_types(stats: pa.Table) -> dict[tuple[str, str], pa.DataType | None]:
    """The type of the lower bounds per (partition, column); None when a pair has several."""
    _, types = _values(stats.column(MIN_VALUE).combine_chunks())
    out: dict[tuple[str, str], pa.DataType | None] = {}
    for key, typ in zip(
        zip(stats.column(PARTITION).to_pylist(), stats.column(COLUMN_NAME).to_pylist(), strict=True), types, strict=True
    ):
        out[key] = typ if out.get(key, typ) == typ else None
    return out


def _with_meta(schema: pa.Schema) -> pa.Schema:
    meta = [pa.field(n, pa.string()) for n in ("_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key")]
    return pa.schema([*meta, *(f for f in schema if not f.name.startswith("_hoodie_"))])
