"""Data skipping in the snapshot planner: leave out partitions and file slices statistics rule out.

Partitions first (:class:`PartitionPruning`): a partition whose ``partition_stats`` (min, max and
counts over all its latest files) exclude every row the filters match is not listed further; its
files are neither checked nor looked up in ``column_stats``. The rules are those of file skipping
(:func:`~hudi_framework.read.skipping.may_match`; no statistics for a partition or a column keeps
it), and, as Apache Hudi's reader does, ``is null`` / ``is not null`` predicates do not prune
partitions. Partition statistics describe the latest state only, so time travel does not use them,
and a merge-on-read snapshot keeps every partition holding a slice with log files (see below).

Then files: only slices read from their base file alone are candidates: a merge-on-read slice with log files
is merged, and a merger may build rows from values found in no single file (partial updates, custom
mergers), so the statistics of its files cannot rule it out. Statistics come from a
:class:`~hudi_framework.read.skipping.ColumnStatsSource` chosen by ``data.skipping.source``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.read.filters import filter_columns
from hudi_framework.read.metadata_stats import metadata_table_stats
from hudi_framework.read.options import DataSkippingSource
from hudi_framework.read.parquet_stats import ParquetFooterStats
from hudi_framework.read.plan import SkippingCounts
from hudi_framework.read.skipping import ColumnRange, PartitionStatsSource, column_ranges, may_match

if TYPE_CHECKING:
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.read.filters import Disjunction
    from hudi_framework.read.options import ReadOptions
    from hudi_framework.read.skipping import ColumnStatsSource
    from hudi_framework.runtime.table import HudiTable

__all__ = ["PartitionPruning", "skip_slices", "stats_source_for"]

_LOG = logging.getLogger(__name__)
#: Characters whose UTF-16 order differs from their code point (UTF-8) order: U+E000 and above.
_UTF16_ORDER_DIFFERS: Final = "[\ue000-\U0010ffff]"


def stats_source_for(table: HudiTable, options: ReadOptions, schema: pa.Schema) -> ColumnStatsSource | None:
    """The statistics ``options`` ask for, or None when no file is to be skipped by statistics.

    Args:
        table: The table read.
        options: The read's options (filters, ``hoodie.enable.data.skipping``, the source).
        schema: The read schema (the types statistics are compared in).
    """
    if not options.data_skipping or not options.filters:
        return None
    if options.data_skipping_source is DataSkippingSource.PARQUET_FOOTERS:
        return ParquetFooterStats(table.storage)
    if not options.metadata_enable:
        return None
    return metadata_table_stats(table.storage, table.properties, table.timeline, schema, opened=table.metadata_table)


@dataclass(slots=True)
class PartitionPruning:
    """Partition pruning by partition statistics, run on the listing before its files are checked.

    Called with the live slices and the partitions their paths keep, it returns (and keeps in
    :attr:`pruned`) the partitions whose statistics rule out every filtered row.

    Attributes:
        filters: Normalised read filters.
        full_schema: The read schema (types of the filtered columns).
        source: The statistics; only a :class:`PartitionStatsSource` prunes.
        merged: Whether slices with log files are merged (merge-on-read snapshots).
        pruned: The partitions pruned by the last call.
    """

    filters: Disjunction
    full_schema: pa.Schema
    source: ColumnStatsSource | None
    merged: bool
    pruned: set[str] = field(default_factory=set)

    def __call__(self, slices: Sequence[FileSlice], kept: set[str]) -> set[str]:
        self.pruned = set()
        source: object = self.source
        if not isinstance(source, PartitionStatsSource) or not kept:
            return self.pruned
        # Null checks do not prune partitions (Apache Hudi's reader leaves them out too); dropping a
        # predicate from a conjunction only widens what may match.
        filters = tuple(tuple(p for p in conj if p[1] not in ("is null", "is not null")) for conj in self.filters)
        used = filter_columns(filters)
        # Decimal bounds do not prune: Apache Hudi 1.1.1 folds them as bytes (its compaction of the
        # fixture cow/v9_txns_simple_meta keeps amount [1250.00, 5000.00] over files from 125.50).
        schema = pa.schema([f for f in self.full_schema if f.name in used and not pa.types.is_decimal(f.type)])
        # A merged slice may yield values no file's statistics hold (partial updates, custom mergers).
        logged = {s.partition_path for s in slices if s.has_log_files} if self.merged else set()
        candidates = sorted(kept - logged)
        if not candidates or not len(schema):
            return self.pruned
        stats = source.partition_stats(candidates, schema.names)
        if stats is None:
            return self.pruned
        units = [(p, p) for p in candidates]
        ranges = {c: _utf16_safe(r) for c, r in column_ranges(stats, units, schema).items()}
        keep = may_match(filters, ranges, schema, len(units))
        self.pruned = {p for p, k in zip(candidates, keep, strict=True) if not k}
        _LOG.debug("partition statistics: %d of %d partitions pruned", len(self.pruned), len(kept))
        return self.pruned


def _utf16_safe(stats: ColumnRange) -> ColumnRange:
    """String bounds Apache Hudi may have folded in Java's (UTF-16) order, where it differs from the
    UTF-8 byte order filters compare in, made unknown: those holding a character from U+E000 up."""
    if not (pa.types.is_string(stats.min.type) or pa.types.is_large_string(stats.min.type)):
        return stats
    exotic = pc.or_kleene(
        pc.match_substring_regex(stats.min, _UTF16_ORDER_DIFFERS),
        pc.match_substring_regex(stats.max, _UTF16_ORDER_DIFFERS),
    )
    exotic = pc.fill_null(exotic, False)
    if not pc.any(exotic).as_py():
        return stats
    unknown = pa.nulls(len(stats.min), stats.min.type)
    return ColumnRange(
        pc.if_else(exotic, unknown, stats.min),
        pc.if_else(exotic, unknown, stats.max),
        stats.null_count,
        stats.value_count,
    )


def skip_slices(
    slices: Sequence[FileSlice],
    kept_partitions: set[str],
    *,
    filters: Disjunction,
    full_schema: pa.Schema,
    source: ColumnStatsSource | None,
    merged: bool,
    pruned_by_stats: set[str] | None = None,
) -> tuple[list[FileSlice], SkippingCounts]:
    """The slices to plan, and what partition pruning and statistics left out.

    Args:
        slices: Every live slice.
        kept_partitions: Partitions partition pruning keeps (slices elsewhere are not counted as files).
        filters: Normalised read filters.
        full_schema: The read schema (types of the filtered columns).
        source: Column statistics, or None to skip no file.
        merged: Whether slices with log files are merged (merge-on-read snapshots).
        pruned_by_stats: Of ``kept_partitions``, those :class:`PartitionPruning` ruled out (their
            slices are left out and not counted as files).
    """
    by_stats = (pruned_by_stats or set()) & kept_partitions
    if by_stats:
        slices = [s for s in slices if s.partition_path not in by_stats]
    partitions = {s.partition_path for s in slices} | by_stats
    kept_partitions = kept_partitions - by_stats
    considered = [s for s in slices if s.partition_path in kept_partitions]
    counts = SkippingCounts(
        partitions_considered=len(partitions),
        partitions_pruned=len(partitions - kept_partitions - by_stats),
        partitions_pruned_by_stats=len(by_stats),
        files_considered=len(considered),
        stats_source=source.name if source is not None and by_stats else None,
    )
    used = filter_columns(filters)
    schema = pa.schema([f for f in full_schema if f.name in used])
    candidates = [
        s for s in considered if s.base_file_name is not None and not (merged and s.has_log_files)
    ]  # fmt: skip
    if source is None or not candidates or not len(schema):
        return list(slices), counts
    files = [(s.partition_path, s.base_file_name or "") for s in candidates]
    stats = source.column_stats(files, schema.names)
    keep = np.ones(len(files), dtype=bool) if stats is None else may_match(
        filters, column_ranges(stats, files, schema), schema, len(files)
    )  # fmt: skip
    skipped = {id(s) for s, k in zip(candidates, keep, strict=True) if not k}
    counts = SkippingCounts(
        partitions_considered=counts.partitions_considered,
        partitions_pruned=counts.partitions_pruned,
        partitions_pruned_by_stats=counts.partitions_pruned_by_stats,
        files_considered=counts.files_considered,
        files_skipped=len(skipped),
        stats_source=source.name,
    )
    _LOG.debug("data skipping (%s): %d of %d file slices skipped", source.name, len(skipped), len(considered))
    return [s for s in slices if id(s) not in skipped], counts
