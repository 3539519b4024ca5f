"""``plugins.modules``: importable modules registered as plugins in every process that builds a manager."""

from __future__ import annotations

import pytest

from hudi_framework import Components, HudiSettings
from hudi_framework.errors import PluginLoadError
from hudi_framework.plugin.registry import ComponentKind


def test_a_listed_module_registers_its_components() -> None:
    settings = HudiSettings(plugins={"modules": ["tests.unit.streamer.landing_source"]})
    registry = Components.from_settings(settings).registry
    assert "test-landing" in registry.names(ComponentKind.SOURCE)
    assert "test-landing" not in Components.from_settings(HudiSettings()).registry.names(ComponentKind.SOURCE)


def test_a_module_that_does_not_import_fails_naming_it() -> None:
    settings = HudiSettings(plugins={"modules": ["tests.no_such_plugin_module"]})
    with pytest.raises(PluginLoadError, match=r"tests\.no_such_plugin_module"):
        Components.from_settings(settings)
