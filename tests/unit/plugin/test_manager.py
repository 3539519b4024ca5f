"""Plugin discovery through entry points: found, unknown, duplicate and broken plugins."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

from hudi_framework.errors import (
    DuplicateComponentError,
    PluginConfigError,
    PluginLoadError,
    UnknownComponentError,
)
from hudi_framework.plugin import (
    PROJECT,
    ComponentKind,
    ComponentRegistry,
    ComponentSpec,
    build_plugin_manager,
    hookimpl,
)

PLUGIN_SOURCE = """
from pydantic import BaseModel, ConfigDict
from hudi_framework.contracts.service import TableService
from hudi_framework.plugin import ComponentSpec, hookimpl


class Options(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    retention: int = 3


class KeepLatest(TableService):
    def __init__(self, options):
        self.options = options

    def schedule(self, table):
        return None

    def execute(self, table, instant):
        pass


@hookimpl
def hudi_table_services():
    return [ComponentSpec("{component}", factory=KeepLatest, options_model=Options)]
"""


def install_fake_distribution(
    root: Path, dist: str, module: str, source: str, *, entry_name: str | None = None, group: str = PROJECT
) -> None:
    """Lay out an installed distribution (dist-info + module) under ``root``, as pip would."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{entry_name or dist} = {module}\n")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_builtin_plugins_are_entry_points(registry: ComponentRegistry) -> None:
    assert {"local", "s3"} <= set(registry.names(ComponentKind.STORAGE))
    local = registry.get(ComponentKind.STORAGE, "local")
    assert "hudi-framework" in local.provider


def test_test_only_plugin_installed_by_entry_point_is_found(site: Path) -> None:
    install_fake_distribution(site, "acme-services", "acme_services_ep", PLUGIN_SOURCE.format(component="acme-keep"))
    pm = build_plugin_manager()
    assert pm.distribution_of("acme-services") == "acme-services"
    registry = ComponentRegistry.from_manager(pm)
    service = registry.build(ComponentKind.SERVICE, "acme-keep", {"retention": 5})
    assert service.options.retention == 5


def test_plugin_options_are_validated_by_the_plugin_model(site: Path) -> None:
    install_fake_distribution(site, "acme-services", "acme_services_opts", PLUGIN_SOURCE.format(component="acme-keep"))
    registry = ComponentRegistry.from_manager(build_plugin_manager())
    with pytest.raises(PluginConfigError) as err:
        registry.build(ComponentKind.SERVICE, "acme-keep", {"retention": "many"}, field_path="services.clean.options")
    assert err.value.component == "acme-keep"
    assert "services.clean.options" in str(err.value)
    assert "retention" in str(err.value)


def test_unknown_component_lists_installed_ones(registry: ComponentRegistry) -> None:
    with pytest.raises(UnknownComponentError) as err:
        registry.get(ComponentKind.STORAGE, "gcs")
    message = str(err.value)
    assert "'gcs'" in message
    assert "local" in message
    assert "s3" in message
    assert isinstance(err.value, LookupError)


def test_duplicate_component_names_both_distributions(site: Path) -> None:
    install_fake_distribution(site, "acme-one", "acme_one_mod", PLUGIN_SOURCE.format(component="keep"))
    install_fake_distribution(site, "acme-two", "acme_two_mod", PLUGIN_SOURCE.format(component="keep"))
    pm = build_plugin_manager()
    with pytest.raises(DuplicateComponentError) as err:
        ComponentRegistry.from_manager(pm)
    assert "acme-one" in str(err.value)
    assert "acme-two" in str(err.value)


def test_broken_plugin_names_distribution_and_entry_point(site: Path) -> None:
    install_fake_distribution(site, "acme-broken", "acme_broken_mod", "import does_not_exist_anywhere\n")
    with pytest.raises(PluginLoadError) as err:
        build_plugin_manager()
    assert err.value.dist == "acme-broken"
    assert "acme_broken_mod" in err.value.entry_point
    assert "does_not_exist_anywhere" in str(err.value)


def test_disabled_broken_plugin_is_not_loaded(site: Path) -> None:
    install_fake_distribution(site, "acme-broken", "acme_broken_mod2", "raise RuntimeError('boom')\n")
    pm = build_plugin_manager(disable=["acme-broken"])
    assert not pm.has_plugin("acme-broken")


def test_misspelled_hook_fails_at_startup() -> None:
    class Typo:
        @hookimpl
        def hudi_storage_backendz(self) -> list[object]:
            return []

    with pytest.raises(Exception, match="hudi_storage_backendz"):
        build_plugin_manager(load_entry_points=False, extra_plugins=[Typo()])


def test_each_manager_is_fresh() -> None:
    class Extra:
        @hookimpl
        def hudi_lock_providers(self) -> list[ComponentSpec[object]]:
            return [ComponentSpec("fake-lock", factory=lambda _o: object())]

    with_extra = ComponentRegistry.from_manager(build_plugin_manager(extra_plugins=[Extra()]))
    without = ComponentRegistry.from_manager(build_plugin_manager())
    assert "fake-lock" in with_extra.names(ComponentKind.LOCK)
    assert "fake-lock" not in without.names(ComponentKind.LOCK)


def test_explicit_plugins_without_entry_points() -> None:
    pm = build_plugin_manager(load_entry_points=False)
    assert ComponentRegistry.from_manager(pm).names(ComponentKind.STORAGE) == []


def test_entry_point_discovery_matches_importlib(site: Path) -> None:
    import importlib.metadata as md

    from hudi_framework.plugin.manager import _group_entry_points

    install_fake_distribution(site, "acme-one", "acme_one_mod", PLUGIN_SOURCE.format(component="one"))
    # The same distribution again, later on sys.path: importlib takes the first only.
    shadowed = site / "shadow"
    shadowed.mkdir()
    install_fake_distribution(shadowed, "acme-one", "acme_shadow_mod", PLUGIN_SOURCE.format(component="two"))
    sys.path.append(str(shadowed))
    try:
        for group in (PROJECT, "console_scripts", "no-such-group"):
            ours = [(e.name, e.value, e.dist.name if e.dist else None) for e in _group_entry_points(group)]
            theirs = [(e.name, e.value, e.dist.name if e.dist else None) for e in md.entry_points(group=group)]
            assert ours == theirs
        assert ("acme-one", "acme_one_mod") in [(e.name, e.value) for e in _group_entry_points(PROJECT)]
    finally:
        sys.path.remove(str(shadowed))
