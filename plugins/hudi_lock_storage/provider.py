"""The ``storage`` lock: a lease object in the table's own storage, moved by conditional writes.

* **Acquire.** Read the lease. Absent: create it with ``put_if_absent`` (S3 ``If-None-Match: *``).
  Released, or expired for longer than the clock-drift margin: replace it with
  ``compare_and_swap`` against the version just read (S3 ``If-Match``). Exactly one contender wins.
  The winner reads it back and checks its own id is there, which also catches the narrow
  cross-process race of the local file system's best-effort compare-and-swap.
* **Renew.** A heartbeat thread (:class:`~hudi_framework.contracts.lease.LeaseKeeper`) moves the expiry
  forward with ``compare_and_swap``; a failed swap means the lease was taken over, and the provider
  stops reporting it as held.
* **Release.** ``compare_and_swap`` to ``expired: true``; if the swap fails the lease was already
  someone else's, and it is left alone.
* **Fencing.** :meth:`StorageLockProvider.is_held` is False once a renewal found the lease taken or
  the local validity (``validity - margin`` after the last successful request was sent) lapsed.
"""

from __future__ import annotations

import logging
import time

from typing_extensions import override

from hudi_framework.contracts.lease import LeaseKeeper
from hudi_framework.contracts.leased_lock import LeasedLockProvider
from hudi_framework.contracts.lock import LockContext, LockProvider, LockProviderFactory
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import PreconditionFailedError, StorageNotFoundError
from hudi_lock_storage.lease_record import LEASE_KEY, LeaseRecord
from hudi_lock_storage.options import StorageLockOptions

_log = logging.getLogger(__name__)


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class StorageLockProvider(LeasedLockProvider):
    """One writer's handle on the lease object of its table."""

    def __init__(self, storage: StorageBackend, context: LockContext, options: StorageLockOptions) -> None:
        keeper = LeaseKeeper(
            lease_s=options.validity_timeout_secs,
            renew_interval_s=options.renew_interval_secs,
            margin_s=options.clock_drift_margin_secs,
            name=context.owner,
        )
        super().__init__(owner=context.owner, keeper=keeper, poll_interval_s=options.poll_interval_secs)
        self._storage = storage
        self._table = context.base_path
        self._options = options
        self._margin_ms = int(options.clock_drift_margin_secs * 1000)
        self._version: str | None = None
        self._generation = 0

    @override
    def _has_token(self) -> bool:
        return self._version is not None

    def _record(self, *, expired: bool = False) -> bytes:
        expiration = _now_ms() + (0 if expired else int(self._options.validity_timeout_secs * 1000))
        return LeaseRecord(self._owner, expiration, expired, self._generation, self._table).encode()

    @override
    def _attempt(self) -> bool:
        sent = time.monotonic()
        try:
            current = self._storage.read_versioned(LEASE_KEY)
        except StorageNotFoundError:
            current = None
        with self._mutex:
            try:
                if current is None:
                    self._generation = 1
                    version = self._storage.put_if_absent(LEASE_KEY, self._record())
                else:
                    lease = LeaseRecord.decode(current.data)
                    if lease is not None and not lease.is_free(_now_ms(), self._margin_ms):
                        self._last_holder = lease.owner
                        return False
                    if lease is None:
                        _log.warning("%s/%s is not a lease; taking it over", self._table, LEASE_KEY)
                    self._generation = (lease.generation if lease is not None else 0) + 1
                    version = self._storage.compare_and_swap(LEASE_KEY, self._record(), current.version)
            except PreconditionFailedError:
                return False  # another contender moved the lease first
            if not self._won():
                return False
            self._version = version
        self._keeper.begin(sent, self._renew)
        return True

    def _won(self) -> bool:
        try:
            back = self._storage.read_versioned(LEASE_KEY)
        except StorageNotFoundError:
            return False
        lease = LeaseRecord.decode(back.data)
        if lease is None or lease.owner != self._owner or lease.generation != self._generation:
            self._last_holder = lease.owner if lease is not None else None
            return False
        return True

    def _renew(self) -> bool:
        with self._mutex:
            if self._version is None:
                return False
            try:
                self._version = self._storage.compare_and_swap(LEASE_KEY, self._record(), self._version)
            except PreconditionFailedError:
                return False
            return True

    @override
    def unlock(self) -> None:
        self._keeper.stop()
        with self._mutex:
            version, self._version = self._version, None
            if version is None:
                return
            try:
                self._storage.compare_and_swap(LEASE_KEY, self._record(expired=True), version)
            except PreconditionFailedError:
                pass  # taken over after our lease lapsed: nothing of ours left to release
            except Exception as e:  # the lease expires on its own; do not mask the caller's error
                _log.warning("%s: could not release the table lock, it expires on its own: %s", self._table, e)
            finally:
                self._keeper.end()


class StorageLockFactory(LockProviderFactory):
    """Opens :class:`StorageLockProvider` on each table's own storage backend."""

    def __init__(self, options: StorageLockOptions | None = None) -> None:
        self._options = options or StorageLockOptions()

    @override
    def open(self, context: LockContext) -> LockProvider:
        return StorageLockProvider(context.storage, context, self._options)
