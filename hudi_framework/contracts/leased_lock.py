"""The part every lease-based lock provider shares: polling for the lock, holding state, fencing.

A subclass supplies one acquisition attempt (:meth:`LeasedLockProvider._attempt`), whether it holds a
lease token (:meth:`LeasedLockProvider._has_token`) and :meth:`~LockProvider.unlock`; the
:class:`~hudi_framework.contracts.lease.LeaseKeeper` decides whether a held lease is still valid.
"""

from __future__ import annotations

import threading
import time
from abc import abstractmethod

from typing_extensions import override

from hudi_framework.contracts.lease import LeaseKeeper
from hudi_framework.contracts.lock import LockProvider

__all__ = ["LeasedLockProvider"]


class LeasedLockProvider(LockProvider):
    """A lock held as a renewable lease by one owner."""

    def __init__(self, *, owner: str, keeper: LeaseKeeper, poll_interval_s: float) -> None:
        self._owner = owner
        self._keeper = keeper
        self._poll_interval_s = poll_interval_s
        # Guards the lease token, shared with the heartbeat thread.
        self._mutex = threading.Lock()
        self._last_holder: str | None = None

    @property
    def owner(self) -> str:
        """This writer's id (written into the lease)."""
        return self._owner

    @abstractmethod
    def _attempt(self) -> bool:
        """Try once to acquire the lease; True when acquired (and the keeper begun)."""

    @abstractmethod
    def _has_token(self) -> bool:
        """Whether this provider holds a lease token (called under ``_mutex``)."""

    @override
    def try_lock(self, timeout_s: float) -> bool:
        if self.is_held():
            return True
        deadline = time.monotonic() + max(0.0, timeout_s)
        while True:
            if self._attempt():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            time.sleep(min(self._poll_interval_s, remaining))

    @override
    def is_held(self) -> bool:
        with self._mutex:
            held = self._has_token()
        return held and self._keeper.is_valid()

    @override
    def last_holder(self) -> str | None:
        return self._last_holder

    def stop_heartbeat(self) -> None:
        """Stop renewing without releasing, as a crashed or stalled holder would (tests, diagnostics)."""
        self._keeper.stop()
