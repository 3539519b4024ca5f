"""Merging a base file's rows with later records: the copy-on-write rewrite, MOR reads, compaction.

``merge_with_base`` matches incoming keys to stored keys with one hash lookup (``pc.index_in``),
runs the merger once on the matched pairs, and assembles the file the way Apache Hudi's merge
handle writes it: stored rows keep their order (replaced in place, or dropped when the merge result
is a delete), then new keys follow in incoming order. Deletes never reach the output.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import contiguous, to_numpy
from hudi_framework.contracts.arrays import indices as positions
from hudi_framework.contracts.merging.flags import delete_mask, drop_flags
from hudi_framework.contracts.merging.ordering import BoolMask
from hudi_framework.contracts.merging.pair import decode_dictionaries, unify_tables
from hudi_framework.contracts.merging.partial import mark_partial, merge_pairs
from hudi_framework.contracts.merging.precombine import key_codes
from hudi_framework.errors import MergeError
from hudi_framework.merge.selection import select_pairs

if TYPE_CHECKING:
    from hudi_framework.contracts.merger import MergeContext, RecordMerger

__all__ = ["MergedRows", "append_rows", "first_matches", "gather", "merge_with_base", "project_to_schema"]

IntVector = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class MergedRows:
    """The live rows after merging, plus what happened, for commit metadata.

    Attributes:
        table: Stored rows in their order (merged ones replaced in place, deleted ones dropped),
            then inserted rows in incoming order. Exactly ``ctx.schema`` when set (pass it when
            writing); otherwise the unified columns without the supersedes-older column, and without
            ``_hoodie_is_deleted`` unless the base file has it (or, with no base columns, the
            incoming rows).
        touched: Per output row, whether an incoming record was merged into it or inserted it. Rows
            where the stored version won a merge are touched too: they keep their stored values, meta
            columns included, so stamp incoming rows with the new commit time *before* merging.
        num_inserts: Incoming keys that were not stored (deletes of unknown keys are not counted).
        num_updates: Stored keys merged with an incoming record and still live.
        num_deletes: Stored keys whose merge result was a delete.
        num_unchanged: Stored keys no incoming record touched.
    """

    table: pa.Table
    touched: BoolMask
    num_inserts: int
    num_updates: int
    num_deletes: int
    num_unchanged: int


def project_to_schema(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """Exactly ``schema``'s columns, in its order and types; absent columns become null.

    Args:
        table: Rows.
        schema: The target schema.

    Raises:
        MergeError: A column cannot be cast to the schema's type.
    """
    columns = []
    for field in schema:
        if field.name in table.column_names:
            column = table.column(field.name)
            try:
                columns.append(column if column.type == field.type else column.cast(field.type))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
                raise MergeError(f"merged column {field.name!r} cannot be cast to {field.type}: {e}") from e
        else:
            columns.append(pa.nulls(table.num_rows, type=field.type))
    return pa.Table.from_arrays(columns, schema=schema)


def _key_column(rows: pa.Table, side: str, ctx: MergeContext) -> pa.Array:
    if ctx.record_key_field not in rows.column_names:
        raise MergeError(f"{side} rows have no record key column {ctx.record_key_field!r}")
    keys = contiguous(rows.column(ctx.record_key_field))
    if keys.null_count:
        raise MergeError(f"{keys.null_count} row(s) to merge have a null record key")
    return keys


def first_matches(base_at: IntVector, incoming_at: IntVector, num_matched: int) -> tuple[IntVector, IntVector]:
    """The pairs of :func:`_matches` whose stored row is the first (in base order) holding its key.

    A key stored several times meets its incoming record at its first stored row only; the later
    rows pass through unmerged, as in Apache Hudi's file group reader, whose key-based record buffer
    hands a key's record to the first base row holding it (``records.remove(key)``).

    Args:
        base_at: Matched stored rows, ascending.
        incoming_at: The incoming row each matched.
        num_matched: How many distinct incoming rows are among ``incoming_at``.
    """
    if num_matched == len(incoming_at):
        return base_at, incoming_at
    order = np.argsort(incoming_at, kind="stable")  # stable: the first stored row of each key leads
    grouped = incoming_at[order]
    leads = np.ones(len(grouped), dtype=np.bool_)
    leads[1:] = grouped[1:] != grouped[:-1]
    keep = np.sort(order[leads])
    return base_at[keep], incoming_at[keep]


def _matches(base: pa.Table, incoming: pa.Table, ctx: MergeContext) -> tuple[IntVector, IntVector]:
    """``(base_at, incoming_at)``: the stored rows an incoming key merges into (in base order) and that
    incoming row of each (incoming keys unique); a key stored twice merges into its first row only
    (:func:`first_matches`).

    One hash table of the incoming keys, probed by every stored key: cheaper than numbering the
    keys of both sides, which inserts every stored key into a hash table.
    """
    if not base.num_rows or not incoming.num_rows:
        if base.num_rows:
            _key_column(base, "base file", ctx)
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    stored = _key_column(base, "base file", ctx)
    keys = _key_column(incoming, "incoming", ctx)
    if keys.type != stored.type:
        keys = keys.cast(stored.type)
    found = to_numpy(pc.index_in(stored, value_set=keys), null=-1).astype(np.int64, copy=False)
    base_at = np.flatnonzero(found >= 0)
    incoming_at = found[base_at]
    hit = np.zeros(incoming.num_rows, dtype=np.bool_)
    hit[incoming_at] = True
    return first_matches(base_at, incoming_at, int(np.count_nonzero(hit)))


def _dictionary_aligned(first: pa.Table, second: pa.Table) -> tuple[pa.Table, pa.Table]:
    """Both tables with a column that is a dictionary on one side dictionary-encoded on the other.

    A base file's few-valued columns may be read as dictionaries; the other side's plain values are
    encoded to the same type, so the rows concatenate and are gathered by their indices.
    """

    def encode(rows: pa.Table, types: dict[str, pa.DataType]) -> pa.Table:
        for index, field in enumerate(rows.schema):
            wanted = types.get(field.name)
            if wanted is not None and not pa.types.is_dictionary(field.type) and field.type == wanted.value_type:
                rows = rows.set_column(index, field.with_type(wanted), rows.column(index).cast(wanted))
        return rows

    def dictionaries(rows: pa.Table) -> dict[str, pa.DataType]:
        return {f.name: f.type for f in rows.schema if pa.types.is_dictionary(f.type)}

    return encode(first, dictionaries(second)), encode(second, dictionaries(first))


def _pick_rows(rows: pa.Table, indices: npt.NDArray[np.int64]) -> pa.Table:
    """``rows.take(indices)``, as a zero-copy slice when the indices are 0, 1, 2, ...

    They are whenever no stored row is replaced or dropped and no incoming row is dropped: a new
    file group (bulk insert, inserts routed to new files) or inserts appended to a base file. Then
    the output is a prefix of base rows + inserts and the full-table gather would be a plain copy.
    """
    n = len(indices)
    if n == 0 or (indices[0] == 0 and indices[-1] == n - 1 and bool((np.diff(indices) == 1).all())):
        return rows.slice(0, n)
    return gather(rows, indices)


def gather(rows: pa.Table, indices: npt.NDArray[np.int64]) -> pa.Table:
    """``rows.take(indices)`` column by column on contiguous arrays.

    A table's ``take`` resolves every index against the chunks of a chunked column; concatenating
    the chunks once and taking from one array is about a third cheaper for base + merged + incoming.
    """
    at = positions(indices)
    columns = [contiguous(column).take(at) for column in rows.columns]
    return pa.Table.from_arrays(columns, schema=rows.schema)


def merge_with_base(base: pa.Table, incoming: pa.Table, merger: RecordMerger, ctx: MergeContext) -> MergedRows:
    """Merge ``incoming`` into a base file's rows with ``merger``.

    Args:
        base: The stored rows (a base file, or an empty table for a new file group). A key stored
            more than once is merged into its first row only; its other rows are kept as they are.
        incoming: Later records in arrival order (an upsert batch, or a file slice's log records in
            commit order). Duplicate keys are pre-combined with ``merger.combine`` first. Partial
            rows (``ctx.partial_columns``, or the bookkeeping column) merge column-wise
            (:mod:`hudi_framework.contracts.merging.partial`); inserted partial rows keep nulls where they lack columns.
        merger: The table's merger.
        ctx: The merge context; with ``ctx.schema`` the output has exactly that schema.

    Returns:
        The live rows and counts.

    Raises:
        MergeError: Missing or null keys, or a merger that broke its contract.
    """
    # Whether ``_hoodie_is_deleted`` is table data (kept, false on live rows) or only a delete marker
    # of the incoming rows (``commit_time_deletes`` adds it): the table schema says, else the base's.
    schema = ctx.schema if ctx.schema is not None else base.schema if base.num_columns else incoming.schema
    keep_is_deleted = schema.get_field_index(ctx.is_deleted_field) >= 0
    incoming = merger.mark_deletes(incoming, ctx)
    if ctx.partial_columns:
        incoming = mark_partial(incoming, ctx.partial_columns, ctx)
    num_base = base.num_rows
    if incoming.num_rows:
        _key_column(incoming, "incoming", ctx)
        if key_codes(incoming, ctx)[1] < incoming.num_rows:
            incoming = merger.combine(incoming, ctx)
    incoming_deleted = delete_mask(incoming, ctx)
    base_at, incoming_at = _matches(base, incoming, ctx)
    matched: BoolMask = np.zeros(incoming.num_rows, dtype=np.bool_)
    matched[incoming_at] = True

    # Each stored row is replaced by the row at ``source`` (an index into the concatenation below),
    # or dropped when ``gone``.
    source = np.arange(num_base, dtype=np.int64)
    gone = np.zeros(num_base, dtype=np.bool_)
    selection = select_pairs(merger, base, base_at, incoming, incoming_at, ctx)
    if selection is not None:
        # Kept rows are copied once, from the base file or the incoming rows.
        merged_deleted = selection.deleted
        source[base_at] = np.where(selection.take_newer, num_base + incoming_at, base_at)
        parts = list(_dictionary_aligned(base, incoming))
        incoming_start = num_base
    else:
        # Mergers see plain columns; ``ctx.schema`` re-encodes dictionary columns at the end.
        base, incoming = decode_dictionaries(base), decode_dictionaries(incoming)
        merged = merge_pairs(merger, base.take(positions(base_at)), incoming.take(positions(incoming_at)), ctx)
        if merged.num_rows != len(base_at):
            raise MergeError(f"{type(merger).__name__}.merge returned {merged.num_rows} rows for {len(base_at)} pairs")
        merged_deleted = delete_mask(merged, ctx)
        source[base_at] = num_base + np.arange(len(base_at), dtype=np.int64)
        parts = [base, merged, incoming]
        incoming_start = num_base + merged.num_rows
    gone[base_at] = merged_deleted
    untouched = np.ones(num_base, dtype=np.bool_)
    untouched[base_at] = False
    live = ~gone
    # Output = stored rows in their order (replaced, or dropped when the merge result is a delete),
    # then live inserts in incoming order.
    inserts = np.flatnonzero(~matched & ~incoming_deleted) + incoming_start
    indices = np.concatenate([source[live], inserts])
    touched = np.concatenate([~untouched[live], np.ones(len(inserts), dtype=np.bool_)])

    rows = _pick_rows(unify_tables(parts), indices)
    if ctx.schema is not None:
        rows = project_to_schema(rows, ctx.schema)
    else:
        rows = drop_flags(rows, ctx, keep_is_deleted=keep_is_deleted)
    num_deletes = int(merged_deleted.sum())
    return MergedRows(
        table=rows,
        touched=touched,
        num_inserts=len(inserts),
        num_updates=len(base_at) - num_deletes,
        num_deletes=num_deletes,
        num_unchanged=int(untouched.sum()),
    )


def append_rows(base: pa.Table, incoming: pa.Table, merger: RecordMerger, ctx: MergeContext) -> MergedRows:
    """The stored rows as they are, then the live incoming rows in arrival order: nothing is merged.

    What an insert writes (Apache Hudi's ``HoodieCreateHandle`` for a new file group,
    ``HoodieConcatHandle`` for a small one): duplicate keys, within ``incoming`` or of stored keys,
    stay. Incoming deletes (``_hoodie_is_deleted`` or the merger's delete markers) are not written.

    Args:
        base: The stored rows (an empty table for a new file group).
        incoming: The incoming rows in arrival order.
        merger: The table's merger (it says which rows are deletes).
        ctx: The merge context; with ``ctx.schema`` the output has exactly that schema.

    Returns:
        The rows, with every stored row unchanged and every written incoming row an insert.
    """
    schema = ctx.schema if ctx.schema is not None else base.schema if base.num_columns else incoming.schema
    keep_is_deleted = schema.get_field_index(ctx.is_deleted_field) >= 0
    incoming = merger.mark_deletes(incoming, ctx)
    live = ~delete_mask(incoming, ctx)
    if not live.all():
        incoming = incoming.filter(pa.array(live))
    parts = [t for t in _dictionary_aligned(base, incoming) if t.num_columns]
    rows = unify_tables(parts) if parts else incoming
    rows = (
        project_to_schema(rows, ctx.schema)
        if ctx.schema is not None
        else drop_flags(rows, ctx, keep_is_deleted=keep_is_deleted)
    )
    touched = np.concatenate([np.zeros(base.num_rows, dtype=np.bool_), np.ones(incoming.num_rows, dtype=np.bool_)])
    return MergedRows(
        table=rows,
        touched=touched,
        num_inserts=incoming.num_rows,
        num_updates=0,
        num_deletes=0,
        num_unchanged=base.num_rows,
    )
