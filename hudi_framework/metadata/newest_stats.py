"""Reading a few partitions' statistics from the newest log files of ``partition_stats``.

A writer keeping ``partition_stats`` in step reads, at every commit, the statistics of the
partitions it touched. Those records are tight (each holds the partition's whole state), and the
last commit that touched a partition wrote them into the newest log file of its file group: when
that file holds a tight record or a tombstone of every wanted key, the older files cannot change
the merge of those keys, and only it is read (one request instead of every log file since the
last compaction). Otherwise the whole slices are read.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.layout.file_group import FileSlice

__all__ = ["newest_log_slices", "settled"]


def newest_log_slices(slices: Sequence[FileSlice]) -> list[FileSlice] | None:
    """Each slice cut to its newest log file (no base file); None when every slice has at most
    that file (reading it is reading everything)."""
    if all(len(s.log_files) <= 1 and s.base_file is None for s in slices):
        return None
    return [dataclasses.replace(s, base_file=None, log_files=s.log_files[-1:]) for s in slices]


def settled(rows: pa.Table, keys: pa.Array) -> bool:
    """Whether every key of ``keys`` (distinct) has a tight record or a tombstone among ``rows``
    (``key`` and ``ColumnStatsMetadata`` columns): older records of those keys change nothing."""
    found = rows.filter(pc.is_in(rows.column("key"), value_set=keys))
    if found.num_rows == 0:
        return len(keys) == 0
    meta = found.column("ColumnStatsMetadata").combine_chunks()
    names = {f.name for f in meta.type}
    final = pa.array([False] * found.num_rows)
    for flag in ("isTightBound", "isDeleted"):
        if flag in names:
            final = pc.or_(final, pc.fill_null(pc.struct_field(meta, flag), False))
    done = found.filter(final).column("key")
    return bool(pc.count_distinct(done).as_py() == len(keys))
