"""The plugin manager a session's settings describe: the one way the kernel builds a manager."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from hudi_framework.errors import PluginLoadError
from hudi_framework.plugin.manager import HudiPluginManager, build_plugin_manager

if TYPE_CHECKING:
    from hudi_framework.config.component_sections import PluginSettings
    from hudi_framework.config.settings import HudiSettings

__all__ = ["manager_for_plugins", "plugin_manager_for"]


def plugin_manager_for(settings: HudiSettings) -> HudiPluginManager:
    """The plugin manager ``settings.plugins`` describes (entry points loaded or not, plugins disabled).

    Every process of a job builds its manager here from the same settings, so all of them see the
    same plugins.

    Raises:
        PluginLoadError: An entry point failed to import or did not validate.
        DuplicateComponentError: Two distributions install plugins of one name.
    """
    return manager_for_plugins(settings.plugins)


def manager_for_plugins(plugins: PluginSettings) -> HudiPluginManager:
    """The plugin manager of a ``plugins`` settings section alone (a table opened without settings)."""
    extra: dict[str, object] = {}
    for module in plugins.modules:
        try:
            extra[module] = importlib.import_module(module)
        except ImportError as e:
            raise PluginLoadError("plugins.modules", module, e) from e
    return build_plugin_manager(
        load_entry_points=plugins.load_entry_points, disable=plugins.disable, extra_plugins=extra
    )
