"""The example third-party merger (examples/acme-merger) honours the merger contract and its laws."""

from __future__ import annotations

import pytest
from acme_merger import ACME_ORDER_STRATEGY_ID, OrderMerger, OrderMergerOptions
from acme_merger.order import ColumnGroup

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.errors import MergeStrategyNotFoundError
from hudi_framework.merge.choose import find_strategy
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.testing import RecordMergerContract


class TestOrderMerger(RecordMergerContract):
    @pytest.fixture
    def merger(self) -> RecordMerger:
        # The suite's columns: ``note`` is a column group stamped by ``payload``.
        return OrderMerger(OrderMergerOptions(groups=(ColumnGroup(updated_at="payload", columns=("note",)),)))


def test_installed_through_its_entry_point() -> None:
    registry = ComponentRegistry.from_manager(build_plugin_manager())
    assert find_strategy(registry, ACME_ORDER_STRATEGY_ID) == "acme-order-merger"
    assert type(registry.build(ComponentKind.MERGER, "acme-order-merger")) is OrderMerger


def test_blocked_distribution_is_not_found() -> None:
    registry = ComponentRegistry.from_manager(build_plugin_manager(disable=["acme-merger"]))
    with pytest.raises(MergeStrategyNotFoundError, match=ACME_ORDER_STRATEGY_ID) as info:
        find_strategy(registry, ACME_ORDER_STRATEGY_ID)
    assert "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5 (event-time-ordering)" in info.value.installed
