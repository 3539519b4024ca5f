"""Lock plugin ``dynamodb``: a lease item per table in a DynamoDB table, moved by conditional writes.

Apache Hudi's ``DynamoDBBasedLockProvider`` (and ``DynamoDBBasedImplicitPartitionKeyLockProvider``)
resolve to it; options come from ``hoodie.write.lock.dynamodb.*``.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.lock import LockProviderFactory
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "DynamoDBLockFactory": "hudi_lock_dynamodb.provider",
    "DynamoDBLockOptions": "hudi_lock_dynamodb.options",
    "DynamoDBLockProvider": "hudi_lock_dynamodb.provider",
    "KEY_ATTRIBUTE": "hudi_lock_dynamodb.client",
    "build_dynamodb_client": "hudi_lock_dynamodb.client",
    "ensure_lock_table": "hudi_lock_dynamodb.client",
}
__all__ = [*_EXPORTS, "hudi_lock_providers"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_lock_providers() -> Sequence[ComponentSpec[LockProviderFactory]]:
    """Register ``dynamodb``."""
    return [
        ComponentSpec(
            "dynamodb",
            factory="hudi_lock_dynamodb.provider:DynamoDBLockFactory",
            options_model="hudi_lock_dynamodb.options:DynamoDBLockOptions",
            description="A lease item per table in DynamoDB (conditional writes, record version numbers)",
            aliases=(
                "DynamoDBBasedLockProvider",
                "DynamoDBBasedImplicitPartitionKeyLockProvider",
                "org.apache.hudi.aws.transaction.lock.DynamoDBBasedLockProvider",
                "org.apache.hudi.aws.transaction.lock.DynamoDBBasedImplicitPartitionKeyLockProvider",
            ),
        )
    ]
