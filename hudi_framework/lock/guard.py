"""Taking the table lock with retries, and the fencing check before a commit.

The write path holds the lock around its conflict check and commit::

    with table_lock(provider, table=base_path, policy=LockPolicy.from_settings(settings.lock)) as held:
        check_conflicts(...)
        held.ensure_held()          # fencing: never complete an instant after the lease lapsed
        complete_instant(...)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hudi_framework.errors import LockAcquireTimeoutError, LockLostError

if TYPE_CHECKING:
    from hudi_framework.config import LockSettings
    from hudi_framework.contracts.lock import LockProvider


@dataclass(frozen=True, slots=True)
class LockPolicy:
    """How long and how often to try for the lock (Apache Hudi's ``hoodie.write.lock.*`` timings).

    Attributes:
        wait_time_ms: How long one attempt (``try_lock``) waits.
        num_retries: Attempts after the first.
        retry_wait_time_ms: Pause before the first retry; doubles per retry.
        max_retry_wait_time_ms: Upper bound of one pause.
    """

    wait_time_ms: int = 60_000
    num_retries: int = 15
    retry_wait_time_ms: int = 1_000
    max_retry_wait_time_ms: int = 16_000

    @classmethod
    def from_settings(cls, settings: LockSettings) -> LockPolicy:
        """The policy of a ``[lock]`` settings section."""
        return cls(
            wait_time_ms=settings.wait_time_ms,
            num_retries=settings.num_retries,
            retry_wait_time_ms=settings.retry_wait_time_ms,
            max_retry_wait_time_ms=settings.max_retry_wait_time_ms,
        )


class HeldLock:
    """The lock as held inside :func:`table_lock`: the fencing check for the commit."""

    def __init__(self, provider: LockProvider, table: str, owner: str) -> None:
        self._provider = provider
        self._table = table
        self._owner = owner

    @property
    def provider(self) -> LockProvider:
        """The provider holding the lock."""
        return self._provider

    def ensure_held(self) -> None:
        """Fencing: raise unless the lock is still held; call it right before a commit becomes visible.

        Raises:
            LockLostError: The lease expired or another writer took it over.
        """
        if not self._provider.is_held():
            raise LockLostError(self._table, self._owner, "its lease expired or another writer took the lock over")


def acquire(provider: LockProvider, policy: LockPolicy, *, table: str) -> None:
    """Take the lock: ``1 + num_retries`` attempts of ``wait_time_ms`` each, with growing pauses.

    Raises:
        LockAcquireTimeoutError: Every attempt timed out; names the table and the last holder seen.
    """
    started = time.monotonic()
    pause_ms = policy.retry_wait_time_ms
    attempts = 0
    while True:
        attempts += 1
        if provider.try_lock(policy.wait_time_ms / 1000):
            return
        if attempts > policy.num_retries:
            raise LockAcquireTimeoutError(table, provider.last_holder(), time.monotonic() - started, attempts)
        time.sleep(pause_ms / 1000)
        pause_ms = min(max(pause_ms * 2, 1), policy.max_retry_wait_time_ms)


@contextmanager
def table_lock(
    provider: LockProvider, *, table: str, policy: LockPolicy | None = None, owner: str = "this writer"
) -> Iterator[HeldLock]:
    """Hold the table lock for the ``with`` block and release it on the way out (even on errors).

    Args:
        provider: This writer's provider for the table.
        table: The table's base path or name (named in errors).
        policy: Attempts and waits; Apache Hudi's defaults when None.
        owner: This writer's id (named in :class:`LockLostError`).

    Raises:
        LockAcquireTimeoutError: The lock could not be taken.
    """
    acquire(provider, policy or LockPolicy(), table=table)
    try:
        yield HeldLock(provider, table, owner)
    finally:
        provider.unlock()
