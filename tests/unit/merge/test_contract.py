"""The shipped contract suite run against the built-ins and against per-record mergers (the adapter)."""

from __future__ import annotations

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
