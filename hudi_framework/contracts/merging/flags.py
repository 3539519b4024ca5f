"""The two per-row flags every merge carries: is-deleted and supersedes-older.

See the vocabulary in :mod:`hudi_framework.contracts.merger`. Both are computed from the data
columns, so inputs never have to carry them; once computed they ride along as non-null boolean
columns until :func:`drop_flags` removes them before rows are written or returned to users.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import from_numpy
from hudi_framework.contracts.merging.ordering import BoolMask, as_mask

if TYPE_CHECKING:
    from hudi_framework.contracts.merge_context import MergeContext

__all__ = [
    "commit_time_deletes",
    "delete_mask",
    "drop_flags",
    "no_ordering_mask",
    "set_bool_column",
    "supersedes_mask",
    "with_flags",
]


def set_bool_column(table: pa.Table, name: str, values: BoolMask) -> pa.Table:
    """Replace (or append) column ``name`` with non-null booleans.

    Args:
        table: The table.
        name: The column.
        values: One boolean per row.

    Returns:
        A new table; ``table`` is unchanged.
    """
    column = from_numpy(np.asarray(values, dtype=np.bool_))
    index = table.schema.get_field_index(name)
    if index < 0:
        return table.append_column(pa.field(name, pa.bool_()), column)
    return table.set_column(index, pa.field(name, pa.bool_()), column)


def delete_mask(table: pa.Table, ctx: MergeContext) -> BoolMask:
    """Rows that are deletes: ``_hoodie_is_deleted`` true, or ``_hoodie_operation`` = ``D``.

    Args:
        table: Rows, with or without those columns.
        ctx: The merge context naming the columns.
    """
    mask: BoolMask = np.zeros(table.num_rows, dtype=np.bool_)
    names = set(table.column_names)
    if ctx.is_deleted_field in names:
        column = table.column(ctx.is_deleted_field)
        # Java reads the field as a boolean; anything else (a string "true" from a CSV) is compared as such.
        mask |= as_mask(column if pa.types.is_boolean(column.type) else pc.equal(column.cast(pa.string()), "true"))
    if ctx.operation_field in names:
        mask |= as_mask(pc.equal(table.column(ctx.operation_field).cast(pa.string()), "D"))
    return mask


def no_ordering_mask(table: pa.Table, ctx: MergeContext) -> BoolMask:
    """Rows with no ordering value: every ordering field null or absent (all rows without fields).

    Args:
        table: Rows.
        ctx: The merge context naming the ordering fields.
    """
    mask: BoolMask = np.ones(table.num_rows, dtype=np.bool_)
    names = set(table.column_names)
    for field in ctx.ordering_fields:
        if field in names:
            mask &= as_mask(pc.is_null(table.column(field)))
    return mask


def supersedes_mask(table: pa.Table, ctx: MergeContext, deletes: BoolMask | None = None) -> BoolMask:
    """Rows that replace every older version of their key: flagged, or commit-time deletes.

    Args:
        table: Rows.
        ctx: The merge context.
        deletes: :func:`delete_mask` of ``table`` if already computed.
    """
    if deletes is None:
        deletes = delete_mask(table, ctx)
    mask = deletes & no_ordering_mask(table, ctx)
    if ctx.supersedes_older_field in table.column_names:
        mask |= as_mask(table.column(ctx.supersedes_older_field))
    return mask


def with_flags(table: pa.Table, ctx: MergeContext) -> pa.Table:
    """``table`` with both flag columns computed and set as non-null booleans (idempotent).

    Args:
        table: Rows.
        ctx: The merge context.
    """
    deletes = delete_mask(table, ctx)
    supersedes = supersedes_mask(table, ctx, deletes)
    table = set_bool_column(table, ctx.is_deleted_field, deletes)
    return set_bool_column(table, ctx.supersedes_older_field, supersedes)


def drop_flags(table: pa.Table, ctx: MergeContext, *, keep_is_deleted: bool = False) -> pa.Table:
    """Remove the bookkeeping columns, and the is-deleted column unless it is table data.

    Args:
        table: Merged rows.
        ctx: The merge context.
        keep_is_deleted: Keep ``ctx.is_deleted_field`` (it is a data column of the table).
    """
    drop = [ctx.supersedes_older_field, ctx.present_columns_field]
    if not keep_is_deleted:
        drop.append(ctx.is_deleted_field)
    return table.drop_columns([name for name in drop if name in table.column_names])


def commit_time_deletes(
    keys: pa.Array | pa.ChunkedArray | Sequence[str],
    ctx: MergeContext,
    *,
    partition_paths: pa.Array | pa.ChunkedArray | Sequence[str] | None = None,
) -> pa.Table:
    """Rows that delete ``keys`` whatever their stored ordering values (SQL ``DELETE``, delete blocks).

    The rows carry no ordering value, so every merger treats them as commit-time deletes. Merge
    them like any incoming rows; columns they lack read as null.

    Args:
        keys: The record keys to delete.
        ctx: The merge context naming the columns.
        partition_paths: Each key's partition path, for ``_hoodie_partition_path``.

    Returns:
        Columns: record key, optionally ``_hoodie_partition_path``, and the two flags (all true).
    """
    key_column = keys if isinstance(keys, pa.Array | pa.ChunkedArray) else pa.array(keys, type=pa.string())
    columns: dict[str, pa.Array | pa.ChunkedArray] = {ctx.record_key_field: key_column}
    if partition_paths is not None:
        columns["_hoodie_partition_path"] = (
            partition_paths
            if isinstance(partition_paths, pa.Array | pa.ChunkedArray)
            else pa.array(partition_paths, type=pa.string())
        )
    table = pa.table(columns)
    flags: BoolMask = np.ones(table.num_rows, dtype=np.bool_)
    table = set_bool_column(table, ctx.is_deleted_field, flags)
    return set_bool_column(table, ctx.supersedes_older_field, flags)
