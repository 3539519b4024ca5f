"""The ``in-process`` lock: one lock per table base path, shared by every writer of this process.

Writers of one process do not necessarily share anything else: each ``WriteClient`` builds its own
plugin manager, registry and factory. So the table of locks is process-wide
(:data:`PROCESS_LOCKS`, the one piece of module-level mutable state, on purpose): it is the only
place two such writers meet, exactly like Apache Hudi's static lock map in ``InProcessLockProvider``.
Tests and embedders that want isolation pass their own :class:`InProcessLockTable`.

There is no lease: a holder keeps the lock until it unlocks or its process ends (which ends every
writer that could wait for it too).
"""

from __future__ import annotations

import threading
import time

from pydantic import BaseModel, ConfigDict
from typing_extensions import override

from hudi_framework.contracts.lock import LockContext, LockProvider, LockProviderFactory


class InProcessLockOptions(BaseModel):
    """Options of the ``in-process`` lock (none)."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class _TableLock:
    """A lock that remembers its holder, so only the holder can release it."""

    def __init__(self) -> None:
        self.condition = threading.Condition()
        self.holder: InProcessLockProvider | None = None


class InProcessLockTable:
    """Locks by table base path; created on first use and kept for the life of the table object."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._locks: dict[str, _TableLock] = {}

    def lock_for(self, base_path: str) -> _TableLock:
        """The lock of ``base_path`` (trailing slashes ignored)."""
        key = base_path.rstrip("/") or base_path
        with self._mutex:
            return self._locks.setdefault(key, _TableLock())


#: The process-wide table (see the module docstring for why it is module-level).
PROCESS_LOCKS = InProcessLockTable()


class InProcessLockProvider(LockProvider):
    """One writer's handle on its table's in-process lock."""

    def __init__(self, lock: _TableLock, owner: str) -> None:
        self._lock = lock
        self._owner = owner
        self._last_holder: str | None = None

    @property
    def owner(self) -> str:
        """This writer's id."""
        return self._owner

    @override
    def try_lock(self, timeout_s: float) -> bool:
        deadline = time.monotonic() + max(0.0, timeout_s)
        with self._lock.condition:
            while True:
                holder = self._lock.holder
                if holder is None or holder is self:
                    self._lock.holder = self
                    return True
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self._last_holder = holder.owner
                    return False
                self._lock.condition.wait(remaining)

    @override
    def unlock(self) -> None:
        with self._lock.condition:
            if self._lock.holder is self:
                self._lock.holder = None
                self._lock.condition.notify()

    @override
    def is_held(self) -> bool:
        with self._lock.condition:
            return self._lock.holder is self

    @override
    def last_holder(self) -> str | None:
        return self._last_holder


class InProcessLockFactory(LockProviderFactory):
    """Opens providers on a lock table: the process-wide one unless another is given."""

    process_local = True

    def __init__(self, options: InProcessLockOptions | None = None, *, table: InProcessLockTable | None = None) -> None:
        self._options = options or InProcessLockOptions()
        self._table = table if table is not None else PROCESS_LOCKS

    @override
    def open(self, context: LockContext) -> LockProvider:
        return InProcessLockProvider(self._table.lock_for(context.base_path), context.owner)
