"""The built-in merger plugin: entry point, names, aliases, choice from config, pickling."""

from __future__ import annotations

import importlib.metadata as md
import pickle
from uuid import UUID

import pytest

import hudi_merger_builtin
from hudi_framework.config.component_sections import MergerSettings
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.errors import ConfigError, PluginError, UnknownComponentError
from hudi_framework.merge import build_merger
from hudi_framework.plugin import ComponentKind, ComponentRegistry, ComponentSpec, build_plugin_manager, hookimpl
from hudi_framework.vocabulary import COMMIT_TIME_STRATEGY_ID, EVENT_TIME_STRATEGY_ID, RecordMergeMode
from hudi_merger_builtin import CommitTimeOrderingMerger, EventTimeOrderingMerger


def test_entry_point_is_declared() -> None:
    (entry_point,) = [ep for ep in md.entry_points(group="hudi_framework") if ep.name == "merger-builtin"]
    assert entry_point.value == "hudi_merger_builtin"
    assert entry_point.load() is hudi_merger_builtin


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("event-time-ordering", EventTimeOrderingMerger),
        ("EVENT_TIME_ORDERING", EventTimeOrderingMerger),
        (EVENT_TIME_STRATEGY_ID, EventTimeOrderingMerger),
        ("commit-time-ordering", CommitTimeOrderingMerger),
        ("COMMIT_TIME_ORDERING", CommitTimeOrderingMerger),
        (COMMIT_TIME_STRATEGY_ID, CommitTimeOrderingMerger),
    ],
)
def test_names_and_aliases(registry: ComponentRegistry, name: str, cls: type[RecordMerger]) -> None:
    merger = registry.build(ComponentKind.MERGER, name)
    assert type(merger) is cls
    assert merger.strategy_id in (EVENT_TIME_STRATEGY_ID, COMMIT_TIME_STRATEGY_ID)
    assert pickle.loads(pickle.dumps(merger)) == merger


def test_registry_lists_both(registry: ComponentRegistry) -> None:
    assert {"commit-time-ordering", "event-time-ordering"} <= set(registry.names(ComponentKind.MERGER))


@pytest.mark.parametrize(
    ("settings", "ordering", "cls"),
    [
        (MergerSettings(), ("ts",), EventTimeOrderingMerger),
        (MergerSettings(), (), CommitTimeOrderingMerger),
        (MergerSettings(mode=RecordMergeMode.COMMIT_TIME_ORDERING), ("ts",), CommitTimeOrderingMerger),
        (MergerSettings(strategy_id=UUID(EVENT_TIME_STRATEGY_ID)), (), EventTimeOrderingMerger),
        (MergerSettings(payload_class="org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"), ("ts",),
         CommitTimeOrderingMerger),
        (MergerSettings(name="event-time-ordering"), (), EventTimeOrderingMerger),
    ],
)  # fmt: skip
def test_build_merger_from_settings(
    registry: ComponentRegistry, settings: MergerSettings, ordering: tuple[str, ...], cls: type[RecordMerger]
) -> None:
    assert type(build_merger(registry, settings, ordering)) is cls


def test_build_merger_rejects_mismatches(registry: ComponentRegistry) -> None:
    with pytest.raises(ConfigError, match="implements strategy"):
        build_merger(
            registry, MergerSettings(name="commit-time-ordering", strategy_id=UUID(EVENT_TIME_STRATEGY_ID)), ()
        )
    with pytest.raises(UnknownComponentError):
        build_merger(registry, MergerSettings(name="acme-merge"), ())


def test_build_merger_rejects_components_that_are_not_mergers() -> None:
    class NotAMergerPlugin:
        @hookimpl
        def hudi_record_mergers(self) -> list[ComponentSpec[object]]:
            return [ComponentSpec("not-a-merger", factory=lambda _options: object())]

    pm = build_plugin_manager(load_entry_points=False, extra_plugins=[NotAMergerPlugin()])
    with pytest.raises(PluginError, match="not a RecordMerger"):
        build_merger(ComponentRegistry.from_manager(pm), MergerSettings(name="not-a-merger"), ())
