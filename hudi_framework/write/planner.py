"""Routing a copy-on-write write: which file group every incoming row goes to, vectorised.

Three engine-neutral steps, so that the local and the Spark engine route by the same rules:

1. :func:`routing_summary`, per batch and anywhere: a few aggregate rows (the partitions seen,
   inserts per partition, rows per located file group). Summaries of batches add up
   (:func:`merge_summaries`), so a Spark job sums them and the driver collects only them.
2. :func:`plan_targets`, on the driver: from the summary and the latest file slices, the file
   groups written (each exactly once), where inserts go (small files first, then new file groups,
   :mod:`~hudi_framework.write.sizing`) and what a replacecommit replaces.
3. :func:`route_rows` and :func:`apply_routing`, per batch and anywhere: each row's target index.
   Updates and deletes go to the file group the index found; inserts to an insert bucket of their
   partition, either by arrival rank (exact; the local engine, which sees all rows at once) or by a
   hash of the record key (Apache Hudi's ``UpsertPartitioner`` rule; the Spark engine, whose
   executors see only their share of the rows).

Row classes, after tagging: no location -> insert into ``_hoodie_partition_path``; location in the
same partition -> update (or delete) that file group; location in another partition (a global
index) -> a delete there, and an insert here. Deletes of unknown keys are dropped.

Merge-on-read with an index that finds keys in log files (``RecordIndex.indexes_log_files``): the
small files are the latest slices outside pending compactions whose estimated size is under the max
file size, and the inserts they take are appended to their log files (Java's
``SparkUpsertDeltaCommitPartitioner`` for indexes that ``canIndexLogFiles``); routed rows then
carry :data:`INSERTED`, so the log task counts its inserts and tells the record index their keys.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.index import LOCATION_COLUMNS, LOCATION_FILE_ID, LOCATION_PARTITION
from hudi_framework.contracts.merging.flags import set_bool_column
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.file_group_task import INSERTED, FileGroupWrite
from hudi_framework.write.operation import is_replace
from hudi_framework.write.prepare import IS_DELETED, PARTITION_PATH, RECORD_KEY
from hudi_framework.write.sizing import (
    InsertBucket,
    SizingOptions,
    SmallFile,
    assign_inserts,
    assign_inserts_by_hash,
    plan_insert_buckets,
)

__all__ = [
    "INSERTED",
    "IS_DELETED",
    "PARTITION_PATH",
    "RECORD_KEY",
    "SUMMARY_SCHEMA",
    "TARGET",
    "Routing",
    "TargetPlan",
    "apply_routing",
    "merge_summaries",
    "plan_targets",
    "route_rows",
    "routing_summary",
    "split_by_target",
    "target_rows",
]

#: Routing column: index of the row's target in :attr:`TargetPlan.targets`.
TARGET = "_hoodie_target"
#: One summary row: ``kind`` is ``P`` (rows of a partition), ``I`` (inserts into a partition) or
#: ``U`` (rows located in the file group ``partition``/``file_id``); ``rows`` counts them.
SUMMARY_SCHEMA = pa.schema(
    [
        pa.field("kind", pa.string()),
        pa.field("partition", pa.string()),
        pa.field("file_id", pa.string()),
        pa.field("rows", pa.int64()),
    ]
)

IntVector = npt.NDArray[np.int64]
BoolVector = npt.NDArray[np.bool_]
Rows: TypeAlias = pa.Table | pa.RecordBatch


def _strings(rows: Rows, name: str) -> pa.Array:
    column = rows.column(name)
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return column if column.type == pa.string() else pc.cast(column, pa.string())


def _bools(rows: Rows, name: str) -> BoolVector:
    if name not in rows.column_names:
        return np.zeros(rows.num_rows, dtype=np.bool_)
    values = rows.column(name).fill_null(False).to_numpy(zero_copy_only=False)
    return np.asarray(values, dtype=np.bool_)


@dataclass(frozen=True, slots=True)
class _Classes:
    partitions: pa.Array
    deleted: BoolVector
    in_place: BoolVector
    moving: BoolVector
    loc_partitions: pa.Array | None
    loc_file_ids: pa.Array | None

    @property
    def inserts(self) -> BoolVector:
        return ~self.in_place & ~self.deleted


def _classify(rows: Rows) -> _Classes:
    n = rows.num_rows
    partitions = _strings(rows, PARTITION_PATH)
    deleted = _bools(rows, IS_DELETED)
    if LOCATION_FILE_ID not in rows.column_names:
        none = np.zeros(n, dtype=np.bool_)
        return _Classes(partitions, deleted, none, none.copy(), None, None)
    loc_partitions = _strings(rows, LOCATION_PARTITION)
    loc_file_ids = _strings(rows, LOCATION_FILE_ID)
    located = np.asarray(pc.is_valid(loc_file_ids).to_numpy(zero_copy_only=False), dtype=np.bool_)
    elsewhere = pc.not_equal(loc_partitions, partitions).fill_null(False).to_numpy(zero_copy_only=False)
    moving = located & np.asarray(elsewhere, dtype=np.bool_) & ~deleted
    return _Classes(partitions, deleted, located & ~moving, moving, loc_partitions, loc_file_ids)


def _pair_keys(partitions: pa.Array, file_ids: pa.Array) -> pa.Array:
    # "<partition length>:<partition>:<file id>" is injective whatever characters either holds.
    lengths = pc.cast(pc.utf8_length(partitions), pa.string())
    return pc.binary_join_element_wise(lengths, partitions, file_ids, ":")


def _located_positions(partitions: pa.Array, file_ids: pa.Array, value_set: pa.Array) -> IntVector:
    """Per row, the position of its ``(partition, file id)`` pair key in ``value_set`` (-1: none).

    Rows name few distinct file groups: the pairs are numbered by the two columns' dictionary
    codes and only the distinct ones are joined into pair keys and looked up.
    """
    n = len(partitions)
    p_codes, p_names = _codes(partitions)
    f_codes, f_names = _codes(file_ids)
    width = max(1, len(f_names))
    pairs = p_codes * width + f_codes
    valid = (p_codes >= 0) & (f_codes >= 0)
    if len(p_names) * width > 4 * n + 1024:
        # Many distinct names (a global index over many partitions): look every row up.
        position = pc.index_in(_pair_keys(partitions, file_ids), value_set=value_set)
        return np.asarray(position.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    present = np.flatnonzero(np.bincount(pairs[valid], minlength=len(p_names) * width))
    keys = _pair_keys(p_names.take(pa.array(present // width)), f_names.take(pa.array(present % width)))
    found = pc.index_in(keys, value_set=value_set)
    lookup = np.full(len(p_names) * width, -1, dtype=np.int64)
    lookup[present] = np.asarray(found.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    out = np.full(n, -1, dtype=np.int64)
    out[valid] = lookup[pairs[valid]]
    return out


def _codes(values: pa.Array) -> tuple[IntVector, pa.Array]:
    """Dictionary codes of ``values`` (-1 for nulls) and the distinct values."""
    encoded = pc.dictionary_encode(values)
    codes = np.asarray(encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False), dtype=np.int64)
    return codes, encoded.dictionary


def merge_summaries(summaries: Sequence[pa.Table]) -> pa.Table:
    """Add up routing summaries (of batches of one write) into one row per kind/partition/file id."""
    parts = [s.select(SUMMARY_SCHEMA.names).cast(SUMMARY_SCHEMA) for s in summaries if s.num_rows]
    if not parts:
        return SUMMARY_SCHEMA.empty_table()
    grouped = pa.concat_tables(parts).group_by(["kind", "partition", "file_id"]).aggregate([("rows", "sum")])
    return grouped.rename_columns({"rows_sum": "rows"}).select(SUMMARY_SCHEMA.names).cast(SUMMARY_SCHEMA)


def _partition_counts(kind: str, names: pa.Array, counts: IntVector) -> pa.Table:
    present = counts > 0
    n = int(present.sum())
    return pa.table(
        {
            "kind": pa.nulls(n, pa.string()).fill_null(kind),
            "partition": names.filter(pa.array(present)),
            "file_id": pa.nulls(n, pa.string()).fill_null(""),
            "rows": pa.array(counts[present], pa.int64()),
        },
        schema=SUMMARY_SCHEMA,
    )


def _file_group_counts(kind: str, partitions: pa.Array, file_ids: pa.Array) -> pa.Table:
    grouped = pa.table({"partition": partitions, "file_id": file_ids}).group_by(["partition", "file_id"])
    counted = grouped.aggregate([([], "count_all")])
    n = counted.num_rows
    return pa.table(
        {
            "kind": pa.nulls(n, pa.string()).fill_null(kind),
            "partition": counted.column("partition"),
            "file_id": counted.column("file_id"),
            "rows": counted.column("count_all"),
        },
        schema=SUMMARY_SCHEMA,
    )


def routing_summary(rows: Rows) -> pa.Table:
    """What :func:`plan_targets` needs to know about ``rows`` (:data:`SUMMARY_SCHEMA`, few rows).

    Args:
        rows: Prepared (and, for upserts and deletes, tagged) rows: ``_hoodie_partition_path``,
            optionally ``_hoodie_is_deleted`` and the location columns.
    """
    c = _classify(rows)
    # Few distinct partitions: count by dictionary code (two bincounts, no string grouping).
    encoded = pc.dictionary_encode(c.partitions)
    codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    names = encoded.dictionary
    per_partition = np.bincount(codes, minlength=len(names))
    inserts = np.bincount(codes[c.inserts], minlength=len(names))
    parts = [_partition_counts("P", names, per_partition), _partition_counts("I", names, inserts)]
    if c.loc_partitions is not None and c.loc_file_ids is not None:
        located = pa.array(c.in_place | c.moving)
        parts.append(_file_group_counts("U", c.loc_partitions.filter(located), c.loc_file_ids.filter(located)))
    return merge_summaries(parts)


@dataclass(frozen=True, slots=True)
class TargetPlan:
    """Where the rows of one write go (picklable; Spark broadcasts it to the routing tasks).

    Attributes:
        targets: The file groups written, each once; a target's index is its id.
        located: ``(partition, file id)`` of every file group the index found incoming keys in.
        located_targets: The target of each of ``located``.
        buckets: Insert buckets (small files first, then new file groups), by partition.
        bucket_targets: The target of each bucket.
        replaced: Partition -> file ids replaced by this write (replacecommits).
        log_inserts: Some inserts are appended to log files: routed rows carry :data:`INSERTED`.
    """

    targets: tuple[FileGroupWrite, ...]
    located: tuple[tuple[str, str], ...] = ()
    located_targets: tuple[int, ...] = ()
    buckets: tuple[InsertBucket, ...] = ()
    bucket_targets: tuple[int, ...] = ()
    replaced: Mapping[str, tuple[str, ...]] | None = None
    log_inserts: bool = False


class _Targets:
    """The planned file groups, created on first use.

    Merge-on-read: an existing file group is appended to (log files of its latest slice, the one a
    pending compaction opened if any) unless it is one of ``rewrite``, the small files of partitions
    with inserts, which are rewritten like copy-on-write (Java's ``handleUpdate`` on small file ids).
    """

    def __init__(
        self,
        slices: Sequence[FileSlice],
        *,
        writer_slices: Sequence[FileSlice] | None = None,
        merge_on_read: bool = False,
        rewrite: frozenset[tuple[str, str]] = frozenset(),
    ) -> None:
        self._latest = {(s.partition_path, s.file_id): s for s in slices}
        self._writer = {(s.partition_path, s.file_id): s for s in (writer_slices or ())}
        self._mor = merge_on_read
        self._rewrite = rewrite
        self.items: list[FileGroupWrite] = []
        self._index: dict[tuple[str, str], int] = {}

    def _target(self, partition: str, file_id: str) -> FileGroupWrite:
        key = (partition, file_id)
        s = self._latest.get(key)
        base = s.base_file_key if s is not None else None
        base_instant = s.base_instant_time if base and s else None
        if s is None or not self._mor or key in self._rewrite:
            return FileGroupWrite(partition, file_id, base, base_instant)
        w = self._writer.get(key, s)
        return FileGroupWrite(
            partition,
            file_id,
            base,
            base_instant,
            append=True,
            slice_instant=w.base_instant_time,
            slice_base_file=w.base_file_name or "",
            slice_log_files=tuple(w.log_file_names),
        )

    def index_of(self, partition: str, file_id: str) -> int:
        key = (partition, file_id)
        if key not in self._index:
            self._index[key] = len(self.items)
            self.items.append(self._target(partition, file_id))
        return self._index[key]


def _small_files(slices: Sequence[FileSlice], limit: int) -> dict[str, list[SmallFile]]:
    out: dict[str, list[SmallFile]] = {}
    for s in slices:
        size = s.base_file.size if s.base_file is not None else None
        if size is not None and size < limit and not s.log_files:
            out.setdefault(s.partition_path, []).append(SmallFile(s.file_id, size))
    return out


def _mor_small_files(
    slices: Sequence[FileSlice], writer_slices: Sequence[FileSlice], limit: int, candidates: int
) -> dict[str, list[SmallFile]]:
    """Merge-on-read small files (Java's ``SparkUpsertDeltaCommitPartitioner``, indexes that cannot
    index log files): slices without log files and outside pending compactions, smallest first, at
    most ``candidates`` per partition."""
    if limit <= 0:
        return {}
    pending = {
        (w.partition_path, w.file_id)
        for w, s in _paired(slices, writer_slices)
        if w.base_instant_time != s.base_instant_time
    }
    eligible = [s for s in slices if (s.partition_path, s.file_id) not in pending]
    out = {p: sorted(files, key=lambda f: f.size)[:candidates] for p, files in _small_files(eligible, limit).items()}
    return out


def _log_insert_files(
    slices: Sequence[FileSlice], writer_slices: Sequence[FileSlice], sizing: SizingOptions
) -> dict[str, list[SmallFile]]:
    """Merge-on-read small files for an index that finds keys in log files (Java's delta-commit
    partitioner when the index ``canIndexLogFiles``): every latest slice outside a pending
    compaction, with or without log files, whose size as Parquet (base file plus log files times
    ``hoodie.logfile.to.parquet.compression.ratio``) is under ``hoodie.parquet.max.file.size``."""
    pending = {
        (w.partition_path, w.file_id)
        for w, s in _paired(slices, writer_slices)
        if w.base_instant_time != s.base_instant_time
    }
    out: dict[str, list[SmallFile]] = {}
    for s in slices:
        if (s.partition_path, s.file_id) in pending:
            continue
        logs = sum(f.size for f in s.log_files if f.size is not None and f.size > 0)
        size = (s.base_file.size or 0 if s.base_file is not None else 0) + int(logs * sizing.log_to_parquet_ratio)
        if size < sizing.max_file_size:
            out.setdefault(s.partition_path, []).append(SmallFile(s.file_id, size, below=sizing.max_file_size))
    return out


def _paired(slices: Sequence[FileSlice], writer_slices: Sequence[FileSlice]) -> list[tuple[FileSlice, FileSlice]]:
    by_id = {(s.partition_path, s.file_id): s for s in slices}
    return [(w, by_id[k]) for w in writer_slices if (k := (w.partition_path, w.file_id)) in by_id]


def plan_targets(
    operation: WriteOperation,
    summary: pa.Table,
    latest_slices: Sequence[FileSlice],
    *,
    sizing: SizingOptions,
    record_size: int,
    overwrite_partitions: Sequence[str] | None = None,
    merge_on_read: bool = False,
    writer_slices: Sequence[FileSlice] | None = None,
    log_inserts: bool = False,
    clustering: Collection[tuple[str, str]] = frozenset(),
) -> TargetPlan:
    """Plan the file groups of one write from the summary of its rows (driver side, no I/O).

    Args:
        operation: The write operation.
        summary: :func:`routing_summary` of all rows (summed or not).
        latest_slices: The table's latest file slices (small files, base files to merge with).
        sizing: Small-file and max-file sizes.
        record_size: Estimated bytes per record.
        overwrite_partitions: For ``delete_partition``: the partitions to drop.
        merge_on_read: Updates and deletes of existing file groups are appended to log files
            (except small files of partitions with inserts, which are rewritten).
        writer_slices: Merge-on-read: the latest slices *without* folding pending compactions
            (the slice a log append goes to); defaults to ``latest_slices``.
        log_inserts: Merge-on-read: the index finds keys in log files and the write records the
            keys it inserts into them, so inserts go to log files of small slices (see the module
            docstring) instead of rewriting small base files.
    """
    entries = merge_summaries([summary]).to_pylist()
    seen = {str(e["partition"]) for e in entries if e["kind"] == "P"}
    insert_counts = {str(e["partition"]): int(e["rows"]) for e in entries if e["kind"] == "I" and e["rows"]}
    located = tuple(sorted((str(e["partition"]), str(e["file_id"])) for e in entries if e["kind"] == "U"))
    writer = writer_slices if writer_slices is not None else latest_slices
    small: dict[str, list[SmallFile]] = {}
    if operation is not WriteOperation.BULK_INSERT and not is_replace(operation):
        if merge_on_read and log_inserts:
            small = _log_insert_files(latest_slices, writer, sizing)
        elif merge_on_read:
            small = _mor_small_files(
                latest_slices, writer, sizing.small_file_limit, sizing.small_file_group_candidates_limit
            )
        else:
            small = _small_files(latest_slices, sizing.small_file_limit)
        if clustering:
            small = {p: [f for f in files if (p, f.file_id) not in clustering] for p, files in small.items()}
    appended = merge_on_read and log_inserts
    rewrite = frozenset(() if appended else ((p, f.file_id) for p in insert_counts for f in small.get(p, ())))
    targets = _Targets(latest_slices, writer_slices=writer, merge_on_read=merge_on_read, rewrite=rewrite)
    located_targets = tuple(targets.index_of(p, f) for p, f in located)
    replaced: dict[str, set[str]] = {}
    if is_replace(operation):
        if operation is WriteOperation.INSERT_OVERWRITE_TABLE:
            touched = {s.partition_path for s in latest_slices}
        elif operation is WriteOperation.DELETE_PARTITION:
            touched = set(overwrite_partitions or ())
            insert_counts = {}
        else:
            touched = seen
        for s in latest_slices:
            if s.partition_path in touched:
                replaced.setdefault(s.partition_path, set()).add(s.file_id)
    buckets = plan_insert_buckets(insert_counts, small, record_size, sizing) if insert_counts else []
    bucket_targets = tuple(targets.index_of(b.partition, b.file_id) for b in buckets)
    return TargetPlan(
        targets=tuple(targets.items),
        located=located,
        located_targets=located_targets,
        buckets=tuple(buckets),
        bucket_targets=bucket_targets,
        replaced={p: tuple(sorted(ids)) for p, ids in replaced.items()},
        log_inserts=appended and any(not b.is_new for b in buckets),
    )


@dataclass(frozen=True, slots=True)
class Routing:
    """Targets of a batch's rows.

    Attributes:
        targets: Per row, its target index (-1: dropped, e.g. a delete of an unknown key).
        moved: Rows whose key moves partitions (global index): each also sends a delete to
            ``moved_targets``.
        moved_targets: The target of the delete of each moved row.
        inserted: When the plan appends inserts to log files: per row, whether it is an insert.
    """

    targets: IntVector
    moved: IntVector
    moved_targets: IntVector
    inserted: BoolVector | None = None


def route_rows(rows: Rows, plan: TargetPlan, *, key_hashes: IntVector | None = None) -> Routing:
    """Each row's target under ``plan``, vectorised.

    Args:
        rows: Rows of the write (any subset, if ``key_hashes`` is given).
        plan: From :func:`plan_targets` over a summary that covers ``rows``.
        key_hashes: A 64-bit hash of each row's record key: inserts pick their bucket by
            ``hash mod inserts-of-the-partition`` against the buckets' cumulative capacities, so
            any batch is routed alone. None: ``rows`` are all the write's rows, and inserts fill the
            buckets in arrival order (exact capacities).

    Raises:
        ValueError: A row's file group or partition is not in the plan (the rows differ from the
            ones summarised).
    """
    c = _classify(rows)
    routing = np.full(rows.num_rows, -1, dtype=np.int64)
    moved = np.zeros(0, dtype=np.int64)
    moved_targets = np.zeros(0, dtype=np.int64)
    if c.loc_partitions is not None and c.loc_file_ids is not None and (c.in_place.any() or c.moving.any()):
        value_set = _pair_keys(
            pa.array([p for p, _ in plan.located], pa.string()), pa.array([f for _, f in plan.located], pa.string())
        )
        found = _located_positions(c.loc_partitions, c.loc_file_ids, value_set)
        wanted = c.in_place | c.moving
        if (found[wanted] < 0).any():
            raise ValueError(f"{int((found[wanted] < 0).sum())} located row(s) have no planned file group")
        ids = np.asarray(plan.located_targets, dtype=np.int64)
        located_target = np.full(len(found), -1, dtype=np.int64)
        located_target[found >= 0] = ids[found[found >= 0]]
        routing[c.in_place] = located_target[c.in_place]
        moved = np.flatnonzero(c.moving).astype(np.int64)
        moved_targets = located_target[moved]
    inserts = np.flatnonzero(c.inserts)
    if len(inserts):
        parts = c.partitions.take(pa.array(inserts))
        if key_hashes is None:
            which = np.asarray(assign_inserts(parts, plan.buckets).to_numpy(), dtype=np.int64)
        else:
            which = assign_inserts_by_hash(parts, np.asarray(key_hashes, dtype=np.int64)[inserts], plan.buckets)
        routing[inserts] = np.asarray(plan.bucket_targets, dtype=np.int64)[which]
    return Routing(routing, moved, moved_targets, c.inserts if plan.log_inserts else None)


def apply_routing(rows: pa.Table, routing: Routing) -> pa.Table:
    """``rows`` ready for file-group tasks: location columns dropped, delete copies of moved keys
    appended, dropped rows removed, :data:`INSERTED` (when the routing tells inserts) and the
    :data:`TARGET` column appended.
    """
    rows = rows.drop_columns([c for c in LOCATION_COLUMNS if c in rows.column_names])
    if routing.inserted is not None:
        rows = set_bool_column(rows, INSERTED, routing.inserted)
    targets = routing.targets
    if len(routing.moved):
        if IS_DELETED not in rows.column_names:
            rows = set_bool_column(rows, IS_DELETED, np.zeros(rows.num_rows, dtype=np.bool_))
        moved_rows = set_bool_column(rows.take(pa.array(routing.moved)), IS_DELETED, np.ones(len(routing.moved), bool))
        rows = pa.concat_tables([rows, moved_rows.select(rows.column_names).cast(rows.schema)])
        targets = np.concatenate([targets, routing.moved_targets])
    rows = rows.append_column(pa.field(TARGET, pa.int64()), pa.array(targets, pa.int64()))
    keep = targets >= 0
    return rows if keep.all() else rows.filter(pa.array(keep))


def target_rows(routing: pa.Array, num_targets: int) -> list[npt.NDArray[np.int64] | None]:
    """Row indices of each target in arrival order (None for a target without rows)."""
    targets = np.asarray(routing.to_numpy(zero_copy_only=False), dtype=np.int64)
    # Stable keeps arrival order within a target; on 16-bit ints numpy sorts by radix (linear).
    narrow = targets.astype(np.int16) if num_targets < 2**15 else targets
    order = np.argsort(narrow, kind="stable")
    sorted_targets = targets[order]
    out: list[npt.NDArray[np.int64] | None] = [None] * num_targets
    if not len(sorted_targets):
        return out
    bounds = np.flatnonzero(np.diff(sorted_targets)) + 1
    starts = np.concatenate(([0], bounds))
    ends = np.concatenate((bounds, [len(sorted_targets)]))
    for start, end in zip(starts, ends, strict=True):
        t = int(sorted_targets[start])
        if t >= 0:
            out[t] = order[start:end]
    return out


def split_by_target(rows: pa.Table, routing: pa.Array, num_targets: int) -> list[pa.Table]:
    """Rows of each target, keeping arrival order within a target (no per-row Python)."""
    return [
        rows.schema.empty_table() if idx is None else rows.take(pa.array(idx))
        for idx in target_rows(routing, num_targets)
    ]
