"""Merging by selection: which stored or incoming row each matched key keeps, from narrow columns.

Mergers that always keep one of the two versions (both built-ins) say which through
:meth:`~hudi_framework.contracts.merger.RecordMerger.select`. Deciding needs only the key, ordering
and flag columns, so the kernel gathers those for the matched pairs and then copies every kept row
once, straight from the base file or the incoming rows, instead of gathering both versions of every
column, merging them and copying the result again.

The shortcut applies only where its output is exactly :meth:`~RecordMerger.merge`'s: full rows on
both sides (no partial rows), and an is-deleted column, where one exists, that is a non-null boolean
(``merge`` rewrites it from the delete mask; a row copied as it is keeps its own value).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_framework.contracts.arrays import indices as positions
from hudi_framework.contracts.merging.flags import delete_mask
from hudi_framework.contracts.merging.ordering import BoolMask
from hudi_framework.contracts.merging.pair import decode_dictionaries
from hudi_framework.contracts.merging.partial import has_partial_rows
from hudi_framework.errors import MergeError

if TYPE_CHECKING:
    from hudi_framework.contracts.merger import MergeContext, RecordMerger

__all__ = ["Selection", "select_pairs"]


@dataclass(frozen=True, slots=True)
class Selection:
    """What each matched pair keeps.

    Attributes:
        take_newer: Per pair, True when the incoming (newer) row is kept.
        deleted: Per pair, whether the kept row is a delete.
    """

    take_newer: BoolMask
    deleted: BoolMask


def _narrow(rows: pa.Table, at: npt.NDArray[np.int64], ctx: MergeContext) -> pa.Table:
    flags = (ctx.is_deleted_field, ctx.operation_field, ctx.supersedes_older_field)
    wanted = (ctx.record_key_field, *ctx.ordering_fields, *flags)
    names = [name for name in dict.fromkeys(wanted) if name in rows.column_names]
    return decode_dictionaries(rows.select(names).take(positions(at)))


def _plain_is_deleted(rows: pa.Table, ctx: MergeContext) -> bool:
    if ctx.is_deleted_field not in rows.column_names:
        return True
    column = rows.column(ctx.is_deleted_field)
    return pa.types.is_boolean(column.type) and not column.null_count


def select_pairs(
    merger: RecordMerger,
    older: pa.Table,
    older_at: npt.NDArray[np.int64],
    newer: pa.Table,
    newer_at: npt.NDArray[np.int64],
    ctx: MergeContext,
) -> Selection | None:
    """The selection for pairs (``older`` row ``older_at[i]``, ``newer`` row ``newer_at[i]``), or None.

    None when the merger does not select, either side holds partial rows, or an is-deleted column
    is not a plain boolean: the caller then merges the gathered pairs with ``merger.merge``.

    Raises:
        MergeError: The merger returned a mask of the wrong length.
    """
    if has_partial_rows(older, ctx) or has_partial_rows(newer, ctx):
        return None
    if not (_plain_is_deleted(older, ctx) and _plain_is_deleted(newer, ctx)):
        return None
    old, new = _narrow(older, older_at, ctx), _narrow(newer, newer_at, ctx)
    take_newer = merger.select(old, new, ctx)
    if take_newer is None:
        return None
    take_newer = np.asarray(take_newer, dtype=np.bool_)
    if take_newer.shape != (len(older_at),):
        raise MergeError(f"{type(merger).__name__}.select returned {take_newer.shape} for {len(older_at)} pairs")
    deleted = np.where(take_newer, delete_mask(new, ctx), delete_mask(old, ctx))
    return Selection(take_newer, deleted)
