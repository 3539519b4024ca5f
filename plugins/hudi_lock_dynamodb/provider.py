"""The ``dynamodb`` lock: one item per Hudi table, moved by conditional writes on its record version.

The item ``{key, ownerName, recordVersionNumber, leaseDuration}`` has the attribute names and types
of the AWS DynamoDB lock client that Apache Hudi's ``DynamoDBBasedLockProvider`` uses, so both engines
can share one lock table: ``leaseDuration`` is a string of milliseconds, and an ``isReleased``
attribute, whatever its value, marks an item released (the AWS client writes one only when it
releases without deleting).

* **Acquire.** No item: ``PutItem`` if ``attribute_not_exists(key)``. An item: a waiter remembers its
  record version number (RVN) and when it first saw it; if the RVN is unchanged for
  ``leaseDuration + margin`` by the waiter's own clock, the holder stopped heartbeating and the
  waiter replaces the item with ``PutItem`` on condition ``RVN = seen``. No clocks are compared
  across hosts.
* **Heartbeat.** ``UpdateItem`` sets a new RVN on condition ``RVN = mine``; a failed condition means
  the lease was taken over (fencing: ``is_held`` turns False).
* **Release.** ``DeleteItem`` on condition ``RVN = mine``, so a writer whose lease was taken over
  never deletes its successor's item.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from botocore.exceptions import ClientError
from typing_extensions import override

from hudi_framework.contracts.lease import LeaseKeeper
from hudi_framework.contracts.leased_lock import LeasedLockProvider
from hudi_framework.contracts.lock import LockContext, LockProvider, LockProviderFactory
from hudi_lock_dynamodb.client import KEY_ATTRIBUTE, build_dynamodb_client, ensure_lock_table
from hudi_lock_dynamodb.options import DynamoDBLockOptions

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import AttributeValueTypeDef

_log = logging.getLogger(__name__)

#: Attribute names of the heartbeat's condition (``#rvn = :mine AND #owner = :me``).
_HEARTBEAT_NAMES: Final = {"#rvn": "recordVersionNumber", "#owner": "ownerName"}


def _conditional_failed(e: ClientError) -> bool:
    return e.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException"


def _is_released(item: Mapping[str, AttributeValueTypeDef]) -> bool:
    """The AWS lock client's rule: an ``isReleased`` attribute of any value means released.

    Items written by earlier versions of this plugin carry ``isReleased: false`` while held.
    """
    flag = item.get("isReleased")
    return flag is not None and flag != {"BOOL": False}


def _lease_ms(item: Mapping[str, AttributeValueTypeDef], default_ms: int) -> int:
    """``leaseDuration`` in milliseconds: a string (AWS lock client) or a number (earlier versions).

    A missing or unreadable one counts as ``default_ms`` (our own lease), never as zero: a holder
    is not declared dead sooner because its item is odd.
    """
    value = item.get("leaseDuration", {})
    text = value.get("S", value.get("N"))
    try:
        return int(text) if text is not None else default_ms
    except ValueError:
        return default_ms


class DynamoDBLockProvider(LeasedLockProvider):
    """One writer's handle on the lock item of its table."""

    def __init__(self, client: DynamoDBClient, context: LockContext, options: DynamoDBLockOptions) -> None:
        keeper = LeaseKeeper(
            lease_s=options.lease_duration_secs,
            renew_interval_s=options.heartbeat_interval_secs,
            margin_s=options.margin_secs,
            name=context.owner,
        )
        super().__init__(owner=context.owner, keeper=keeper, poll_interval_s=options.poll_interval_secs)
        self._client = client
        self._options = options
        self._table = context.base_path
        self._item_key = options.partition_key or context.table_name
        self._rvn: str | None = None  # the lease token (``ownerName`` of the item is our owner id)
        self._seen_rvn: str | None = None
        self._seen_at = 0.0

    @override
    def _has_token(self) -> bool:
        return self._rvn is not None

    def _key(self) -> dict[str, AttributeValueTypeDef]:
        return {KEY_ATTRIBUTE: {"S": self._item_key}}

    def _item(self, rvn: str) -> dict[str, AttributeValueTypeDef]:
        return {
            KEY_ATTRIBUTE: {"S": self._item_key},
            "ownerName": {"S": self._owner},
            "recordVersionNumber": {"S": rvn},
            # A string, as the AWS lock client writes and parses it (Long.parseLong of the S value).
            "leaseDuration": {"S": str(int(self._options.lease_duration_secs * 1000))},
        }

    @override
    def _attempt(self) -> bool:
        item = self._client.get_item(TableName=self._options.table, Key=self._key(), ConsistentRead=True).get("Item")
        seen_at = time.monotonic()  # after the response: the RVN was written no later than this
        rvn = uuid.uuid4().hex
        if item is None:
            condition = "attribute_not_exists(#k)"
            values: dict[str, AttributeValueTypeDef] = {}
            names = {"#k": KEY_ATTRIBUTE}
        else:
            current = item.get("recordVersionNumber", {}).get("S", "")
            self._last_holder = item.get("ownerName", {}).get("S")
            released = _is_released(item)
            lease_s = _lease_ms(item, int(self._options.lease_duration_secs * 1000)) / 1000
            if current != self._seen_rvn:
                self._seen_rvn, self._seen_at = current, seen_at
            stale = seen_at - self._seen_at >= lease_s + self._options.margin_secs
            if not (released or stale):
                return False
            condition = "#rvn = :seen"
            values = {":seen": {"S": current}}
            names = {"#rvn": "recordVersionNumber"}
        sent = time.monotonic()
        with self._mutex:
            try:
                if values:
                    self._client.put_item(
                        TableName=self._options.table,
                        Item=self._item(rvn),
                        ConditionExpression=condition,
                        ExpressionAttributeNames=names,
                        ExpressionAttributeValues=values,
                    )
                else:
                    self._client.put_item(
                        TableName=self._options.table,
                        Item=self._item(rvn),
                        ConditionExpression=condition,
                        ExpressionAttributeNames=names,
                    )
            except ClientError as e:
                if _conditional_failed(e):
                    return False
                raise
            self._rvn = rvn
            self._seen_rvn = None
        self._keeper.begin(sent, self._heartbeat)
        return True

    def _heartbeat(self) -> bool:
        with self._mutex:
            if self._rvn is None:
                return False
            new = uuid.uuid4().hex
            try:
                self._client.update_item(
                    TableName=self._options.table,
                    Key=self._key(),
                    UpdateExpression="SET #rvn = :new",
                    ConditionExpression="#rvn = :mine AND #owner = :me",
                    ExpressionAttributeNames=_HEARTBEAT_NAMES,
                    ExpressionAttributeValues={
                        ":new": {"S": new},
                        ":mine": {"S": self._rvn},
                        ":me": {"S": self._owner},
                    },
                )
            except ClientError as e:
                if _conditional_failed(e):
                    return False
                raise
            self._rvn = new
            return True

    @override
    def unlock(self) -> None:
        self._keeper.stop()
        with self._mutex:
            rvn, self._rvn = self._rvn, None
            if rvn is None:
                return
            try:
                self._client.delete_item(
                    TableName=self._options.table,
                    Key=self._key(),
                    ConditionExpression="#rvn = :mine",
                    ExpressionAttributeNames={"#rvn": "recordVersionNumber"},
                    ExpressionAttributeValues={":mine": {"S": rvn}},
                )
            except ClientError as e:
                if not _conditional_failed(e):  # the lease expires on its own; do not mask the caller's error
                    _log.warning("%s: could not release the DynamoDB lock, it expires on its own: %s", self._table, e)
            finally:
                self._keeper.end()


class DynamoDBLockFactory(LockProviderFactory):
    """Builds a client per writer and makes sure the lock table exists before the first lock."""

    def __init__(self, options: DynamoDBLockOptions) -> None:
        self._options = options

    @override
    def open(self, context: LockContext) -> LockProvider:
        client = build_dynamodb_client(self._options)
        ensure_lock_table(client, self._options)
        return DynamoDBLockProvider(client, context, self._options)
