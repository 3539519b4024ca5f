"""Partial updates: rows that carry only some columns, merged column-wise (docs/mergers.md, "Partial updates").

A partial row says which columns it carries in the bookkeeping column ``ctx.present_columns_field``
(``"|a|b|"``; null means a full row). Meta columns (``_hoodie_*``) always count as carried: writers
fill them on every row, and Apache Hudi's partial block schemas always include them.

:func:`merge_pairs` is what the kernel calls instead of ``merger.merge``. Without partial rows it
*is* ``merger.merge``. With them it follows Apache Hudi 1.1's file-group reader (the record mergers'
``partialMerge``): between two live versions, each version's missing columns are first filled from
the other one, then the merger chooses as usual, so

* commit-time ordering: the newer version's columns win, the older one fills the rest;
* event-time ordering: the winner's columns win, the loser fills the columns the winner lacks;
* a delete on either side, or a newer version that supersedes older ones, starts afresh: nothing is
  filled (the surviving version keeps only its own columns).

The merged row carries the union of both versions' columns (a full row once that is every column).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import from_numpy, repeated_string
from hudi_framework.contracts.merging.flags import delete_mask
from hudi_framework.contracts.merging.ordering import BoolMask, as_mask
from hudi_framework.contracts.merging.pair import AlignedPair

if TYPE_CHECKING:
    from hudi_framework.contracts.merge_context import BatchMerger, MergeContext

__all__ = ["fill_then_merge", "has_partial_rows", "mark_partial", "merge_pairs", "presence_value", "present_mask"]

_META_PREFIX = "_hoodie_"


def presence_value(columns: Iterable[str]) -> str:
    """The bookkeeping value of a partial row carrying ``columns``.

    Args:
        columns: Column names (order does not matter).
    """
    return "|" + "|".join(columns) + "|"


def has_partial_rows(table: pa.Table, ctx: MergeContext) -> bool:
    """Whether some row of ``table`` is partial.

    Args:
        table: Rows.
        ctx: The merge context naming the bookkeeping column.
    """
    field = ctx.present_columns_field
    return field in table.column_names and table.column(field).null_count < table.num_rows


def mark_partial(rows: pa.Table, columns: Iterable[str], ctx: MergeContext) -> pa.Table:
    """``rows`` marked as partial rows that carry ``columns`` (meta columns always count as carried).

    Args:
        rows: Rows whose other columns are placeholders.
        columns: The columns they carry.
        ctx: The merge context naming the bookkeeping column.
    """
    value = repeated_string(presence_value(columns), rows.num_rows)
    index = rows.schema.get_field_index(ctx.present_columns_field)
    field = pa.field(ctx.present_columns_field, pa.string())
    return rows.append_column(field, value) if index < 0 else rows.set_column(index, field, value)


def present_mask(table: pa.Table, column: str, ctx: MergeContext) -> BoolMask:
    """Per row, whether ``column`` is carried (full rows carry every column).

    Args:
        table: Rows.
        column: The column.
        ctx: The merge context naming the bookkeeping column.
    """
    field = ctx.present_columns_field
    if column.startswith(_META_PREFIX) or field not in table.column_names:
        return np.ones(table.num_rows, dtype=np.bool_)
    presence = table.column(field)
    carried = pc.match_substring(presence, presence_value([column]))
    return as_mask(pc.or_kleene(pc.is_null(presence), carried))


def _fixed(ctx: MergeContext) -> frozenset[str]:
    return frozenset({ctx.record_key_field, *ctx.flag_fields, ctx.present_columns_field})


def _presence_column(masks: dict[str, BoolMask], size: int) -> pa.Array:
    """Presence values from per-column masks: null where every column is carried."""
    if not masks:
        return pa.nulls(size, pa.string())
    names = list(masks)
    pieces = [pc.if_else(from_numpy(masks[n]), f"{n}|", "") for n in names]
    joined = pc.binary_join_element_wise(pa.scalar("|"), *pieces, pa.scalar(""))
    full = np.logical_and.reduce([masks[n] for n in names])
    return pc.if_else(from_numpy(full), pa.scalar(None, pa.string()), joined)


def _fill(rows: pa.Table, column: str, fill: BoolMask, source: pa.ChunkedArray) -> pa.Table:
    index = rows.schema.get_field_index(column)
    current = rows.column(index)
    return rows.set_column(index, rows.field(index), pc.if_else(from_numpy(fill), source, current))


def merge_pairs(merger: BatchMerger, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
    """``merger.merge(older, newer, ctx)``, or ``merger.partial_merge`` where either side holds partial rows.

    Args:
        merger: The table's merger.
        older: The earlier versions.
        newer: The later versions, aligned with ``older``.
        ctx: The merge context.

    Returns:
        The merged rows (see :meth:`RecordMerger.merge`), with the bookkeeping column of partial
        rows when any input had one.
    """
    if not (has_partial_rows(older, ctx) or has_partial_rows(newer, ctx)):
        return merger.merge(older, newer, ctx)
    return merger.partial_merge(older, newer, ctx)


def fill_then_merge(merger: BatchMerger, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
    """Apache Hudi 1.1's ``partialMerge``: fill each live version's missing columns from the other, then merge.

    The default of :meth:`RecordMerger.partial_merge` (see the module docstring for the rules).

    Args:
        merger: The merger choosing between the filled versions.
        older: The earlier versions (may hold partial rows).
        newer: The later versions, aligned with ``older`` (may hold partial rows).
        ctx: The merge context.

    Returns:
        The merged rows with the bookkeeping column of partial rows.
    """
    pair = AlignedPair.of(older, newer, ctx)
    size = pair.size
    first, second = pair.older, pair.newer
    deleted = delete_mask(pair.rows, ctx)
    older_deleted, newer_deleted = deleted[:size], deleted[size:]
    both_live = ~older_deleted & ~newer_deleted & ~pair.newer_supersedes
    older_survives = newer_deleted & ~older_deleted & ~pair.newer_supersedes
    fixed = _fixed(ctx)
    masks: dict[str, BoolMask] = {}
    for column in pair.rows.column_names:
        if column in fixed:
            continue
        in_older, in_newer = present_mask(first, column, ctx), present_mask(second, column, ctx)
        fill_newer, fill_older = both_live & ~in_newer & in_older, both_live & ~in_older & in_newer
        older_column = first.column(column)
        if fill_newer.any():
            second = _fill(second, column, fill_newer, older_column)
        if fill_older.any():
            first = _fill(first, column, fill_older, second.column(column))
        masks[column] = np.where(both_live, in_older | in_newer, np.where(older_survives, in_older, in_newer))
    field = ctx.present_columns_field
    merged = merger.merge(first.drop_columns([field]), second.drop_columns([field]), ctx)
    presence = _presence_column(masks, size)
    index = merged.schema.get_field_index(field)
    column_field = pa.field(field, pa.string())
    if index >= 0:
        return merged.set_column(index, column_field, presence)
    return merged.append_column(column_field, presence)
