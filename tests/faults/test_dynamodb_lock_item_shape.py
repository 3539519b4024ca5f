"""The ``dynamodb`` lock shares its items with the AWS DynamoDB lock client (Apache Hudi's provider).

Apache Hudi's ``DynamoDBBasedLockProvider`` drives ``com.amazonaws:dynamodb-lock-client``. That
client stores ``leaseDuration`` as a *string* attribute (milliseconds), marks a released item by the
mere *presence* of ``isReleased`` (deleting the item on release by default) and parses every item it
reads with those types. An item of ours must read as held to it, and an item of its must read as held
to us, or the two writers of one table do not exclude each other. Checked on moto's DynamoDB server
(127.0.0.1), item by item.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from hudi_framework.contracts.lock import LockContext
from hudi_framework.testing import DUMMY_AWS_ENV, moto_server
from hudi_framework.testing.memory_storage import MemoryStorageBackend
from hudi_lock_dynamodb import DynamoDBLockFactory, DynamoDBLockOptions, DynamoDBLockProvider, build_dynamodb_client

pytestmark = pytest.mark.s3

_PARTITION_KEY = "trips"


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    with pytest.MonkeyPatch.context() as mp:
        for name, value in DUMMY_AWS_ENV.items():
            mp.setenv(name, value)
        with moto_server() as url:
            assert url.startswith("http://127.0.0.1:")
            yield url


@pytest.fixture
def options(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> DynamoDBLockOptions:
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    return DynamoDBLockOptions(
        table=f"hudi-locks-{uuid.uuid4().hex[:12]}",
        region="us-east-1",
        endpoint_url=endpoint,
        partition_key=_PARTITION_KEY,
        lease_duration_secs=2.0,
        heartbeat_interval_secs=0.5,
        margin_secs=0.2,
        poll_interval_secs=0.05,
    )


def _open(options: DynamoDBLockOptions, owner: str) -> DynamoDBLockProvider:
    context = LockContext("memory://t/trips", "trips", MemoryStorageBackend("memory://t/trips"), owner)
    provider = DynamoDBLockFactory(options).open(context)
    assert isinstance(provider, DynamoDBLockProvider)
    return provider


def _client(options: DynamoDBLockOptions) -> Any:
    return build_dynamodb_client(options)


def test_held_item_has_the_aws_lock_client_types(options: DynamoDBLockOptions) -> None:
    lock = _open(options, "ours")
    assert lock.try_lock(1)
    try:
        item = _client(options).get_item(TableName=options.table, Key={"key": {"S": _PARTITION_KEY}})["Item"]
        # The AWS client parses leaseDuration with Long.parseLong(item.s()): a number attribute has no s().
        assert item["leaseDuration"] == {"S": "2000"}
        # The AWS client reads any isReleased attribute as "released": a held item must not carry one.
        assert "isReleased" not in item
        assert item["ownerName"] == {"S": "ours"}
        assert set(item["recordVersionNumber"]) == {"S"}
        assert set(item) == {"key", "ownerName", "leaseDuration", "recordVersionNumber"}
    finally:
        lock.unlock()
    # Released by deleting the item, as the AWS client does with Apache Hudi's default options.
    assert "Item" not in _client(options).get_item(TableName=options.table, Key={"key": {"S": _PARTITION_KEY}})


def _put_aws_client_item(options: DynamoDBLockOptions, *, lease_ms: int, released: bool = False) -> None:
    """An item exactly as the AWS lock client writes it on acquire (or on release without delete)."""
    item = {
        "key": {"S": _PARTITION_KEY},
        "ownerName": {"S": "apache-hudi-host.example/" + uuid.uuid4().hex},
        "leaseDuration": {"S": str(lease_ms)},
        "recordVersionNumber": {"S": str(uuid.uuid4())},
    }
    if released:
        item["isReleased"] = {"S": "1"}
    _client(options).put_item(TableName=options.table, Item=item)


def test_a_live_aws_client_item_is_held_for_its_whole_lease(options: DynamoDBLockOptions) -> None:
    ours = _open(options, "ours")
    assert ours.try_lock(0.1)  # creates the lock table
    ours.unlock()
    _put_aws_client_item(options, lease_ms=3_000)
    started = time.monotonic()
    # Its lease is 3 s (a string attribute): nobody may take it over before that, even if its
    # record version number does not change in the meantime.
    assert not ours.try_lock(2.0), "took over a lock the AWS lock client holds, before its lease ran out"
    assert str(ours.last_holder()).startswith("apache-hudi-host")
    # Once the lease (and our margin) passed without a heartbeat, the holder is dead: take over.
    assert ours.try_lock(5.0)
    assert time.monotonic() - started >= 3.0
    ours.unlock()


def test_an_aws_client_item_released_without_delete_is_free(options: DynamoDBLockOptions) -> None:
    ours = _open(options, "ours")
    assert ours.try_lock(0.1)
    ours.unlock()
    _put_aws_client_item(options, lease_ms=60_000, released=True)
    assert ours.try_lock(0.5), "an item with isReleased is free to take, whatever its lease"
    item = _client(options).get_item(TableName=options.table, Key={"key": {"S": _PARTITION_KEY}})["Item"]
    assert "isReleased" not in item
    assert item["ownerName"] == {"S": "ours"}
    ours.unlock()
