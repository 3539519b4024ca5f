"""Choosing and opening the storage backend for a base URI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hudi_framework.contracts.storage import StorageBackend, StorageProvider
from hudi_framework.errors import UnknownComponentError
from hudi_framework.plugin.registry import ComponentKind, ComponentRegistry
from hudi_framework.storage.paths import uri_scheme


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
    scheme = uri_scheme(base_uri)
    if backend is None:
        for registered in registry.specs(ComponentKind.STORAGE):
            # Providers are cheap to build; their clients are created only when a backend opens.
            probe: StorageProvider = registered.spec.load_factory()(registered.spec.load_options_model()())
            if scheme in probe.schemes:
                backend = registered.spec.name
                break
        else:
            raise UnknownComponentError(
                "storage backend",
                f"<for scheme {scheme or 'local path'!r}>",
                registry.names(ComponentKind.STORAGE),
            )
    provider: StorageProvider = registry.build(
        ComponentKind.STORAGE, backend, options or {}, field_path="storage.options"
    )
    return provider.open(base_uri)
