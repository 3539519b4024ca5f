"""Everything a plugin author imports: markers, ``ComponentSpec``, the registry and the manager
builders (:func:`plugin_manager_for` is the one the kernel builds a session's manager with).

Public: the names of this package are the stable API (docs/api.md); its submodules are internal.

The names are imported on first use (PEP 562): Spark's planner processes import this package
fresh and pay only for what they use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from hudi_framework.plugin.lazy import lazy_exports

if TYPE_CHECKING:
    from hudi_framework.plugin.from_settings import plugin_manager_for
    from hudi_framework.plugin.manager import HudiPluginManager, build_plugin_manager
    from hudi_framework.plugin.markers import PROJECT, hookimpl, hookspec
    from hudi_framework.plugin.registry import ComponentKind, ComponentRegistry, RegisteredComponent
    from hudi_framework.plugin.spec import ComponentSpec, NoOptions

__all__ = [
    "PROJECT",
    "ComponentKind",
    "ComponentRegistry",
    "ComponentSpec",
    "HudiPluginManager",
    "NoOptions",
    "RegisteredComponent",
    "build_plugin_manager",
    "hookimpl",
    "hookspec",
    "lazy_exports",
    "plugin_manager_for",
]

#: Public name -> the module it is imported from on first access (the same as the imports above;
#: tests/unit/test_public_api.py checks that they agree).
_EXPORTS: Final[Mapping[str, str]] = {
    "ComponentKind": "hudi_framework.plugin.registry",
    "ComponentRegistry": "hudi_framework.plugin.registry",
    "ComponentSpec": "hudi_framework.plugin.spec",
    "HudiPluginManager": "hudi_framework.plugin.manager",
    "NoOptions": "hudi_framework.plugin.spec",
    "PROJECT": "hudi_framework.plugin.markers",
    "RegisteredComponent": "hudi_framework.plugin.registry",
    "build_plugin_manager": "hudi_framework.plugin.manager",
    "hookimpl": "hudi_framework.plugin.markers",
    "hookspec": "hudi_framework.plugin.markers",
    "plugin_manager_for": "hudi_framework.plugin.from_settings",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
