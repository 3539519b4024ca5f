"""Building a job's source plugin from its settings, in the driver and again in every executor.

A source travels to executors as its :class:`SourceRef` (the settings, whose ``streamer`` section
names the source and its options, and whose ``plugins`` and ``storage`` sections say how every
process loads plugins and opens storage); each process rebuilds the source and its
:class:`SettingsSourceContext` from it, so no plugin object, client or connection is ever pickled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hudi_framework.errors import StreamerError, UnknownComponentError
from hudi_framework.plugin.registry import ComponentKind
from hudi_framework.runtime.components import Components
from hudi_framework.storage.resolve import StorageSpec, backend_for, settings_section

if TYPE_CHECKING:
    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.contracts.source import Source
    from hudi_framework.contracts.storage import StorageBackend

__all__ = ["SettingsSourceContext", "SourceRef", "resolve_source_name"]


def resolve_source_name(components: Components, name: str) -> str:
    """The registered name of the source ``name`` means: a name, an alias, or a Java class name
    whose last part is one (``org.apache.hudi.utilities.sources.JsonDFSSource`` -> ``JsonDFSSource``).

    Raises:
        UnknownComponentError: No installed source has that name, listing the installed ones.
    """
    registry = components.registry
    try:
        return registry.get(ComponentKind.SOURCE, name).spec.name
    except UnknownComponentError:
        short = name.rsplit(".", 1)[-1]
        if short == name:
            raise
        try:
            return registry.get(ComponentKind.SOURCE, short).spec.name
        except UnknownComponentError:
            raise UnknownComponentError(
                ComponentKind.SOURCE.label, name, registry.names(ComponentKind.SOURCE)
            ) from None


class SettingsSourceContext:
    """The :class:`~hudi_framework.contracts.source.SourceContext` of a job: storage opened with the
    job's storage settings by the plugins its settings load (built once per process, on first use)."""

    def __init__(self, settings: HudiSettings, components: Components | None = None) -> None:
        """Serve storage as ``settings`` describe; ``components`` when already built from them."""
        self._settings = settings
        self._components = components

    @property
    def components(self) -> Components:
        """The components of the job's settings."""
        if self._components is None:
            self._components = Components.from_settings(self._settings)
        return self._components

    def storage(self, uri: str) -> StorageBackend:
        """A backend rooted at ``uri``, opened with the job's storage settings.

        ``storage.options`` are the table's backend's options: a URI another backend serves (a local
        landing directory of a table on S3) gets only the settings section its backend declares.
        """
        components = self.components
        storage = self._settings.storage
        table_uri = self._settings.table.base_path
        if storage.backend is None and table_uri and storage.options:
            registry = components.registry
            if backend_for(registry, uri) != backend_for(registry, table_uri):
                section = settings_section(registry, None, uri)
                own = storage.model_copy(update={"options": {}}).backend_options(section)
                return components.storage(uri, StorageSpec(None, own))
        return components.storage(uri, components.storage_spec(uri))


@dataclass(frozen=True)
class SourceRef:
    """How any process builds the job's source: pickled into executor tasks.

    Attributes:
        settings: The job's settings (``streamer.source`` and ``streamer.source_options`` name it).
    """

    settings: HudiSettings
    _built: dict[str, object] = field(default_factory=dict, compare=False, repr=False)

    def __getstate__(self) -> dict[str, object]:
        return {"settings": self.settings}

    def __setstate__(self, state: dict[str, object]) -> None:
        object.__setattr__(self, "settings", state["settings"])
        object.__setattr__(self, "_built", {})

    @property
    def name(self) -> str:
        """The configured source name (as given)."""
        name = self.settings.streamer.source
        if name is None:
            raise StreamerError("no source: set streamer.source (--source-class)")
        return name

    def context(self) -> SettingsSourceContext:
        """This process's context (built once)."""
        found = self._built.get("context")
        if not isinstance(found, SettingsSourceContext):
            found = self._built["context"] = SettingsSourceContext(self.settings)
        return found

    def source(self) -> Source:
        """This process's source (built once).

        Raises:
            StreamerError: No source is configured.
            UnknownComponentError: The source is not installed.
            PluginConfigError: Its options fail its options model.
        """
        from hudi_framework.contracts.source import Source

        found = self._built.get("source")
        if not isinstance(found, Source):
            components = self.context().components
            name = resolve_source_name(components, self.name)
            options = self.settings.streamer.source_options
            found = components.registry.build(ComponentKind.SOURCE, name, options, field_path="streamer.source_options")
            self._built["source"] = found
        return found
