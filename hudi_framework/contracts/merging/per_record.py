"""The adapter from a per-record merger (``merge_record``) to the batch ``merge`` API."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

from hudi_framework.contracts.merging.flags import delete_mask, set_bool_column
from hudi_framework.contracts.merging.pair import AlignedPair
from hudi_framework.errors import MergeError

if TYPE_CHECKING:
    from hudi_framework.contracts.merge_context import MergeContext, RecordRow, RecordWiseMerger

__all__ = ["merge_per_record"]


def merge_per_record(merger: RecordWiseMerger, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
    """Merge aligned tables by calling ``merger.merge_record`` on each pair of rows.

    The kernel, not the merger, owns the flag columns: inputs get them computed before the call,
    the result's is-deleted flag is re-derived from the returned record and its supersedes-older
    flag is the OR of both inputs', exactly as for vectorised mergers.

    Args:
        merger: The per-record merger.
        older: The earlier versions.
        newer: The later versions, aligned with ``older``.
        ctx: The merge context.

    Returns:
        The merged rows (see :meth:`~hudi_framework.contracts.merger.RecordMerger.merge`).

    Raises:
        MergeError: The sides are not aligned, or ``merge_record`` changed a record key.
    """
    pair = AlignedPair.of(older, newer, ctx)
    key = ctx.record_key_field
    merged: list[RecordRow] = []
    for old_row, new_row in zip(pair.older.to_pylist(), pair.newer.to_pylist(), strict=True):
        result = merger.merge_record(old_row, new_row, ctx)
        if result is None:
            result = {**new_row, ctx.is_deleted_field: True}
        elif result.get(key) != new_row[key]:
            raise MergeError(
                f"{type(merger).__name__}.merge_record changed record key {new_row[key]!r} to {result.get(key)!r}"
            )
        merged.append(result)
    schema = pair.rows.schema
    try:
        table = pa.Table.from_pylist(merged, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as e:
        raise MergeError(f"{type(merger).__name__}.merge_record returned values that do not fit the schema: {e}") from e
    table = set_bool_column(table, ctx.is_deleted_field, delete_mask(table, ctx))
    return set_bool_column(table, ctx.supersedes_older_field, pair.older_supersedes | pair.newer_supersedes)
