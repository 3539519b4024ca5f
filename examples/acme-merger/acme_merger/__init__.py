"""``acme-merger``: a third-party record merger plugin for hudi_framework (entry point ``acme-merger``).

It registers ``acme-order-merger``, which implements strategy :data:`ACME_ORDER_STRATEGY_ID`; tables
in ``CUSTOM`` merge mode with that ``hoodie.record.merge.strategy.id`` resolve to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from acme_merger.order import ACME_ORDER_STRATEGY_ID, OrderMerger, OrderMergerOptions
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.plugin import ComponentSpec, hookimpl

__all__ = ["ACME_ORDER_STRATEGY_ID", "OrderMerger", "OrderMergerOptions", "hudi_record_mergers"]


@hookimpl
def hudi_record_mergers() -> Sequence[ComponentSpec[RecordMerger]]:
    """Register ``acme-order-merger``; its strategy UUID is the class's ``strategy_id``."""
    return [
        ComponentSpec(
            "acme-order-merger",
            factory=OrderMerger,
            options_model=OrderMergerOptions,
            description="Status by event time; order and payment columns each from their service's latest write",
            aliases=("acme_merger.OrderMerger",),
        )
    ]
