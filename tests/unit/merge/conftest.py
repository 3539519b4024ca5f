"""Fixtures for merger tests: the built-ins, resolved by name through a registry."""

from __future__ import annotations

import pytest

import hudi_merger_builtin
from hudi_framework.contracts.merger import MergeContext, RecordMerger
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager


@pytest.fixture
def event_time(registry: ComponentRegistry) -> RecordMerger:
    merger: RecordMerger = registry.build(ComponentKind.MERGER, "event-time-ordering")
    return merger


@pytest.fixture
def commit_time(registry: ComponentRegistry) -> RecordMerger:
    merger: RecordMerger = registry.build(ComponentKind.MERGER, "commit-time-ordering")
    return merger


@pytest.fixture
def ctx() -> MergeContext:
    return MergeContext(ordering_fields=("ts",))


@pytest.fixture
def registry() -> ComponentRegistry:
    """Only the built-in merger plugin, registered explicitly (other entry points are not loaded)."""
    pm = build_plugin_manager(load_entry_points=False, extra_plugins={"merger-builtin": hudi_merger_builtin})
    return ComponentRegistry.from_manager(pm)
