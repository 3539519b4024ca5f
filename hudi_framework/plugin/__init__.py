"""Everything a plugin author imports: markers, ``ComponentSpec`` and the manager builder; and the
``Components`` facade through which the kernel gets every component as its contract type.

Public: the names of this package are the stable API (docs/api.md); its submodules are internal.
"""

from hudi_framework.plugin.components import Components, build_components, plugin_manager_for
from hudi_framework.plugin.lazy import lazy_exports
from hudi_framework.plugin.manager import HudiPluginManager, build_plugin_manager
from hudi_framework.plugin.markers import PROJECT, hookimpl, hookspec
from hudi_framework.plugin.registry import ComponentKind, ComponentRegistry, RegisteredComponent
from hudi_framework.plugin.spec import ComponentSpec, NoOptions

__all__ = [
    "PROJECT",
    "ComponentKind",
    "ComponentRegistry",
    "ComponentSpec",
    "Components",
    "HudiPluginManager",
    "NoOptions",
    "RegisteredComponent",
    "build_components",
    "build_plugin_manager",
    "hookimpl",
    "hookspec",
    "lazy_exports",
    "plugin_manager_for",
]
