"""The ``Components`` facade: plugins from the settings, every component as its contract type."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework import Components, build_components
from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.index import RecordIndex
from hudi_framework.contracts.lock import LockProviderFactory
from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.contracts.service import TableService
from hudi_framework.contracts.storage import StorageBackend, StorageProvider
from hudi_framework.errors import PluginError, UnknownComponentError
from hudi_framework.plugin import ComponentKind, ComponentSpec, build_plugin_manager, hookimpl, plugin_manager_for
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config


def test_the_manager_is_built_from_the_plugins_section() -> None:
    settings = HudiSettings(plugins={"disable": ["index-bloom"]})
    manager = plugin_manager_for(settings)
    assert manager.is_blocked("index-bloom")
    assert "bloom" not in Components(manager, settings).registry.names(ComponentKind.INDEX)
    assert "bloom" in Components.from_settings(HudiSettings()).registry.names(ComponentKind.INDEX)
    bare = plugin_manager_for(HudiSettings(plugins={"load_entry_points": False}))
    assert Components(bare, HudiSettings()).registry.names(ComponentKind.STORAGE) == []


def test_every_component_comes_as_its_contract_type(tmp_path: Path) -> None:
    settings = HudiSettings(table={"record_key_fields": ["id"]}, index={"type": "bloom"})
    components = Components.from_settings(settings)
    config = new_table_config("t", record_key_fields=["id"])
    assert isinstance(components.storage_provider("local"), StorageProvider)
    storage = components.storage(str(tmp_path))
    assert isinstance(storage, StorageBackend)
    assert type(components.index()).__name__ == "BloomIndex"
    assert isinstance(components.index(), RecordIndex)
    assert isinstance(components.record_merger(config), RecordMerger)
    assert isinstance(components.table_merger(config), RecordMerger)
    assert components.key_generator(config).record_key_fields == ("id",)
    assert isinstance(components.lock_provider(), LockProviderFactory)
    assert isinstance(components.service("clean", settings.services.clean.service_options()), TableService)
    assert {"clean", "compaction"} <= set(components.service_names())
    assert components.storage_backend_name("s3a://bucket/t") == "s3"


def test_kinds_are_listed_and_found_by_name() -> None:
    assert [k.name for k in ComponentKind.all()] == [
        "STORAGE",
        "INDEX",
        "MERGER",
        "LOCK",
        "SERVICE",
        "KEYGEN",
        "SOURCE",
        "TRANSFORMER",
    ]
    assert ComponentKind.named("merger") is ComponentKind.MERGER
    assert ComponentKind.MERGER.contract is RecordMerger
    with pytest.raises(KeyError):
        ComponentKind.named("CATALOG")


class _NotAnIndex:
    def __init__(self, options: object) -> None:
        self.options = options


class _BadIndexPlugin:
    @hookimpl
    def hudi_indexes(self) -> list[ComponentSpec[RecordIndex]]:
        return [ComponentSpec("not-an-index", factory=_NotAnIndex)]  # type: ignore[arg-type]


def test_a_component_that_breaks_its_contract_is_a_plugin_error() -> None:
    settings = HudiSettings(index={"type": "not-an-index"})
    manager = build_plugin_manager(load_entry_points=False, extra_plugins=[_BadIndexPlugin()])
    with pytest.raises(PluginError, match="index component 'not-an-index' built a _NotAnIndex, not a RecordIndex"):
        build_components(settings, manager).index()


def test_with_settings_keeps_the_manager_unless_the_plugins_differ() -> None:
    base = Components.from_settings(HudiSettings())
    same = base.with_settings(HudiSettings(index={"type": "bloom"}))
    assert same.manager is base.manager
    assert same.settings.index.type == "bloom"
    other = base.with_settings(HudiSettings(plugins={"disable": ["index-bloom"]}))
    assert other.manager is not base.manager
    assert "bloom" not in other.registry.names(ComponentKind.INDEX)
    # A manager handed in (maybe with plugins registered in code) is the caller's choice: kept.
    handed = build_components(HudiSettings(), build_plugin_manager())
    assert handed.plugins is None
    assert handed.with_settings(HudiSettings(plugins={"disable": ["index-bloom"]})).manager is handed.manager


def test_a_table_opened_without_a_manager_uses_its_settings_plugins(tmp_path: Path) -> None:
    HudiTable.create(str(tmp_path), new_table_config("t", record_key_fields=["id"]))
    settings = HudiSettings(plugins={"disable": ["index-bloom"]})
    table = HudiTable.open(str(tmp_path), settings=settings)
    assert table.components.plugins == settings.plugins
    assert "bloom" not in table.registry.names(ComponentKind.INDEX)
    default = HudiTable.open(str(tmp_path))
    assert default.components.plugins == HudiSettings().plugins
    assert "bloom" in default.registry.names(ComponentKind.INDEX)


def test_the_process_local_lock_is_declared_by_its_factory() -> None:
    assert Components.from_settings(HudiSettings(lock={"provider": "in-process"})).lock_is_process_local()
    assert not Components.from_settings(HudiSettings(lock={"provider": "storage"})).lock_is_process_local()
    hudi_class = HudiSettings.from_hoodie_options(
        {"hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.InProcessLockProvider"}, env=False
    )
    assert Components.from_settings(hudi_class).lock_is_process_local()
    with pytest.raises(UnknownComponentError):
        Components.from_settings(HudiSettings(lock={"provider": "zookeeper"})).lock_is_process_local()


def test_the_storage_section_is_the_one_the_backend_declares() -> None:
    settings = HudiSettings(storage={"s3": {"region": "eu-west-1"}, "options": {"max_attempts": 3}})
    components = Components.from_settings(settings)
    spec = components.storage_spec("s3://bucket/t")
    assert (spec.backend, dict(spec.options)) == (None, {"max_attempts": 3, "region": "eu-west-1"})
    assert components.storage_settings_section("s3://bucket/t", spec) == "s3"
    local = components.storage_spec("/data/t")
    assert components.storage_settings_section("/data/t", local) is None
    # The local backend declares no section: storage.s3 does not reach it.
    assert dict(local.options) == {"max_attempts": 3}
