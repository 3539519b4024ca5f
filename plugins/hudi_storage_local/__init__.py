"""Storage plugin ``local``: plain paths and ``file://`` URIs on the local file system."""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.storage import StorageProvider
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_storage_local.backend import LocalStorageBackend, LocalStorageOptions, LocalStorageProvider

__all__ = ["LocalStorageBackend", "LocalStorageOptions", "LocalStorageProvider", "hudi_storage_backends"]


@hookimpl
def hudi_storage_backends() -> Sequence[ComponentSpec[StorageProvider]]:
    """Register the ``local`` backend for plain paths and ``file://``."""
    return [
        ComponentSpec(
            "local",
            factory=LocalStorageProvider,
            options_model=LocalStorageOptions,
            description="Local file system (plain paths and file:// URIs)",
        )
    ]
