"""Lock plugin ``storage``: a lease object under ``.hoodie/.locks/`` moved by conditional writes.

Works wherever the table's storage backend has atomic ``put_if_absent`` and ``compare_and_swap``
(S3 with ``If-None-Match`` / ``If-Match``; the local file system within one process, best effort
across processes). Apache Hudi's ``StorageBasedLockProvider`` resolves to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.lock import LockProviderFactory
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "LEASE_KEY": "hudi_lock_storage.lease_record",
    "LeaseRecord": "hudi_lock_storage.lease_record",
    "StorageLockFactory": "hudi_lock_storage.provider",
    "StorageLockOptions": "hudi_lock_storage.options",
    "StorageLockProvider": "hudi_lock_storage.provider",
}
__all__ = [*_EXPORTS, "hudi_lock_providers"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_lock_providers() -> Sequence[ComponentSpec[LockProviderFactory]]:
    """Register ``storage``."""
    return [
        ComponentSpec(
            "storage",
            factory="hudi_lock_storage.provider:StorageLockFactory",
            options_model="hudi_lock_storage.options:StorageLockOptions",
            description="A lease object in the table's storage (.hoodie/.locks/), conditional writes",
            aliases=(
                "StorageBasedLockProvider",
                "org.apache.hudi.client.transaction.lock.StorageBasedLockProvider",
            ),
        )
    ]
