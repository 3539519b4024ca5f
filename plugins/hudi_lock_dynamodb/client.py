"""Building the DynamoDB client and making sure the lock table exists."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from botocore.exceptions import ClientError, WaiterError

from hudi_framework.errors import LockProviderError
from hudi_lock_dynamodb.options import DynamoDBLockOptions

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

#: Hash key attribute of the lock table (the item's ``key`` holds the partition key value).
KEY_ATTRIBUTE: Final = "key"
_NAME: Final = "dynamodb"


def build_dynamodb_client(options: DynamoDBLockOptions) -> DynamoDBClient:
    """A client from a fresh boto3 session (never boto3's mutable default session)."""
    # boto3 and botocore.config cost ~0.2 s CPU to import; only tables that use this lock pay it,
    # not every plugin-manager build (this module is imported when the entry point loads).
    import boto3.session
    from botocore.config import Config

    session = boto3.session.Session(region_name=options.region)
    config = Config(retries={"mode": "standard", "total_max_attempts": 5}, connect_timeout=10, read_timeout=30)
    return session.client("dynamodb", endpoint_url=options.endpoint_url, config=config)


def ensure_lock_table(client: DynamoDBClient, options: DynamoDBLockOptions) -> None:
    """Create the lock table (hash key ``key``, string) when missing and allowed, and wait until active.

    Raises:
        LockProviderError: The table is missing and may not be created, or did not become active.
    """
    try:
        status = client.describe_table(TableName=options.table)["Table"].get("TableStatus")
    except ClientError as e:
        if e.response.get("Error", {}).get("Code") != "ResourceNotFoundException":
            raise
        if not options.create_table:
            raise LockProviderError(
                _NAME, f"lock table {options.table!r} does not exist and create_table is false"
            ) from None
        _create(client, options)
        status = "CREATING"
    if status != "ACTIVE":
        delay = 1
        try:
            client.get_waiter("table_exists").wait(
                TableName=options.table,
                WaiterConfig={"Delay": delay, "MaxAttempts": max(1, options.table_creation_timeout // 1000 // delay)},
            )
        except WaiterError as e:
            raise LockProviderError(_NAME, f"lock table {options.table!r} did not become active: {e}") from e


def _create(client: DynamoDBClient, options: DynamoDBLockOptions) -> None:
    try:
        if options.billing_mode == "PROVISIONED":
            client.create_table(
                TableName=options.table,
                KeySchema=[{"AttributeName": KEY_ATTRIBUTE, "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": KEY_ATTRIBUTE, "AttributeType": "S"}],
                BillingMode="PROVISIONED",
                ProvisionedThroughput={
                    "ReadCapacityUnits": options.read_capacity,
                    "WriteCapacityUnits": options.write_capacity,
                },
            )
        else:
            client.create_table(
                TableName=options.table,
                KeySchema=[{"AttributeName": KEY_ATTRIBUTE, "KeyType": "HASH"}],
                AttributeDefinitions=[{"AttributeName": KEY_ATTRIBUTE, "AttributeType": "S"}],
                BillingMode="PAY_PER_REQUEST",
            )
    except ClientError as e:
        # Another writer created it first: fine, wait for it like for our own.
        if e.response.get("Error", {}).get("Code") != "ResourceInUseException":
            raise
