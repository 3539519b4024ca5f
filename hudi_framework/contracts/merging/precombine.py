"""Pre-combining: one row per record key, by the table's merger, vectorised.

Rows are grouped by key with a hash (``dictionary_encode``) and a stable integer sort, which keeps
each key's rows in arrival order. Keys seen once are final at once. Keys seen several times are
reduced pairwise: round ``r`` merges rows ``(0, 1), (2, 3)...`` of every such key in one call to
``merger.merge``, so a key with ``n`` versions needs ``ceil(log2 n)`` rounds and the total work is
linear in the duplicates. Pairing neighbours in order is a valid grouping only because mergers are
associative on ordered inputs (the merger contract), which is also what makes the result equal to
folding ``merge`` oldest first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous, to_numpy
from hudi_framework.contracts.arrays import indices as positions
from hudi_framework.contracts.merging.flags import with_flags
from hudi_framework.contracts.merging.ordering import as_mask
from hudi_framework.contracts.merging.pair import unify_tables
from hudi_framework.contracts.merging.partial import merge_pairs
from hudi_framework.errors import MergeError

if TYPE_CHECKING:
    from hudi_framework.contracts.merge_context import BatchMerger, MergeContext

__all__ = ["has_duplicate_keys", "key_codes", "reduce_by_key"]

IntVector = npt.NDArray[np.int64]


def key_codes(table: pa.Table, ctx: MergeContext) -> tuple[IntVector, int]:
    """Number each distinct record key in order of first appearance.

    Args:
        table: Rows with the record key column.
        ctx: The merge context naming it.

    Returns:
        ``(codes, num_keys)``: per row, its key's number.

    Raises:
        MergeError: The key column is missing or holds nulls.
    """
    if ctx.record_key_field not in table.column_names:
        raise MergeError(f"rows to merge have no record key column {ctx.record_key_field!r}")
    keys = table.column(ctx.record_key_field)
    if keys.null_count:
        raise MergeError(f"{keys.null_count} row(s) to merge have a null record key")
    encoded = pc.dictionary_encode(contiguous(keys))
    codes = np.asarray(to_numpy(encoded.indices), dtype=np.int64)
    return codes, len(encoded.dictionary)


def has_duplicate_keys(table: pa.Table, ctx: MergeContext) -> bool:
    """Whether some record key appears on more than one row.

    Args:
        table: Rows with the record key column.
        ctx: The merge context naming it.
    """
    _, num_keys = key_codes(table, ctx)
    return bool(num_keys != table.num_rows)


def _group_bounds(groups: IntVector) -> tuple[IntVector, IntVector]:
    """Start and size of each run of equal values in a sorted vector."""
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]]).astype(np.int64)
    sizes = np.diff(np.r_[starts, len(groups)]).astype(np.int64)
    return starts, sizes


def _check_keys(merged: pa.Table, older: pa.Table, merger: BatchMerger, ctx: MergeContext) -> None:
    if merged.num_rows != older.num_rows:
        raise MergeError(f"{type(merger).__name__}.merge returned {merged.num_rows} rows for {older.num_rows} pairs")
    key = ctx.record_key_field
    same = as_mask(pc.equal(merged.column(key), older.column(key).cast(merged.column(key).type)))
    if not same.all():
        raise MergeError(f"{type(merger).__name__}.merge changed the record key of {int((~same).sum())} row(s)")


def reduce_by_key(merger: BatchMerger, batch: pa.Table, ctx: MergeContext) -> pa.Table:
    """Combine ``batch`` to one row per key by reducing duplicates with ``merger.merge``.

    This is the default :meth:`~hudi_framework.contracts.merger.RecordMerger.combine`.

    Args:
        merger: The table's merger.
        batch: Rows in arrival order (later rows newer).
        ctx: The merge context.

    Returns:
        One row per key in order of first appearance, flags set, deletes kept.

    Raises:
        MergeError: Null keys, or a merger that broke its contract (row count or keys changed).
    """
    flagged = with_flags(merger.mark_deletes(batch, ctx), ctx)
    if flagged.num_rows == 0:
        return flagged
    codes, num_keys = key_codes(flagged, ctx)
    if num_keys == flagged.num_rows:
        return flagged
    # Pending rows are positions ``at`` in ``source``, sorted by key number then age; only merge
    # inputs and final rows are ever materialised with ``take``.
    at = np.argsort(codes, kind="stable")
    source, groups = flagged, codes[at]
    finished: list[tuple[pa.Table, IntVector, IntVector]] = []
    while len(at):
        starts, sizes = _group_bounds(groups)
        single = np.repeat(sizes == 1, sizes)
        if single.any():
            finished.append((source, at[single], groups[single]))
            at, groups = at[~single], groups[~single]
            if not len(at):
                break
            starts, sizes = _group_bounds(groups)
        rank = np.arange(len(groups), dtype=np.int64) - np.repeat(starts, sizes)
        group_size = np.repeat(sizes, sizes)
        older_at = np.flatnonzero((rank % 2 == 0) & (rank + 1 < group_size))
        tail_at = np.flatnonzero((rank % 2 == 0) & (rank + 1 == group_size))
        older = source.take(positions(at[older_at]))
        merged = merge_pairs(merger, older, source.take(positions(at[older_at + 1])), ctx)
        _check_keys(merged, older, merger, ctx)
        source = unify_tables([merged, source.take(positions(at[tail_at]))])
        next_groups = np.r_[groups[older_at], groups[tail_at]]
        at = np.lexsort((np.r_[rank[older_at], rank[tail_at]] // 2, next_groups))
        groups = next_groups[at]
    parts = [table.take(positions(rows)) for table, rows, _ in finished]
    result = unify_tables(parts)
    order = np.concatenate([g for _, _, g in finished])
    if np.all(order[1:] >= order[:-1]):
        return result  # already in order of first appearance (one part, or parts that do not interleave)
    return result.take(positions(np.argsort(order, kind="stable")))
