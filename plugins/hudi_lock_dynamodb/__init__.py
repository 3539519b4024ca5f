"""Lock plugin ``dynamodb``: a lease item per table in a DynamoDB table, moved by conditional writes.

Apache Hudi's ``DynamoDBBasedLockProvider`` (and ``DynamoDBBasedImplicitPartitionKeyLockProvider``)
resolve to it; options come from ``hoodie.write.lock.dynamodb.*``.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.lock import LockProviderFactory
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_lock_dynamodb.client import KEY_ATTRIBUTE, build_dynamodb_client, ensure_lock_table
from hudi_lock_dynamodb.options import DynamoDBLockOptions
from hudi_lock_dynamodb.provider import DynamoDBLockFactory, DynamoDBLockProvider

__all__ = [
    "KEY_ATTRIBUTE",
    "DynamoDBLockFactory",
    "DynamoDBLockOptions",
    "DynamoDBLockProvider",
    "build_dynamodb_client",
    "ensure_lock_table",
    "hudi_lock_providers",
]


@hookimpl
def hudi_lock_providers() -> Sequence[ComponentSpec[LockProviderFactory]]:
    """Register ``dynamodb``."""
    return [
        ComponentSpec(
            "dynamodb",
            factory=DynamoDBLockFactory,
            options_model=DynamoDBLockOptions,
            description="A lease item per table in DynamoDB (conditional writes, record version numbers)",
            aliases=(
                "DynamoDBBasedLockProvider",
                "DynamoDBBasedImplicitPartitionKeyLockProvider",
                "org.apache.hudi.aws.transaction.lock.DynamoDBBasedLockProvider",
                "org.apache.hudi.aws.transaction.lock.DynamoDBBasedImplicitPartitionKeyLockProvider",
            ),
        )
    ]
