"""Fixtures: a registry holding only the built-in key generator plugin, and a builder by name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import hudi_keygen_builtin
from hudi_framework.contracts.keygen import KeyGenerator
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager

MakeKeyGen = Callable[..., KeyGenerator]


@pytest.fixture
def keygen_registry() -> ComponentRegistry:
    """A fresh manager without entry points, with the plugin registered explicitly."""
    pm = build_plugin_manager(load_entry_points=False, extra_plugins={"keygen-builtin": hudi_keygen_builtin})
    return ComponentRegistry.from_manager(pm)


@pytest.fixture
def make_keygen(keygen_registry: ComponentRegistry) -> MakeKeyGen:
    """``make_keygen("complex", record_key_fields=["a", "b"], ...)`` builds through the registry."""

    def _make(name: str, **options: Any) -> KeyGenerator:
        built = keygen_registry.build(ComponentKind.KEYGEN, name, options)
        assert isinstance(built, KeyGenerator)
        return built

    return _make
