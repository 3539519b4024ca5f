"""Driver-side lookup planning shared by index plugins: group keys, prune files by key range.

Planning never reads storage. It pairs the distinct incoming keys with the base files that may
hold them: within the key's partition (or anywhere, for a global index) and, when the file's
min/max keys are known and pruning is on, only keys inside ``[min, max]`` in Java's string order.
Keys are sorted once per partition and each file takes a slice found by binary search, so the
cost is ``O(keys log keys + files log keys)`` with no Python work per key.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.index import PARTITION_PATH, RECORD_KEY, IndexedFile, LookupTask
from hudi_framework.contracts.indexing.key_arrays import as_key_array, in_java_range, java_order_bytes, java_sort_keys
from hudi_framework.errors import RecordIndexError

__all__ = ["SortedKeys", "distinct_partitions", "incoming_columns", "keys_by_partition", "plan_lookups"]


def incoming_columns(incoming: pa.Table) -> tuple[pa.LargeStringArray, pa.LargeStringArray]:
    """The record keys and partition paths of incoming records, validated.

    Raises:
        RecordIndexError: A column is missing, not strings, or has nulls.
    """
    missing = [c for c in (RECORD_KEY, PARTITION_PATH) if c not in incoming.column_names]
    if missing:
        raise RecordIndexError(f"incoming records lack the columns {missing}")
    try:
        keys = as_key_array(incoming.column(RECORD_KEY))
        partitions = as_key_array(incoming.column(PARTITION_PATH))
    except TypeError as e:
        raise RecordIndexError(f"incoming {RECORD_KEY}/{PARTITION_PATH} must be strings: {e}") from e
    if keys.null_count or partitions.null_count:
        raise RecordIndexError(f"incoming {RECORD_KEY} and {PARTITION_PATH} must not be null")
    return keys, partitions


def distinct_partitions(incoming: pa.Table) -> list[str]:
    """The distinct incoming partition paths, sorted."""
    _, partitions = incoming_columns(incoming)
    values: list[str] = pc.unique(partitions).to_pylist()
    return sorted(values)


def keys_by_partition(incoming: pa.Table) -> dict[str, pa.LargeStringArray]:
    """Distinct incoming keys per partition path (one vectorised sort, a loop over partitions)."""
    keys, partitions = incoming_columns(incoming)
    encoded = pc.dictionary_encode(partitions)
    codes = encoded.indices.to_numpy(zero_copy_only=False)
    names: list[str] = encoded.dictionary.to_pylist()
    # Stable keeps arrival order within a partition; on 16-bit codes numpy sorts by radix (linear).
    order = np.argsort(codes.astype(np.int16) if len(names) < 2**15 else codes, kind="stable")
    counts = np.bincount(codes, minlength=len(names))
    starts = np.cumsum(counts) - counts
    grouped = keys.take(pa.array(order))
    return {
        name: as_key_array(pc.unique(grouped.slice(int(start), int(count))))
        for name, start, count in zip(names, starts, counts, strict=True)
    }


class SortedKeys:
    """Distinct keys sorted in Java's ``String.compareTo`` order, sliced by key range."""

    def __init__(self, keys: pa.LargeStringArray) -> None:
        """Sort ``keys`` (duplicates are dropped)."""
        distinct = as_key_array(pc.unique(keys))
        sort_keys = java_sort_keys(distinct)
        order = pc.sort_indices(sort_keys)
        self._keys = as_key_array(distinct.take(order))
        self._sort_keys = sort_keys.take(order)

    @property
    def keys(self) -> pa.LargeStringArray:
        """All keys, sorted."""
        return self._keys

    def _bisect(self, bound: bytes, *, right: bool) -> int:
        # Binary search on the Arrow array itself: O(log n) scalar reads, nothing per key.
        search = bisect.bisect_right if right else bisect.bisect_left
        return search(self._sort_keys, bound, key=_as_bytes)

    def in_range(self, low: str, high: str) -> pa.LargeStringArray:
        """Keys ``k`` with ``low <= k <= high`` (Java order)."""
        start = self._bisect(java_order_bytes(low), right=False)
        stop = self._bisect(java_order_bytes(high), right=True)
        return self._keys.slice(start, max(stop - start, 0))


def _as_bytes(scalar: pa.Scalar) -> bytes:
    value: bytes = scalar.as_py()
    return value


def _tasks_for(keys: pa.LargeStringArray, files: Sequence[IndexedFile], prune_by_ranges: bool) -> list[LookupTask]:
    if not len(keys):
        return []
    ranged = prune_by_ranges and any(f.has_key_range for f in files)
    # Sorting pays for many files' binary searches; a partition's only file filters the keys in
    # one pass instead (same keys, in incoming order: lookups answer per key, whatever the order).
    sorted_keys = SortedKeys(keys) if ranged and len(files) > 1 else None
    tasks = []
    for file in files:
        if not ranged or file.min_key is None or file.max_key is None:
            candidates = keys
        elif sorted_keys is not None:
            candidates = sorted_keys.in_range(file.min_key, file.max_key)
        else:
            candidates = keys.filter(pa.array(in_java_range(keys, file.min_key, file.max_key)))
        if len(candidates):
            tasks.append(LookupTask(file, candidates))
    return tasks


def plan_lookups(
    incoming: pa.Table, files: Sequence[IndexedFile], *, is_global: bool, prune_by_ranges: bool
) -> list[LookupTask]:
    """Pair incoming keys with the files that may hold them.

    Args:
        incoming: ``_hoodie_record_key`` and ``_hoodie_partition_path`` columns.
        files: Candidate base files (ranges filled in where known).
        is_global: Pair every key with every file, ignoring partitions.
        prune_by_ranges: Skip keys outside a file's known ``[min_key, max_key]``.

    Returns:
        One task per file that may hold a key, in ``files`` order, with distinct keys.
    """
    if is_global:
        keys, _ = incoming_columns(incoming)
        return _tasks_for(as_key_array(pc.unique(keys)), files, prune_by_ranges)
    by_partition = keys_by_partition(incoming)
    files_of: dict[str, list[IndexedFile]] = {}
    for file in files:
        files_of.setdefault(file.partition_path, []).append(file)
    planned: dict[int, LookupTask] = {}
    for partition, partition_files in files_of.items():
        keys = by_partition.get(partition)
        if keys is not None:
            for task in _tasks_for(keys, partition_files, prune_by_ranges):
                planned[id(task.file)] = task
    # Report tasks in ``files`` order whatever the partition grouping did.
    return [planned[id(f)] for f in files if id(f) in planned]
