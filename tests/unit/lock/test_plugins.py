"""The shipped lock plugins through the registry: names, Apache Hudi aliases, options, on-disk lease."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.contracts.lock import LockContext
from hudi_framework.errors import LockProviderError, PluginConfigError, UnknownComponentError
from hudi_framework.lock import open_table_lock
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.testing import DUMMY_AWS_ENV
from hudi_lock_dynamodb import DynamoDBLockFactory, DynamoDBLockOptions
from hudi_lock_storage import LEASE_KEY, StorageLockProvider
from hudi_storage_local import LocalStorageProvider


def _registry() -> ComponentRegistry:
    return ComponentRegistry.from_manager(build_plugin_manager())


@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("in-process", "in-process"),
        ("InProcessLockProvider", "in-process"),
        ("org.apache.hudi.client.transaction.lock.InProcessLockProvider", "in-process"),
        ("StorageBasedLockProvider", "storage"),
        ("org.apache.hudi.client.transaction.lock.FileSystemBasedLockProvider", "filesystem"),
        ("DynamoDBBasedLockProvider", "dynamodb"),
        ("org.apache.hudi.aws.transaction.lock.DynamoDBBasedLockProvider", "dynamodb"),
    ],
)
def test_registry_resolves_names_and_hudi_class_names(alias: str, name: str) -> None:
    assert _registry().get(ComponentKind.LOCK, alias).spec.name == name


@pytest.mark.parametrize(
    "value", ["InProcessLockProvider", "org.apache.hudi.client.transaction.lock.InProcessLockProvider"]
)
def test_hoodie_provider_option_accepts_class_names(value: str) -> None:
    assert HudiSettings.from_hoodie_options({"hoodie.write.lock.provider": value}).lock.provider == "in-process"


def test_unknown_provider_names_the_installed_ones(tmp_path: Path) -> None:
    storage = LocalStorageProvider().open(str(tmp_path))
    with pytest.raises(UnknownComponentError, match="dynamodb, filesystem, in-process, storage"):
        open_table_lock(
            _registry(),
            HudiSettings(lock={"provider": "zookeeper"}).lock,
            base_path=str(tmp_path),
            table_name="t",
            storage=storage,
        )


def test_in_process_locks_meet_across_plugin_managers(tmp_path: Path) -> None:
    # Two writers of one process that share nothing but the process (each builds its own manager).
    storage = LocalStorageProvider().open(str(tmp_path))
    settings = HudiSettings().lock
    a = open_table_lock(_registry(), settings, base_path=str(tmp_path), table_name="t", storage=storage)
    b = open_table_lock(_registry(), settings, base_path=str(tmp_path) + "/", table_name="t", storage=storage)
    other = open_table_lock(_registry(), settings, base_path=str(tmp_path / "x"), table_name="x", storage=storage)
    try:
        assert a.try_lock(0)
        assert not b.try_lock(0)
        assert other.try_lock(0), "another table's lock is independent"
    finally:
        for lock in (a, b, other):
            lock.unlock()


def test_storage_lock_from_hoodie_options_writes_its_lease(tmp_path: Path) -> None:
    settings = HudiSettings.from_hoodie_options(
        {
            "hoodie.write.lock.provider": "org.apache.hudi.client.transaction.lock.StorageBasedLockProvider",
            "hoodie.write.lock.storage.validity.timeout.secs": "60",
            "hoodie.write.lock.storage.renew.interval.secs": "10",
        }
    )
    storage = LocalStorageProvider().open(str(tmp_path))
    lock = open_table_lock(
        _registry(), settings.lock, base_path=storage.root_uri, table_name="t", storage=storage, owner="host/1/a"
    )
    assert isinstance(lock, StorageLockProvider)
    assert lock.try_lock(0)
    lease = json.loads((tmp_path / ".hoodie" / ".locks" / "table_lock.json").read_text())
    assert LEASE_KEY == ".hoodie/.locks/table_lock.json"
    assert (lease["owner"], lease["expired"], lease["generation"]) == ("host/1/a", False, 1)
    assert lease["table"] == storage.root_uri
    lock.unlock()
    released = json.loads(storage.read(LEASE_KEY))
    assert released["expired"] is True
    assert lock.try_lock(0)
    assert json.loads(storage.read(LEASE_KEY))["generation"] == 2
    lock.unlock()


def test_storage_lock_takes_over_a_corrupt_lease_object(tmp_path: Path) -> None:
    storage = LocalStorageProvider().open(str(tmp_path))
    storage.write(LEASE_KEY, b"not json")
    lock = open_table_lock(
        _registry(),
        HudiSettings(lock={"provider": "storage"}).lock,
        base_path=storage.root_uri,
        table_name="t",
        storage=storage,
    )
    assert lock.try_lock(0)
    lock.unlock()


def test_storage_lock_options_are_validated() -> None:
    settings = HudiSettings(
        lock={"provider": "storage", "options": {"validity_timeout_secs": 5, "renew_interval_secs": 5}}
    )
    with pytest.raises(PluginConfigError, match=r"lock\.options"):
        _registry().build(ComponentKind.LOCK, "storage", settings.lock.options, field_path="lock.options")


def test_dynamodb_needs_a_table_name() -> None:
    with pytest.raises(PluginConfigError, match="table"):
        _registry().build(ComponentKind.LOCK, "dynamodb", {}, field_path="lock.options")


@pytest.fixture
def mocked_aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    from moto import mock_aws

    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB"):
        monkeypatch.delenv(name, raising=False)
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        yield


@pytest.mark.usefixtures("mocked_aws")
def test_dynamodb_refuses_a_missing_table_when_creation_is_off(tmp_path: Path) -> None:
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.write.lock.provider": "dynamodb", "hoodie.write.lock.dynamodb.table": "locks"}
    ).lock.model_copy(update={"options": {"table": "locks", "create_table": False, "region": "us-east-1"}})
    storage = LocalStorageProvider().open(str(tmp_path))
    with pytest.raises(LockProviderError, match="'locks' does not exist"):
        open_table_lock(_registry(), settings, base_path=str(tmp_path), table_name="trips", storage=storage)


@pytest.mark.usefixtures("mocked_aws")
def test_dynamodb_creates_its_table_and_keys_items_by_table_name(tmp_path: Path) -> None:
    settings = HudiSettings.from_hoodie_options(
        {
            "hoodie.write.lock.provider": "DynamoDBBasedLockProvider",
            "hoodie.write.lock.dynamodb.table": "hudi-locks",
            "hoodie.write.lock.dynamodb.region": "us-east-1",
        }
    )
    storage = LocalStorageProvider().open(str(tmp_path))
    lock = open_table_lock(
        _registry(), settings.lock, base_path=str(tmp_path), table_name="trips", storage=storage, owner="host/1/a"
    )
    from hudi_lock_dynamodb import build_dynamodb_client

    client = build_dynamodb_client(DynamoDBLockOptions(table="hudi-locks", region="us-east-1"))
    table = client.describe_table(TableName="hudi-locks")["Table"]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert table["KeySchema"] == [{"AttributeName": "key", "KeyType": "HASH"}]
    assert lock.try_lock(0)
    item = client.get_item(TableName="hudi-locks", Key={"key": {"S": "trips"}})["Item"]
    assert item["ownerName"] == {"S": "host/1/a"}
    assert "isReleased" not in item  # the AWS lock client reads any isReleased as released
    lock.unlock()
    assert "Item" not in client.get_item(TableName="hudi-locks", Key={"key": {"S": "trips"}})
    # A second factory finds the existing table; an explicit partition key names the item.
    explicit = DynamoDBLockFactory(DynamoDBLockOptions(table="hudi-locks", region="us-east-1", partition_key="pk"))
    other = explicit.open(LockContext(base_path=str(tmp_path), table_name="trips", storage=storage, owner="host/2/b"))
    assert other.try_lock(0)
    assert "Item" in client.get_item(TableName="hudi-locks", Key={"key": {"S": "pk"}})
    other.unlock()
