"""The example third-party merger (examples/acme-merger) honours the merger contract and its laws."""

from __future__ import annotations

import pyarrow as pa
import pytest
from acme_merger import ACME_ORDER_STRATEGY_ID, OrderMerger, OrderMergerOptions
from acme_merger.order import ColumnGroup
from hypothesis import strategies as st

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.errors import MergeStrategyNotFoundError
from hudi_framework.merge.choose import find_strategy
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.testing import RecordMergerContract


class TestOrderMerger(RecordMergerContract):
    # The merger's own columns, so the laws are checked on the columns it actually merges.
    columns = {
        "order_updated_at": (pa.int64(), st.none() | st.sampled_from([1, 2, 3])),
        "order_item": (pa.string(), st.none() | st.sampled_from(["book", "pen"])),
        "order_amount": (pa.float64(), st.none() | st.sampled_from([0.0, 9.5])),
        "payment_updated_at": (pa.int64(), st.none() | st.sampled_from([1, 2])),
        "payment_method": (pa.string(), st.none() | st.sampled_from(["card", "cash"])),
        "payment_failure_reason": (pa.string(), st.none() | st.just("declined")),
    }

    @pytest.fixture
    def merger(self) -> RecordMerger:
        return OrderMerger()


class TestOrderMergerOnSuiteColumns(RecordMergerContract):
    @pytest.fixture
    def merger(self) -> RecordMerger:
        # The suite's own columns: ``note`` is a column group stamped by ``payload``.
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
