"""The shipped contract suite run against the built-ins and against per-record mergers (the adapter)."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.plugin import ComponentKind, ComponentRegistry
from hudi_framework.testing import RecordMergerContract
from tests.unit.merge.reference import RecordCommitTimeMerger, RecordEventTimeMerger


class TestEventTimeOrdering(RecordMergerContract):
    @pytest.fixture
    def merger(self, registry: ComponentRegistry) -> RecordMerger:
        merger: RecordMerger = registry.build(ComponentKind.MERGER, "event-time-ordering")
        return merger


class TestCommitTimeOrdering(RecordMergerContract):
    @pytest.fixture
    def merger(self, registry: ComponentRegistry) -> RecordMerger:
        merger: RecordMerger = registry.build(ComponentKind.MERGER, "commit-time-ordering")
        return merger


class TestPerRecordEventTime(RecordMergerContract):
    @pytest.fixture
    def merger(self) -> RecordMerger:
        return RecordEventTimeMerger()


class TestPerRecordCommitTime(RecordMergerContract):
    @pytest.fixture
    def merger(self) -> RecordMerger:
        return RecordCommitTimeMerger()


def test_declared_columns_are_drawn_in_every_generated_row() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from hudi_framework.testing.merger_contract import version_tables

    fares = st.none() | st.sampled_from([1.5, 2.5])
    seen: set[object] = set()

    @settings(max_examples=30, deadline=None)
    @given(data=st.data())
    def draw(data: st.DataObject) -> None:
        (a, b), _ = version_tables(data, ["k0", "k1"], 2, "int64", {"fare": (pa.float64(), fares)})
        for table in (a, b):
            assert table.schema.field("fare").type == pa.float64()
            seen.update(table.column("fare").to_pylist())

    draw()
    assert seen == {None, 1.5, 2.5}
