"""File sizing: inserts fill a partition's small files first, then new file groups.

Follows Apache Hudi's upsert partitioner: a base file smaller than ``hoodie.parquet.small.file.limit``
takes inserts until it would reach ``hoodie.parquet.max.file.size``; the rest go to new file groups
of ``max.file.size / record size`` records each. The record size comes from earlier commits
(``totalWriteBytes / numWrites``) or ``hoodie.copyonwrite.record.size.estimate``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.layout.naming import BaseFileName, new_file_id
from hudi_framework.timeline.instant import Action

if TYPE_CHECKING:
    from hudi_framework.timeline.timeline import Timeline


@dataclass(frozen=True, slots=True)
class SizingOptions:
    """``hoodie.parquet.small.file.limit``, ``hoodie.parquet.max.file.size`` and the record estimate.

    ``small_file_group_candidates_limit`` (``hoodie.merge.small.file.group.candidates.limit``) caps
    the small files per partition of merge-on-read tables only, as in Apache Hudi.
    ``log_to_parquet_ratio`` (``hoodie.logfile.to.parquet.compression.ratio``) estimates what a
    slice's log files would weigh as Parquet, when inserts may go to log files.
    """

    small_file_limit: int = 104_857_600
    max_file_size: int = 125_829_120
    record_size_estimate: int = 1024
    small_file_group_candidates_limit: int = 1
    log_to_parquet_ratio: float = 0.35


@dataclass(frozen=True, slots=True)
class SmallFile:
    """A file group that can take more records.

    Attributes:
        file_id: The file group.
        size: Its size in bytes (a slice's estimate when inserts go to its log files).
        below: The size it must stay under to take inserts at all: None for
            ``hoodie.parquet.small.file.limit`` (a base file), else the limit of its own rule
            (``hoodie.parquet.max.file.size`` for a slice taking inserts into its log files).
    """

    file_id: str
    size: int
    below: int | None = None


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
            if sf.size >= (options.small_file_limit if sf.below is None else sf.below):
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
    # Integer codes, not strings: a stable argsort and run boundaries on them cost no per-row Python.
    parts = pc.cast(partitions, pa.string())
    if isinstance(parts, pa.ChunkedArray):
        parts = parts.combine_chunks()
    if parts.null_count:
        raise ValueError("insert rows without a partition path have no bucket")
    encoded = pc.dictionary_encode(parts)
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    names: list[str] = encoded.dictionary.to_pylist()
    # Dictionary codes of a few partitions: 16-bit codes sort by radix (linear), same order.
    order = np.argsort(codes.astype(np.int16) if len(names) < 2**15 else codes, kind="stable")
    sorted_codes = codes[order]
    by_partition: dict[str, list[int]] = {}
    for idx, b in enumerate(buckets):
        by_partition.setdefault(b.partition, []).append(idx)
    # Boundaries of each partition's run in the sorted order.
    change = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [n]))
    for start, end in zip(starts, ends, strict=True):
        partition = names[int(sorted_codes[start])]
        idxs = by_partition.get(partition, [])
        caps = np.cumsum([buckets[i].capacity for i in idxs])
        if not idxs or caps[-1] < end - start:
            raise ValueError(f"insert buckets for partition {partition!r} hold fewer rows than the inserts")
        rank = np.arange(end - start)
        which = np.searchsorted(caps, rank, side="right")
        out[order[start:end]] = np.asarray(idxs)[which]
    return pa.array(out)


def assign_inserts_by_hash(
    partitions: pa.Array | pa.ChunkedArray, key_hashes: npt.NDArray[np.int64], buckets: Sequence[InsertBucket]
) -> npt.NDArray[np.int64]:
    """The bucket index of every insert row from a hash of its key, so any subset is assigned alone.

    Apache Hudi's ``UpsertPartitioner`` rule: ``hash mod n`` (``n`` the partition's inserts, which
    equals the sum of its buckets' capacities) is looked up in the buckets' cumulative capacities.
    Each bucket receives about its capacity, not exactly (a file may end up a little larger or
    smaller than planned); every row of a key goes to the same bucket.

    Args:
        partitions: Partition path of each insert row.
        key_hashes: A 64-bit hash of each row's record key (any well-mixed hash).
        buckets: From :func:`plan_insert_buckets`; each partition's buckets are contiguous.

    Raises:
        ValueError: A row's partition has no bucket.
    """
    n = len(partitions)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    names = [b.partition for b in buckets]
    firsts = [i for i, name in enumerate(names) if i == 0 or names[i - 1] != name]
    uniq = [names[i] for i in firsts]
    if len(set(uniq)) != len(uniq):
        raise ValueError("the insert buckets of a partition must be contiguous")
    capacities = np.asarray([b.capacity for b in buckets], dtype=np.int64)
    ends = np.cumsum(capacities)
    starts = ends[firsts] - capacities[firsts]
    totals = np.diff(np.append(starts, ends[-1] if len(ends) else 0))
    position = pc.index_in(pc.cast(partitions, pa.string()), value_set=pa.array(uniq, pa.string()))
    if position.null_count:
        raise ValueError(f"{position.null_count} insert row(s) are in partitions without insert buckets")
    pid = np.asarray(position.to_numpy(zero_copy_only=False), dtype=np.int64)
    offset = np.mod(np.asarray(key_hashes, dtype=np.int64), totals[pid])
    return np.searchsorted(ends, starts[pid] + offset, side="right").astype(np.int64)


def average_record_size(timeline: Timeline, *, estimate: int, threshold_bytes: int) -> int:
    """Bytes per record for sizing new files, as Java's ``UpsertPartitioner.averageBytesPerRecord``.

    The newest completed commit or replacecommit that wrote more than ``threshold_bytes`` gives
    ``ceil(totalWriteBytes / numWrites)``; smaller commits are skipped, because a few records in a
    file are dwarfed by the file's fixed overhead (footer, bloom filter) and would make every later
    insert bucket tiny. Delta commits count with their base files only (log records are no measure
    of a base file's record size). Without such a commit, ``estimate``.

    Args:
        timeline: The table's active timeline.
        estimate: ``hoodie.copyonwrite.record.size.estimate``.
        threshold_bytes: ``hoodie.record.size.estimation.threshold`` (1.0) x ``hoodie.parquet.small.file.limit``.
    """
    for instant in reversed(timeline.commits_timeline()):
        if instant.action not in (Action.COMMIT, Action.REPLACE_COMMIT, Action.DELTA_COMMIT):
            continue
        stats = timeline.read_commit_metadata(instant).write_stats()
        if instant.action is Action.DELTA_COMMIT:
            stats = [s for s in stats if s.path and BaseFileName.try_parse(s.path.rsplit("/", 1)[-1]) is not None]
        written = sum(s.num_writes or 0 for s in stats)
        size = sum(s.total_write_bytes or 0 for s in stats)
        if size > threshold_bytes and written > 0:
            return max(1, -(-size // written))
    return estimate
