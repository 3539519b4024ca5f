"""Lock plugin ``storage``: a lease object under ``.hoodie/.locks/`` moved by conditional writes.

Works wherever the table's storage backend has atomic ``put_if_absent`` and ``compare_and_swap``
(S3 with ``If-None-Match`` / ``If-Match``; the local file system within one process, best effort
across processes). Apache Hudi's ``StorageBasedLockProvider`` (and ``FileSystemBasedLockProvider``)
resolve to it.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.lock import LockProviderFactory
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_lock_storage.lease_record import LEASE_KEY, LeaseRecord
from hudi_lock_storage.options import StorageLockOptions
from hudi_lock_storage.provider import StorageLockFactory, StorageLockProvider

__all__ = [
    "LEASE_KEY",
    "LeaseRecord",
    "StorageLockFactory",
    "StorageLockOptions",
    "StorageLockProvider",
    "hudi_lock_providers",
]


@hookimpl
def hudi_lock_providers() -> Sequence[ComponentSpec[LockProviderFactory]]:
    """Register ``storage``."""
    return [
        ComponentSpec(
            "storage",
            factory=StorageLockFactory,
            options_model=StorageLockOptions,
            description="A lease object in the table's storage (.hoodie/.locks/), conditional writes",
            aliases=(
                "StorageBasedLockProvider",
                "FileSystemBasedLockProvider",
                "org.apache.hudi.client.transaction.lock.StorageBasedLockProvider",
                "org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider",
            ),
        )
    ]
