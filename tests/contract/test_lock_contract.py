"""Every shipped lock provider runs the one contract suite.

* in-process: a private lock table per test (the process-wide one is covered in tests/unit/lock);
* storage on local disk: each writer (and each spawned process) with its own backend; the local
  backend's compare-and-swap holds an exclusive ``flock`` on the directory across check and rename;
* storage on S3: moto's server on 127.0.0.1, each writer (and each spawned process) with its own
  client and backend; moto's S3 is serialised (``atomic_moto``) because its conditional PUT checks
  then writes without a lock, so racing writers could both "win" in the fake, never on S3;
* dynamodb on the same moto server, its request handler serialised for the same reason;
* filesystem (Apache Hudi's ``.hoodie/lock`` file) on local disk, each writer (and each spawned
  process) with its own backend; no lease, like in-process.

Leases are 1 s with 0.2 s heartbeats, so the whole run stays short.
"""

from __future__ import annotations

import functools
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from hudi_framework.contracts.lock import LockContext, LockProvider
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.testing import DUMMY_AWS_ENV, LockProviderContract, MemoryStorageBackend
from hudi_lock_dynamodb import DynamoDBLockFactory, DynamoDBLockOptions
from hudi_lock_filesystem.options import FileSystemLockOptions
from hudi_lock_filesystem.provider import FileSystemLockFactory
from hudi_lock_inprocess import InProcessLockFactory, InProcessLockTable
from hudi_lock_storage import StorageLockFactory, StorageLockOptions
from hudi_storage_local import LocalStorageProvider
from hudi_storage_s3 import S3StorageOptions, S3StorageProvider
from tests.contract.conftest import build_test_client

_LEASE_S = 1.0
_STORAGE_LOCK = StorageLockOptions(
    validity_timeout_secs=_LEASE_S, renew_interval_secs=0.2, clock_drift_margin_secs=0.1, poll_interval_secs=0.05
)


def _context(owner: str, storage: StorageBackend, base_path: str = "memory://locks/table") -> LockContext:
    return LockContext(base_path=base_path, table_name="trips", storage=storage, owner=owner)


class TestInProcessLock(LockProviderContract):
    @pytest.fixture
    def open_lock(self) -> Callable[[str], LockProvider]:
        factory = InProcessLockFactory(table=InProcessLockTable())
        storage = MemoryStorageBackend("memory://locks/table")
        return lambda owner: factory.open(_context(owner, storage))


class TestStorageLockLocalDisk(LockProviderContract):
    LEASE_S = _LEASE_S

    @pytest.fixture
    def open_lock(self, tmp_path: Path) -> Callable[[str], LockProvider]:
        return functools.partial(open_local_storage_lock, str(tmp_path / "table"))

    @pytest.fixture
    def spawn_lock(self, tmp_path: Path) -> Callable[[str], LockProvider]:
        return functools.partial(open_local_storage_lock, str(tmp_path / "table"))


def open_local_storage_lock(table_path: str, owner: str) -> LockProvider:
    """Open a storage lock on local disk with its own backend (module level: pickled into spawned processes)."""
    storage = LocalStorageProvider().open(table_path)
    return StorageLockFactory(_STORAGE_LOCK).open(_context(owner, storage, storage.root_uri))


class TestFileSystemLockLocalDisk(LockProviderContract):
    @pytest.fixture
    def open_lock(self, tmp_path: Path) -> Callable[[str], LockProvider]:
        return functools.partial(open_local_filesystem_lock, str(tmp_path / "table"))

    @pytest.fixture
    def spawn_lock(self, tmp_path: Path) -> Callable[[str], LockProvider]:
        return functools.partial(open_local_filesystem_lock, str(tmp_path / "table"))


def open_local_filesystem_lock(table_path: str, owner: str) -> LockProvider:
    """Open a filesystem lock on local disk with its own backend (module level: pickled into spawned processes)."""
    storage = LocalStorageProvider().open(table_path)
    factory = FileSystemLockFactory(FileSystemLockOptions(poll_interval_secs=0.05))
    return factory.open(_context(owner, storage, storage.root_uri))


def _s3_options(endpoint: str) -> S3StorageOptions:
    return S3StorageOptions(
        endpoint_url=endpoint, region="us-east-1", access_key_id="testing", secret_access_key="testing"
    )


def open_s3_storage_lock(endpoint: str, table_uri: str, owner: str) -> LockProvider:
    """Open a storage lock on S3 with its own client (module level: pickled into spawned processes)."""
    storage = S3StorageProvider(_s3_options(endpoint)).open(table_uri)
    return StorageLockFactory(_STORAGE_LOCK).open(_context(owner, storage, table_uri))


@pytest.mark.s3
@pytest.mark.usefixtures("aws_env", "atomic_moto")
class TestStorageLockS3(LockProviderContract):
    LEASE_S = _LEASE_S

    @pytest.fixture
    def table_uri(self, moto_endpoint: str, bucket_name: str) -> str:
        assert moto_endpoint.startswith("http://127.0.0.1:")
        build_test_client(_s3_options(moto_endpoint)).create_bucket(Bucket=bucket_name)
        return f"s3://{bucket_name}/warehouse/trips"

    @pytest.fixture
    def open_lock(self, moto_endpoint: str, table_uri: str) -> Callable[[str], LockProvider]:
        return functools.partial(open_s3_storage_lock, moto_endpoint, table_uri)

    @pytest.fixture
    def spawn_lock(self, moto_endpoint: str, table_uri: str) -> Callable[[str], LockProvider]:
        return functools.partial(open_s3_storage_lock, moto_endpoint, table_uri)


def _dynamodb_options(endpoint: str, table: str) -> DynamoDBLockOptions:
    return DynamoDBLockOptions(
        table=table,
        region="us-east-1",
        endpoint_url=endpoint,
        lease_duration_secs=_LEASE_S,
        heartbeat_interval_secs=0.2,
        margin_secs=0.1,
        poll_interval_secs=0.05,
    )


def open_dynamodb_lock(endpoint: str, table: str, owner: str) -> LockProvider:
    """Open a DynamoDB lock with its own client (module level: pickled into spawned processes)."""
    with pytest.MonkeyPatch.context() as mp:
        for name, value in DUMMY_AWS_ENV.items():
            mp.setenv(name, value)
        factory = DynamoDBLockFactory(_dynamodb_options(endpoint, table))
        return factory.open(_context(owner, MemoryStorageBackend("memory://locks/table")))


@pytest.fixture
def atomic_moto_dynamodb() -> Iterator[None]:
    """Serialise moto's DynamoDB handler: its conditional writes check then write without a lock."""
    from moto.dynamodb.responses import DynamoHandler

    lock = threading.RLock()
    original = DynamoHandler.call_action

    @functools.wraps(original)
    def serialized(self: DynamoHandler, *args: Any, **kwargs: Any) -> Any:
        with lock:
            return original(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(DynamoHandler, "call_action", serialized)
        yield


@pytest.mark.s3
@pytest.mark.usefixtures("aws_env", "atomic_moto_dynamodb")
class TestDynamoDBLock(LockProviderContract):
    LEASE_S = _LEASE_S

    @pytest.fixture
    def lock_table(self) -> str:
        return f"hudi-locks-{uuid.uuid4().hex[:12]}"

    @pytest.fixture
    def open_lock(self, moto_endpoint: str, lock_table: str) -> Callable[[str], LockProvider]:
        assert moto_endpoint.startswith("http://127.0.0.1:")
        return functools.partial(open_dynamodb_lock, moto_endpoint, lock_table)

    @pytest.fixture
    def spawn_lock(self, moto_endpoint: str, lock_table: str) -> Callable[[str], LockProvider]:
        return functools.partial(open_dynamodb_lock, moto_endpoint, lock_table)
