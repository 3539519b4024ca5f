"""Planning a copy-on-write write: route every incoming row to one file group, vectorised.

The planner runs on the driver over key columns only (record key, partition path, location, delete
flag); the output says which file group each row goes to. Data columns never need to be on the
driver for the Spark engine, which joins this routing back onto the rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.index import LOCATION_FILE_ID, LOCATION_INSTANT, LOCATION_PARTITION
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.model.schema import META_FIELDS
from hudi_framework.write.file_group_task import FileGroupWrite
from hudi_framework.write.operation import WriteOperation
from hudi_framework.write.sizing import InsertBucket, SizingOptions, SmallFile, assign_inserts, plan_insert_buckets

RECORD_KEY, PARTITION_PATH = META_FIELDS[2], META_FIELDS[3]
IS_DELETED = "_hoodie_is_deleted"
#: Routing column: index of the row's target in :attr:`WritePlan.targets`.
TARGET = "_hoodie_target"


@dataclass(frozen=True, slots=True)
class WritePlan:
    """Where rows go.

    Attributes:
        targets: The file groups written, each once.
        routing: ``TARGET`` per incoming row (-1: dropped, e.g. a delete of an unknown key); for
            global indexes that move a key, extra delete rows are appended (see ``moved``).
        moved: Rows (indices into incoming) whose key moves partitions: a delete is sent to
            ``moved_targets`` while the row itself goes to its new file group.
        moved_targets: Target of the delete of each moved row.
        replaced: Partition -> file ids replaced by this write (replacecommits).
    """

    targets: tuple[FileGroupWrite, ...]
    routing: pa.Array
    moved: pa.Array
    moved_targets: pa.Array
    replaced: Mapping[str, tuple[str, ...]]


class _Targets:
    def __init__(self, slices: Sequence[FileSlice]) -> None:
        self._latest = {(s.partition_path, s.file_id): s for s in slices}
        self.items: list[FileGroupWrite] = []
        self._index: dict[tuple[str, str], int] = {}

    def index_of(self, partition: str, file_id: str) -> int:
        key = (partition, file_id)
        if key not in self._index:
            s = self._latest.get(key)
            base = s.base_file_key if s is not None else None
            self._index[key] = len(self.items)
            self.items.append(FileGroupWrite(partition, file_id, base, s.base_instant_time if base and s else None))
        return self._index[key]


def _small_files(slices: Sequence[FileSlice], limit: int) -> dict[str, list[SmallFile]]:
    out: dict[str, list[SmallFile]] = {}
    for s in slices:
        size = s.base_file.size if s.base_file is not None else None
        if size is not None and size < limit and not s.log_files:
            out.setdefault(s.partition_path, []).append(SmallFile(s.file_id, size))
    return out


def _route_existing(
    targets: _Targets, routing: np.ndarray, partitions: np.ndarray, file_ids: np.ndarray, rows: np.ndarray
) -> None:
    if not len(rows):
        return
    pairs = np.char.add(np.char.add(partitions[rows].astype(str), "\x1f"), file_ids[rows].astype(str))
    uniq, inverse = np.unique(pairs, return_inverse=True)
    ids = np.array([targets.index_of(*u.split("\x1f", 1)) for u in uniq], dtype=np.int64)
    routing[rows] = ids[inverse]


def plan_write(
    operation: WriteOperation,
    keys: pa.Table,
    latest_slices: Sequence[FileSlice],
    *,
    sizing: SizingOptions,
    record_size: int,
    overwrite_partitions: Sequence[str] | None = None,
) -> WritePlan:
    """Route incoming rows.

    Args:
        operation: The write operation.
        keys: One row per incoming record: ``_hoodie_record_key``, ``_hoodie_partition_path``, the
            location columns from tagging (null when new; absent when not tagged) and optionally
            ``_hoodie_is_deleted``.
        latest_slices: The table's latest file slices (small files, base files to merge with).
        sizing: Small-file and max-file sizes.
        record_size: Estimated bytes per record.
        overwrite_partitions: For ``delete_partition``: the partitions to drop.

    Returns:
        The plan.
    """
    n = keys.num_rows
    routing = np.full(n, -1, dtype=np.int64)
    targets = _Targets(latest_slices)
    partitions = keys.column(PARTITION_PATH).to_numpy(zero_copy_only=False)
    deleted = (
        keys.column(IS_DELETED).fill_null(False).to_numpy(zero_copy_only=False).astype(bool)
        if IS_DELETED in keys.column_names
        else np.zeros(n, dtype=bool)
    )
    replaced: dict[str, set[str]] = {}
    moved = np.zeros(0, dtype=np.int64)
    moved_targets = np.zeros(0, dtype=np.int64)

    if operation.is_replace:
        if operation is WriteOperation.INSERT_OVERWRITE_TABLE:
            touched = {s.partition_path for s in latest_slices}
        elif operation is WriteOperation.DELETE_PARTITION:
            touched = set(overwrite_partitions or ())
        else:
            touched = {str(p) for p in np.unique(partitions)} if n else set()
        for s in latest_slices:
            if s.partition_path in touched:
                replaced.setdefault(s.partition_path, set()).add(s.file_id)
        inserts = np.flatnonzero(~deleted) if operation is not WriteOperation.DELETE_PARTITION else np.zeros(0, int)
        small: dict[str, list[SmallFile]] = {}
    else:
        located = np.zeros(n, dtype=bool)
        if LOCATION_FILE_ID in keys.column_names:
            located = pc.is_valid(keys.column(LOCATION_FILE_ID)).to_numpy(zero_copy_only=False).astype(bool)
            loc_parts = keys.column(LOCATION_PARTITION).to_numpy(zero_copy_only=False)
            loc_ids = keys.column(LOCATION_FILE_ID).to_numpy(zero_copy_only=False)
            # A global index may find a key in another partition: delete it there, insert it here.
            moving = located & (loc_parts != partitions) & ~deleted
            same = located & ~moving
            _route_existing(targets, routing, loc_parts, loc_ids, np.flatnonzero(same))
            moved = np.flatnonzero(moving)
            if len(moved):
                holder = np.full(n, -1, dtype=np.int64)
                _route_existing(targets, holder, loc_parts, loc_ids, moved)
                moved_targets = holder[moved]
            located = same
        inserts = np.flatnonzero(~located & ~deleted)
        small = {} if operation is WriteOperation.BULK_INSERT else _small_files(latest_slices, sizing.small_file_limit)

    if len(inserts):
        insert_parts = pa.array(partitions[inserts], pa.string())
        counts = pc.value_counts(insert_parts)
        insert_counts = {str(v["values"]): int(v["counts"]) for v in counts.to_pylist()}
        buckets: list[InsertBucket] = plan_insert_buckets(insert_counts, small, record_size, sizing)
        bucket_target = np.array([targets.index_of(b.partition, b.file_id) for b in buckets], dtype=np.int64)
        routing[inserts] = bucket_target[assign_inserts(insert_parts, buckets).to_numpy()]

    return WritePlan(
        targets=tuple(targets.items),
        routing=pa.array(routing),
        moved=pa.array(moved, pa.int64()),
        moved_targets=pa.array(moved_targets, pa.int64()),
        replaced={p: tuple(sorted(ids)) for p, ids in replaced.items()},
    )


def split_by_target(rows: pa.Table, routing: pa.Array, num_targets: int) -> list[pa.Table]:
    """Rows of each target, keeping arrival order within a target (one take, no per-row Python)."""
    order = pc.sort_indices(pa.table({"t": routing, "i": pa.array(np.arange(len(routing)))}),
                            sort_keys=[("t", "ascending"), ("i", "ascending")])  # fmt: skip
    sorted_targets = routing.take(order).to_numpy(zero_copy_only=False)
    taken = rows.take(order)
    out = [rows.schema.empty_table() for _ in range(num_targets)]
    if not len(sorted_targets):
        return out
    bounds = np.flatnonzero(np.diff(sorted_targets)) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.concatenate((bounds, [len(sorted_targets)]))
    for start, end in zip(starts, ends, strict=True):
        t = int(sorted_targets[start])
        if t >= 0:
            out[t] = taken.slice(int(start), int(end - start))
    return out


__all__ = ["IS_DELETED", "LOCATION_INSTANT", "TARGET", "WritePlan", "plan_write", "split_by_target"]
