"""Lock plugin ``in-process``: writers (threads) of one process exclude each other per table.

Apache Hudi's ``InProcessLockProvider`` (by simple or full class name) resolves to it. It is safe only
when every writer of the table runs in this process; ``hudi_framework.lock.check_lock_safety``
rejects it for multi-process deployments under optimistic concurrency control.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.lock import LockProviderFactory
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_lock_inprocess.provider import (
    PROCESS_LOCKS,
    InProcessLockFactory,
    InProcessLockOptions,
    InProcessLockProvider,
    InProcessLockTable,
)

__all__ = [
    "PROCESS_LOCKS",
    "InProcessLockFactory",
    "InProcessLockOptions",
    "InProcessLockProvider",
    "InProcessLockTable",
    "hudi_lock_providers",
]


@hookimpl
def hudi_lock_providers() -> Sequence[ComponentSpec[LockProviderFactory]]:
    """Register ``in-process``."""
    return [
        ComponentSpec(
            "in-process",
            factory=InProcessLockFactory,
            options_model=InProcessLockOptions,
            description="A lock per table shared by the writers of one process (no lease)",
            aliases=("InProcessLockProvider", "org.apache.hudi.client.transaction.lock.InProcessLockProvider"),
        )
    ]
