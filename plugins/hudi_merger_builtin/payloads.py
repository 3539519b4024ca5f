"""Mergers behind Apache Hudi's deprecated payload classes that are not plain merge modes.

``OverwriteWithLatestAvroPayload``, ``DefaultHoodieRecordPayload`` and ``EventTimeAvroPayload`` are the
built-in modes themselves; the others map onto these mergers (docs/mergers.md, "Legacy payload classes"):

* ``OverwriteNonDefaultsWithLatestAvroPayload``: commit-time ordering, but a null (Avro default) column
  of the newer version keeps the older value;
* ``PartialUpdateAvroPayload``: event-time ordering, and the winner's null columns are filled from the
  other version;
* ``AWSDmsAvroPayload``: commit-time ordering, a row whose ``Op`` is ``D`` is a delete;
* ``MySqlDebeziumAvroPayload`` / ``PostgresDebeziumAvroPayload``: event-time ordering (set the ordering
  field to ``_event_seq`` / ``_event_lsn``), a row whose ``_change_operation_type`` is ``d`` is a delete;
  Postgres also keeps the stored value of a column the newer row marks unavailable (TOAST).

All are vectorised. They implement ``PAYLOAD_BASED`` (all zeros), the UUID Apache Hudi gives payload mergers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, final

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, ConfigDict, Field

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.contracts.merging.flags import delete_mask, set_bool_column
from hudi_framework.contracts.merging.ordering import as_mask
from hudi_framework.contracts.merging.pair import AlignedPair
from hudi_framework.vocabulary import PAYLOAD_BASED_STRATEGY_ID

if TYPE_CHECKING:
    from hudi_framework.contracts.merger import MergeContext
    from hudi_framework.contracts.merging.ordering import BoolMask
    from hudi_framework.plugin import NoOptions

__all__ = [
    "DeleteMarkerMerger",
    "DeleteMarkerOptions",
    "OverwriteNonDefaultsMerger",
    "PartialUpdateMerger",
    "PartialUpdateOptions",
]


def _fixed_columns(ctx: MergeContext) -> frozenset[str]:
    """Columns never filled from another version: the key, the ordering value and the bookkeeping."""
    return frozenset(
        {ctx.record_key_field, ctx.is_deleted_field, ctx.operation_field, ctx.supersedes_older_field,
         *ctx.ordering_fields}
    )  # fmt: skip


def _fill_nulls(chosen: pa.Table, other: pa.Table, fill: BoolMask, ctx: MergeContext) -> pa.Table:
    """``chosen`` with its null data columns replaced by ``other``'s values on rows where ``fill`` is set."""
    if not fill.any():
        return chosen
    mask = pa.array(fill, type=pa.bool_())
    fixed = _fixed_columns(ctx)
    for i, name in enumerate(chosen.column_names):
        if name in fixed or name.startswith("_hoodie_"):
            continue
        column = chosen.column(i)
        take_other = pc.and_(mask, pc.is_null(column))
        chosen = chosen.set_column(i, chosen.field(i), pc.if_else(take_other, other.column(name), column))
    return chosen


def _fill_unavailable(chosen: pa.Table, other: pa.Table, fill: BoolMask, marker: str, ctx: MergeContext) -> pa.Table:
    """``chosen`` with string/binary data values containing ``marker`` replaced by ``other``'s, where ``fill``."""
    mask = pa.array(fill, type=pa.bool_())
    fixed = _fixed_columns(ctx)
    for i, field in enumerate(chosen.schema):
        name = field.name
        if name in fixed or name.startswith("_hoodie_") or name not in other.column_names:
            continue
        t = field.type
        if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
                or pa.types.is_large_binary(t)):  # fmt: skip
            continue
        column = chosen.column(i)
        found = pc.fill_null(pc.match_substring(column, marker), False)
        take_other = pc.and_(mask, found)
        chosen = chosen.set_column(i, field, pc.if_else(take_other, other.column(name).cast(t), column))
    return chosen


def _meta_from(chosen: pa.Table, other: pa.Table, rows: BoolMask, ctx: MergeContext) -> pa.Table:
    """``chosen`` with its meta columns (``_hoodie_*`` but the flags) taken from ``other`` where ``rows``
    are set and ``other``'s value is not null (incoming rows of a write carry no meta values yet)."""
    if not rows.any():
        return chosen
    mask = pa.array(rows, type=pa.bool_())
    fixed = _fixed_columns(ctx)
    for i, name in enumerate(chosen.column_names):
        if name in fixed or not name.startswith("_hoodie_"):
            continue
        column = chosen.column(i)
        take_other = pc.and_(mask, pc.is_valid(other.column(name)))
        chosen = chosen.set_column(i, chosen.field(i), pc.if_else(take_other, other.column(name), column))
    return chosen


def _select(pair: AlignedPair, take_newer: BoolMask) -> tuple[pa.Table, pa.Table]:
    """Per row, the chosen version and the other one."""
    index = np.arange(pair.size, dtype=np.int64)
    chosen = pair.rows.take(pa.array(index + take_newer.astype(np.int64) * pair.size))
    other = pair.rows.take(pa.array(index + (~take_newer).astype(np.int64) * pair.size))
    return chosen, other


def _finish(merged: pa.Table, pair: AlignedPair, ctx: MergeContext) -> pa.Table:
    return set_bool_column(merged, ctx.supersedes_older_field, pair.older_supersedes | pair.newer_supersedes)


@final
class OverwriteNonDefaultsMerger(RecordMerger):
    """``OverwriteNonDefaultsWithLatestAvroPayload``: the later write wins, except for its null columns.

    A null column of the newer version keeps the older version's value, unless either version is a
    delete or the newer one supersedes older versions (those start the record afresh).
    """

    strategy_id: ClassVar[str] = PAYLOAD_BASED_STRATEGY_ID

    def __init__(self, options: NoOptions | None = None) -> None:
        """Build the merger; it takes no options."""

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """The newer row, its nulls filled from a live older row; see :meth:`RecordMerger.merge`."""
        pair = AlignedPair.of(older, newer, ctx)
        deleted = delete_mask(pair.rows, ctx)
        older_deleted, newer_deleted = deleted[: pair.size], deleted[pair.size :]
        fill = ~older_deleted & ~newer_deleted & ~pair.newer_supersedes
        merged = _fill_nulls(pair.newer, pair.older, fill, ctx)
        # After a delete the record starts afresh: nothing older may be filled in any more.
        supersedes = pair.older_supersedes | pair.newer_supersedes | older_deleted | newer_deleted
        return set_bool_column(merged, ctx.supersedes_older_field, supersedes)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))


class PartialUpdateOptions(BaseModel):
    """Options of :class:`PartialUpdateMerger`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    late_update_meta_columns: bool = True
    """When the stored version wins over a later write by its ordering value, the result takes the later
    write's meta columns (commit time, sequence number, file name...): what Java's payload class does
    (``mergeDisorderRecordsWithMetadata``) on the tables that run it (versions 6 and 8). Version 9
    tables run the merge mode the payload was migrated to, which keeps the stored version whole."""


@final
class PartialUpdateMerger(RecordMerger):
    """``PartialUpdateAvroPayload``: event-time ordering; the winner's null columns come from the other version.

    The winner is chosen as by event-time ordering (a superseding newer row, else the larger ordering
    value, ties to the newer). Its null data columns are then filled from the losing version, unless
    the winner is a superseding newer row (a commit-time delete in its history starts afresh). Ordering
    fields are never filled, so the merged ordering value is the winner's. With
    ``late_update_meta_columns``, a live older winner takes the live newer version's non-null meta columns.
    """

    strategy_id: ClassVar[str] = PAYLOAD_BASED_STRATEGY_ID

    def __init__(self, options: PartialUpdateOptions | None = None) -> None:
        """Build the merger from its options."""
        self.options = options or PartialUpdateOptions()

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """The event-time winner, its nulls filled from the loser; see :meth:`RecordMerger.merge`."""
        pair = AlignedPair.of(older, newer, ctx)
        take_newer = pair.newer_supersedes | pair.newer_wins(ctx)
        chosen, other = _select(pair, take_newer)
        merged = _fill_nulls(chosen, other, ~(take_newer & pair.newer_supersedes), ctx)
        if self.options.late_update_meta_columns:
            deleted = delete_mask(pair.rows, ctx)
            late = ~take_newer & ~deleted[: pair.size] & ~deleted[pair.size :]
            merged = _meta_from(merged, other, late, ctx)
        return _finish(merged, pair, ctx)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.options == self.options

    def __hash__(self) -> int:
        return hash((type(self), self.options))


class DeleteMarkerOptions(BaseModel):
    """Options of :class:`DeleteMarkerMerger` (Apache Hudi's ``hoodie.payload.delete.field``/``.marker``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    delete_field: str = Field(min_length=1)
    """The column that marks a delete."""
    delete_marker: str
    """The value of that column that marks a delete (compared as a string)."""
    event_time: bool = False
    """Event-time ordering (Debezium) instead of commit-time ordering (AWS DMS)."""
    unavailable_value: str | None = None
    """A placeholder a CDC source writes for a value it did not send (Postgres Debezium's TOASTed
    columns, ``__debezium_unavailable_value``); a winning newer row keeps the older value where a
    string or binary column contains it (``hoodie.table.partial.update.mode=FILL_UNAVAILABLE``)."""


@final
class DeleteMarkerMerger(RecordMerger):
    """CDC payloads (AWS DMS, Debezium): a row whose delete field holds the marker is a delete.

    Marked rows become ``_hoodie_is_deleted`` rows before merging (:meth:`mark_deletes`, which the
    kernel also applies to incoming rows), then the version is chosen by commit-time or event-time ordering.
    """

    strategy_id: ClassVar[str] = PAYLOAD_BASED_STRATEGY_ID

    def __init__(self, options: DeleteMarkerOptions) -> None:
        """Build the merger from its options."""
        self.options = options

    def mark_deletes(self, rows: pa.Table, ctx: MergeContext) -> pa.Table:
        """``rows`` with ``ctx.is_deleted_field`` set where the delete field holds the marker.

        Args:
            rows: Rows with or without the delete field.
            ctx: The merge context.
        """
        field = self.options.delete_field
        if field not in rows.column_names:
            return rows
        marked = as_mask(pc.equal(rows.column(field).cast(pa.string()), self.options.delete_marker))
        if not marked.any() and ctx.is_deleted_field in rows.column_names:
            return rows
        return set_bool_column(rows, ctx.is_deleted_field, delete_mask(rows, ctx) | marked)

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """Mark deletes, then keep the newer row (or the event-time winner); see :meth:`RecordMerger.merge`."""
        pair = AlignedPair.of(self.mark_deletes(older, ctx), self.mark_deletes(newer, ctx), ctx)
        take_newer = None if not self.options.event_time else pair.newer_supersedes | pair.newer_wins(ctx)
        merged = pair.choose(take_newer, ctx)
        marker = self.options.unavailable_value
        if marker is None:
            return merged
        deleted = delete_mask(pair.rows, ctx)
        newer_won = np.ones(pair.size, dtype=np.bool_) if take_newer is None else take_newer
        fill = newer_won & ~pair.newer_supersedes & ~deleted[: pair.size] & ~deleted[pair.size :]
        return _fill_unavailable(merged, pair.older, fill, marker, ctx) if fill.any() else merged

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DeleteMarkerMerger) and other.options == self.options

    def __hash__(self) -> int:
        return hash((type(self), self.options))
