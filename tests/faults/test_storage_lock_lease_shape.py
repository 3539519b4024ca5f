"""The ``storage`` lock's lease object is the one Apache Hudi's ``StorageBasedLockProvider`` reads.

Both keep ``.hoodie/.locks/table_lock.json``; Apache Hudi's ``StorageLockData`` is JSON
``{"expired": bool, "validUntil": epoch ms, "owner": str}`` (read with unknown properties ignored and
missing primitives refused). A live lease of Apache Hudi's must stop our writers, and ours must carry
the fields Apache Hudi needs to see when it is free. On local disk and on moto's S3 (127.0.0.1).
"""

from __future__ import annotations

import json
import time
from typing import Any

from hudi_framework.contracts.lock import LockContext, LockProvider
from hudi_framework.contracts.storage import StorageBackend
from hudi_lock_storage.lease_record import LEASE_KEY
from hudi_lock_storage.options import StorageLockOptions
from hudi_lock_storage.provider import StorageLockFactory
from hudi_storage_local import LocalStorageProvider
from hudi_storage_s3 import S3StorageOptions, S3StorageProvider
from tests.faults.s3_faults import Place, s3_options

_OPTIONS = StorageLockOptions(
    validity_timeout_secs=30, renew_interval_secs=5, clock_drift_margin_secs=1, poll_interval_secs=0.05
)


def _storage(place: Place) -> StorageBackend:
    if place.endpoint is None:
        backend: Any = LocalStorageProvider().open(place.uri)
    else:
        backend = S3StorageProvider(S3StorageOptions(**s3_options(place.endpoint))).open(place.uri)
    assert isinstance(backend, StorageBackend)
    return backend


def _lock(storage: StorageBackend, owner: str) -> LockProvider:
    return StorageLockFactory(_OPTIONS).open(LockContext(storage.root_uri, "t", storage, owner))


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


def test_our_lease_has_apache_hudis_fields(place: Place) -> None:
    storage = _storage(place)
    lock = _lock(storage, "ours")
    started = _now_ms()
    assert lock.try_lock(1)
    try:
        lease = json.loads(storage.read(LEASE_KEY))
        assert lease["owner"] == "ours"
        assert lease["expired"] is False
        assert started + 29_000 <= lease["validUntil"] <= _now_ms() + 30_000
    finally:
        lock.unlock()
    released = json.loads(storage.read(LEASE_KEY))
    assert released["expired"] is True
    assert released["owner"] == "ours"
    assert isinstance(released["validUntil"], int)


def _put_apache_hudi_lease(storage: StorageBackend, *, expired: bool, valid_for_ms: int) -> None:
    lease = {"expired": expired, "validUntil": _now_ms() + valid_for_ms, "owner": "5f0c-apache-hudi-owner"}
    storage.write(LEASE_KEY, json.dumps(lease).encode())


def test_a_live_apache_hudi_lease_stops_our_writer(place: Place) -> None:
    storage = _storage(place)
    _put_apache_hudi_lease(storage, expired=False, valid_for_ms=60_000)
    lock = _lock(storage, "ours")
    assert not lock.try_lock(0.5), "took over a lease Apache Hudi holds"
    assert lock.last_holder() == "5f0c-apache-hudi-owner"
    assert json.loads(storage.read(LEASE_KEY))["owner"] == "5f0c-apache-hudi-owner"


def test_a_released_or_lapsed_apache_hudi_lease_is_free(place: Place) -> None:
    storage = _storage(place)
    for expired, valid_for_ms in ((True, 60_000), (False, -10_000)):
        _put_apache_hudi_lease(storage, expired=expired, valid_for_ms=valid_for_ms)
        lock = _lock(storage, "ours")
        assert lock.try_lock(1)
        assert json.loads(storage.read(LEASE_KEY))["owner"] == "ours"
        lock.unlock()
