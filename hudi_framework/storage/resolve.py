"""Choosing and opening the storage backend for a base URI, and remembering how it was opened."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hudi_framework.config.component_sections import StorageSettings
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.contracts.storage_paths import uri_scheme
from hudi_framework.errors import UnknownComponentError
from hudi_framework.plugin.registry import ComponentKind, ComponentRegistry


def open_storage(
    registry: ComponentRegistry,
    base_uri: str,
    *,
    backend: str | None = None,
    options: Mapping[str, Any] | None = None,
) -> StorageBackend:
    """Open the backend for ``base_uri``.

    Args:
        registry: Installed components.
        base_uri: Table base path or URI.
        backend: A storage component name; when None the backend is the one serving the URI scheme.
        options: The backend's own options (validated by its options model).

    Raises:
        UnknownComponentError: No installed backend has that name or serves that scheme.
        PluginConfigError: The options fail the backend's options model.
    """
    provider = registry.build(
        ComponentKind.STORAGE, backend or backend_for(registry, base_uri), options or {}, field_path="storage.options"
    )
    return provider.open(base_uri)


def backend_for(registry: ComponentRegistry, base_uri: str) -> str:
    """The name of the installed storage backend serving ``base_uri``'s scheme.

    Raises:
        UnknownComponentError: No installed backend serves the scheme.
    """
    scheme = uri_scheme(base_uri)
    for registered in registry.specs(ComponentKind.STORAGE):
        # Providers are cheap to build; their clients are created only when a backend opens.
        probe = registered.spec.load_factory()(registered.spec.load_options_model()())
        if scheme in probe.schemes:
            return registered.spec.name
    raise UnknownComponentError(
        "storage backend", f"<for scheme {scheme or 'local path'!r}>", registry.names(ComponentKind.STORAGE)
    )


def settings_section(registry: ComponentRegistry, backend: str | None, base_uri: str) -> str | None:
    """The storage settings section (``s3``) the backend of ``base_uri`` declares in its spec, if any.

    Args:
        registry: Installed components.
        backend: A storage component name; None for the one serving the URI scheme.
        base_uri: Table base path or URI.

    Returns:
        The section, or None when the backend declares none or is not installed (opening the
        storage reports that, naming the installed backends).
    """
    try:
        return registry.get(ComponentKind.STORAGE, backend or backend_for(registry, base_uri)).spec.settings_section
    except UnknownComponentError:
        return None


@dataclass(frozen=True)
class StorageSpec:
    """How a table's storage is opened: a backend name (None: by the URI scheme) and its options.

    Picklable, so a Spark task (or any other process) opens the very storage the driver opened.
    ``options`` may hold credentials (as :class:`~pydantic.SecretStr` when they come from settings),
    so it is left out of ``repr``.

    Attributes:
        backend: A storage component name, or None to pick the backend serving the URI scheme.
        options: The backend's own options.
    """

    backend: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, storage: StorageSettings, registry: ComponentRegistry, base_uri: str) -> StorageSpec:
        """The spec ``storage`` settings give for the table at ``base_uri``.

        The options are ``storage.options`` plus the set fields of the settings section the chosen
        backend's spec declares (``storage.s3`` for the ``s3`` backend).
        """
        return cls(storage.backend, storage.backend_options(settings_section(registry, storage.backend, base_uri)))

    def resolved(self, registry: ComponentRegistry, base_uri: str) -> StorageSpec:
        """This spec with the backend named (the one serving ``base_uri``'s scheme when unnamed)."""
        if self.backend is not None:
            return self
        return StorageSpec(backend_for(registry, base_uri), self.options)

    def open(self, registry: ComponentRegistry, base_uri: str) -> StorageBackend:
        """Open the backend for ``base_uri`` (see :func:`open_storage`)."""
        return open_storage(registry, base_uri, backend=self.backend, options=self.options)
