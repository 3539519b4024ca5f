"""File sizing: inserts fill a partition's small files first, then new file groups.

Follows Apache Hudi's upsert partitioner: a base file smaller than ``hoodie.parquet.small.file.limit``
takes inserts until it would reach ``hoodie.parquet.max.file.size``; the rest go to new file groups
of ``max.file.size / record size`` records each. The record size comes from earlier commits
(``totalWriteBytes / numWrites``) or ``hoodie.copyonwrite.record.size.estimate``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.layout.naming import new_file_id


@dataclass(frozen=True, slots=True)
class SizingOptions:
    """``hoodie.parquet.small.file.limit``, ``hoodie.parquet.max.file.size`` and the record estimate."""

    small_file_limit: int = 104_857_600
    max_file_size: int = 125_829_120
    record_size_estimate: int = 1024


@dataclass(frozen=True, slots=True)
class SmallFile:
    """A base file that can take more records."""

    file_id: str
    size: int


@dataclass(frozen=True, slots=True)
class InsertBucket:
    """Where a run of inserts goes: an existing small file group or a new one."""

    partition: str
    file_id: str
    is_new: bool
    capacity: int


def plan_insert_buckets(
    insert_counts: Mapping[str, int],
    small_files: Mapping[str, Sequence[SmallFile]],
    record_size: int,
    options: SizingOptions,
) -> list[InsertBucket]:
    """Buckets for every partition's inserts, small files first (smallest first, as Java sorts them)."""
    record_size = max(1, record_size)
    per_new_file = max(1, options.max_file_size // record_size)
    buckets: list[InsertBucket] = []
    for partition in sorted(insert_counts):
        remaining = insert_counts[partition]
        for sf in sorted(small_files.get(partition, ()), key=lambda f: f.size):
            if remaining <= 0:
                break
            if sf.size >= options.small_file_limit:
                continue
            room = (options.max_file_size - sf.size) // record_size
            if room <= 0:
                continue
            take = min(room, remaining)
            buckets.append(InsertBucket(partition, sf.file_id, False, take))
            remaining -= take
        while remaining > 0:
            take = min(per_new_file, remaining)
            buckets.append(InsertBucket(partition, new_file_id(), True, take))
            remaining -= take
    return buckets


def assign_inserts(partitions: pa.Array | pa.ChunkedArray, buckets: Sequence[InsertBucket]) -> pa.Array:
    """The bucket index of every insert row, vectorised (rows keep their order within a partition).

    Args:
        partitions: Partition path of each insert row.
        buckets: From :func:`plan_insert_buckets` for the same rows.
    """
    n = len(partitions)
    out = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return pa.array(out)
    parts = pc.cast(partitions, pa.string())
    order = pc.sort_indices(pa.table({"p": parts}), sort_keys=[("p", "ascending")]).to_numpy()
    sorted_parts = parts.take(pa.array(order)).to_numpy(zero_copy_only=False)
    by_partition: dict[str, list[int]] = {}
    for idx, b in enumerate(buckets):
        by_partition.setdefault(b.partition, []).append(idx)
    # Boundaries of each partition's run in the sorted order.
    change = np.flatnonzero(sorted_parts[1:] != sorted_parts[:-1]) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [n]))
    for start, end in zip(starts, ends, strict=True):
        partition = str(sorted_parts[start])
        idxs = by_partition.get(partition, [])
        caps = np.cumsum([buckets[i].capacity for i in idxs])
        if not idxs or caps[-1] < end - start:
            raise ValueError(f"insert buckets for partition {partition!r} hold fewer rows than the inserts")
        rank = np.arange(end - start)
        which = np.searchsorted(caps, rank, side="right")
        out[order[start:end]] = np.asarray(idxs)[which]
    return pa.array(out)
