"""Everything a plugin author imports: markers, ``ComponentSpec``, the registry and the manager
builders (:func:`plugin_manager_for` is the one the kernel builds a session's manager with).

Public: the names of this package are the stable API (docs/api.md); its submodules are internal.
"""

from hudi_framework.plugin.from_settings import plugin_manager_for
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
    "HudiPluginManager",
    "NoOptions",
    "RegisteredComponent",
    "build_plugin_manager",
    "hookimpl",
    "hookspec",
    "lazy_exports",
    "plugin_manager_for",
]
