"""Building a fresh plugin manager: hook specs, entry-point plugins, explicit plugins.

There is no module-level manager. Every table session (and every test) builds its own with
:func:`build_plugin_manager` and passes it down.
"""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pluggy

from hudi_framework.errors import DuplicateComponentError, PluginLoadError
from hudi_framework.plugin import hookspecs
from hudi_framework.plugin.markers import PROJECT


class HudiPluginManager(pluggy.PluginManager):
    """A pluggy manager that also remembers which distribution each plugin came from."""

    def __init__(self) -> None:
        super().__init__(PROJECT)
        self._dists: dict[str, str | md.Distribution] = {}
        # Reading a distribution's name parses its METADATA file; do it once per distribution and
        # only when a name is asked for (messages, registry provider labels), not per entry point.
        self._dist_names: dict[md.Distribution, str] = {}

    def record_distribution(self, plugin_name: str, dist: str | md.Distribution) -> None:
        """Remember that ``plugin_name`` was installed by distribution ``dist`` (a name or the distribution)."""
        self._dists[plugin_name] = dist

    def distribution_of(self, plugin_name: str) -> str | None:
        """The distribution that installed ``plugin_name`` (None for explicitly registered ones)."""
        dist = self._dists.get(plugin_name)
        if dist is None or isinstance(dist, str):
            return dist
        return self.distribution_name(dist)

    def distribution_name(self, dist: md.Distribution | None) -> str:
        """The name of ``dist``, read once per distribution."""
        if dist is None:
            return "<unknown distribution>"
        name = self._dist_names.get(dist)
        if name is None:
            name = self._dist_names[dist] = dist.name
        return name

    def describe(self, plugin: object) -> str:
        """A human label: ``plugin 'storage-s3' (distribution hudi-framework)``."""
        name = self.get_name(plugin) or repr(plugin)
        dist = self.distribution_of(name)
        return f"plugin {name!r}" + (f" (distribution {dist})" if dist else "")


def _group_entry_points(group: str) -> Iterator[md.EntryPoint]:
    """``importlib.metadata.entry_points(group=group)``, parsing only the files that name ``group``.

    The standard call parses every installed distribution's ``entry_points.txt`` (~150 in a
    typical environment, a few milliseconds on every table open); a file that does not contain the
    group's name cannot declare it. The first distribution of a name on ``sys.path`` wins, as there.
    """
    seen: set[str] = set()
    for dist in md.distributions():
        name = getattr(dist, "_normalized_name", None) or dist.metadata["Name"]
        if name in seen:
            continue
        seen.add(name)
        text = dist.read_text("entry_points.txt")
        if text and group in text:
            yield from dist.entry_points.select(group=group)


def _entry_points(group: str) -> list[md.EntryPoint]:
    # A distribution that is on sys.path twice (editable install plus a build dir) lists its entry
    # points twice. One (name, value) pair names one import target, so keep the first; telling the
    # distributions apart would parse every distribution's METADATA on every manager build.
    seen: set[tuple[str, str]] = set()
    unique: list[md.EntryPoint] = []
    for ep in _group_entry_points(group):
        key = (ep.name, ep.value)
        if key not in seen:
            seen.add(key)
            unique.append(ep)
    return unique


def _load_entry_points(pm: HudiPluginManager, group: str) -> None:
    for ep in _entry_points(group):
        if pm.is_blocked(ep.name):
            continue
        if pm.has_plugin(ep.name):
            other = pm.distribution_of(ep.name) or "an explicitly registered plugin"
            raise DuplicateComponentError("plugin", ep.name, other, f"distribution {pm.distribution_name(ep.dist)}")
        try:
            plugin = ep.load()
        except Exception as e:
            raise PluginLoadError(pm.distribution_name(ep.dist), f"{ep.name} = {ep.value}", e) from e
        try:
            pm.register(plugin, name=ep.name)
        except (pluggy.PluginValidationError, ValueError) as e:
            raise PluginLoadError(pm.distribution_name(ep.dist), f"{ep.name} = {ep.value}", e) from e
        pm.record_distribution(ep.name, ep.dist if ep.dist is not None else "<unknown distribution>")


def build_plugin_manager(
    *,
    load_entry_points: bool = True,
    disable: Iterable[str] = (),
    extra_plugins: Iterable[object] | Mapping[str, object] = (),
    group: str = PROJECT,
) -> HudiPluginManager:
    """Build a fresh, validated plugin manager.

    Args:
        load_entry_points: Load every plugin installed under the ``hudi_framework`` entry-point
            group (the built-ins are installed this way too).
        disable: Plugin (entry-point) names to block.
        extra_plugins: Plugin objects to register explicitly, for tests and embedders; a mapping
            gives them names.
        group: The entry-point group (tests may use a private one).

    Returns:
        A manager on which every registered hook implementation matches a spec.

    Raises:
        PluginLoadError: An entry point failed to import or did not validate.
        DuplicateComponentError: Two distributions install plugins of one name.
    """
    pm = HudiPluginManager()
    pm.add_hookspecs(hookspecs)
    for blocked in disable:
        pm.set_blocked(blocked)
    if load_entry_points:
        _load_entry_points(pm, group)
    items: Iterable[tuple[str | None, Any]] = (
        extra_plugins.items() if isinstance(extra_plugins, Mapping) else ((None, p) for p in extra_plugins)
    )
    for name, plugin in items:
        pm.register(plugin, name=name)
    # A misspelled hook name in any plugin is an error now, not a silent no-op later.
    pm.check_pending()
    return pm
