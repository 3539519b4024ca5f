"""Lock plugin ``filesystem``: Apache Hudi's ``FileSystemBasedLockProvider`` protocol.

A ``lock`` file in the table's ``.hoodie`` folder (or ``hoodie.write.lock.filesystem.path``), created
only if absent and deleted on release; Apache Hudi writers configured with
``org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider`` take the same file, so both
engines exclude each other on one table.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.lock import LockProviderFactory
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py).
_EXPORTS = {
    "LOCK_FILE_NAME": "hudi_lock_filesystem.provider",
    "FileSystemLockFactory": "hudi_lock_filesystem.provider",
    "FileSystemLockOptions": "hudi_lock_filesystem.options",
    "FileSystemLockProvider": "hudi_lock_filesystem.provider",
}
__all__ = [*_EXPORTS, "hudi_lock_providers"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_lock_providers() -> Sequence[ComponentSpec[LockProviderFactory]]:
    """Register ``filesystem``."""
    return [
        ComponentSpec(
            "filesystem",
            factory="hudi_lock_filesystem.provider:FileSystemLockFactory",
            options_model="hudi_lock_filesystem.options:FileSystemLockOptions",
            description="A lock file created if absent in .hoodie/ (Apache Hudi's FileSystemBasedLockProvider)",
            aliases=(
                "FileSystemBasedLockProvider",
                "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
            ),
        )
    ]
