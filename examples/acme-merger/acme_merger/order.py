"""The order/payment merger, written one record at a time (the kernel adapts it to Arrow batches)."""

from __future__ import annotations

from typing import Any, ClassVar, Final

from pydantic import BaseModel, ConfigDict, Field

from hudi_framework.contracts.merger import MergeContext, PerRecordMerger, RecordRow
from hudi_framework.contracts.merging import compare_ordering_values

__all__ = ["ACME_ORDER_STRATEGY_ID", "ColumnGroup", "OrderMerger", "OrderMergerOptions"]

#: The merge strategy this plugin implements (``hoodie.write.record.merge.strategy.id``).
ACME_ORDER_STRATEGY_ID: Final = "8c1f7a52-3c6b-4d2e-9a41-5f0e7d2b6a13"


class ColumnGroup(BaseModel):
    """Columns one service owns, and the column where it stamps its update time."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    updated_at: str = Field(min_length=1)
    columns: tuple[str, ...]


class OrderMergerOptions(BaseModel):
    """Options of :class:`OrderMerger`; the defaults name the example's columns."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    groups: tuple[ColumnGroup, ...] = (
        ColumnGroup(updated_at="order_updated_at", columns=("order_item", "order_amount")),
        ColumnGroup(updated_at="payment_updated_at", columns=("payment_method", "payment_failure_reason")),
    )


class OrderMerger(PerRecordMerger):
    """Status (every column outside the groups) by event time; each group by its own update time.

    * The version with the larger ordering value (the table's event time) gives the status and
      every other ungrouped column, deletes included; ties go to the later write.
    * Each column group comes whole from the version whose ``updated_at`` is larger (null is
      smallest, so a version that did not touch the group never overwrites it); ties go to the later write.
    * A newer version that supersedes older ones (a commit-time delete) wins outright.

    Every choice is a "larger value, then later write" maximum, so merging is associative.
    """

    strategy_id: ClassVar[str] = ACME_ORDER_STRATEGY_ID

    def __init__(self, options: OrderMergerOptions | None = None) -> None:
        """Build the merger from its options."""
        self.options = options or OrderMergerOptions()

    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        """Merge one order's two versions; see the class docstring."""
        if ctx.supersedes_older(newer):
            return newer
        newer_first = compare_ordering_values(ctx.ordering_value(newer), ctx.ordering_value(older)) >= 0
        merged: dict[str, Any] = dict(newer if newer_first else older)
        for group in self.options.groups:
            newer_group = compare_ordering_values((newer.get(group.updated_at),), (older.get(group.updated_at),)) >= 0
            source = newer if newer_group else older
            for column in (group.updated_at, *group.columns):
                merged[column] = source.get(column)
        return merged

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OrderMerger) and other.options == self.options

    def __hash__(self) -> int:
        return hash((type(self), self.options))
