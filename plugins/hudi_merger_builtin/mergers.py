"""The built-in mergers. Both select one version per row with whole-column operations."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, final

import numpy as np

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.contracts.merging.pair import AlignedPair
from hudi_framework.vocabulary import COMMIT_TIME_STRATEGY_ID, EVENT_TIME_STRATEGY_ID

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.merger import MergeContext
    from hudi_framework.contracts.merging.ordering import BoolMask
    from hudi_framework.plugin import NoOptions

__all__ = ["CommitTimeOrderingMerger", "EventTimeOrderingMerger"]


@final
class CommitTimeOrderingMerger(RecordMerger):
    """``COMMIT_TIME_ORDERING``: the newer version always wins, deletes included.

    Ordering fields are ignored, as in Apache Hudi 1.x (which only warns when they are set).
    """

    strategy_id: ClassVar[str] = COMMIT_TIME_STRATEGY_ID

    def __init__(self, options: NoOptions | None = None) -> None:
        """Build the merger; it takes no options."""

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """Keep every newer row; see :meth:`RecordMerger.merge`."""
        return AlignedPair.of(older, newer, ctx).choose(None, ctx)

    def select(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> BoolMask:
        """Every newer row; see :meth:`RecordMerger.select`."""
        return np.ones(newer.num_rows, dtype=np.bool_)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))


def _newer_wins(pair: AlignedPair, ctx: MergeContext) -> BoolMask:
    return pair.newer_supersedes | pair.newer_wins(ctx)


@final
class EventTimeOrderingMerger(RecordMerger):
    """``EVENT_TIME_ORDERING``: the version with the larger ordering value wins; ties go to the newer.

    A newer row that supersedes older versions (a commit-time delete, or a merge result with one in
    its history) wins whatever the ordering values. A delete with an ordering value is an ordinary
    version: it is ignored when the older version's ordering value is strictly greater. Without
    ordering fields every row ties, so this behaves as commit-time ordering, as in Apache Hudi.
    """

    strategy_id: ClassVar[str] = EVENT_TIME_STRATEGY_ID

    def __init__(self, options: NoOptions | None = None) -> None:
        """Build the merger; it takes no options."""

    def merge(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> pa.Table:
        """Keep the newer row where it supersedes or its ordering value is >=; see :meth:`RecordMerger.merge`."""
        pair = AlignedPair.of(older, newer, ctx)
        return pair.choose(_newer_wins(pair, ctx), ctx)

    def select(self, older: pa.Table, newer: pa.Table, ctx: MergeContext) -> BoolMask:
        """The rows :meth:`merge` takes from ``newer``; see :meth:`RecordMerger.select`."""
        return _newer_wins(AlignedPair.of(older, newer, ctx), ctx)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))
