"""The table lock contract, held around conflict checks and commits.

A lock plugin registers a :class:`LockProviderFactory` (built from its validated options); the kernel
opens one :class:`LockProvider` per writer and table with :meth:`LockProviderFactory.open`, as storage
plugins open a backend per root URI. Every provider passes the contract suite in
``hudi_framework.testing.lock_contract``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend

__all__ = ["LockContext", "LockProvider", "LockProviderFactory"]


@dataclass(frozen=True, slots=True)
class LockContext:
    """What a provider needs to know about the table whose lock it takes.

    Attributes:
        base_path: The table's base URI; the in-process provider keys its locks by it.
        table_name: ``hoodie.table.name``; the default DynamoDB partition key.
        storage: The table's storage backend (the ``storage`` provider keeps its lease there).
        owner: A unique id of this writer (host, process, random part), written into leases so
            that holders can be told apart and named in errors.
    """

    base_path: str
    table_name: str
    storage: StorageBackend
    owner: str


class LockProvider(ABC):
    """A mutual-exclusion lock for one table, held by one writer.

    Each writer opens its own provider; two providers opened for the same table exclude each other.

    Postconditions: at most one holder at a time; ``unlock`` is idempotent and never releases a lock
    another provider holds; ``try_lock(0)`` never blocks and returns ``False`` when another holder has
    the lock; a lease-based provider whose lease lapsed reports ``is_held() == False``.
    """

    @abstractmethod
    def try_lock(self, timeout_s: float) -> bool:
        """Try to acquire the lock for up to ``timeout_s`` seconds; ``True`` when acquired.

        Calling it while this provider already holds the lock returns ``True`` (no nesting count).
        """

    @abstractmethod
    def unlock(self) -> None:
        """Release the lock if held by this provider; otherwise do nothing."""

    def is_held(self) -> bool:
        """Whether this provider still holds a valid lease (fencing check before commit).

        Lease-based providers answer from local, conservative timing (the lease is treated as lost a
        clock-drift margin before others may take it over), so the check costs no request.
        """
        return True

    def last_holder(self) -> str | None:
        """Who held the lock when this provider last failed to take it (for error messages)."""
        return None


class LockProviderFactory(ABC):
    """What a lock plugin registers: opens providers for tables, sharing what must be shared.

    Attributes:
        process_local: True when the locks exclude only the writers of one process (a lock table in
            memory). The kernel reads it from the factory class and refuses such a provider under
            optimistic concurrency control when writers may run in several processes.
    """

    process_local: ClassVar[bool] = False

    @abstractmethod
    def open(self, context: LockContext) -> LockProvider:
        """Open a provider for one writer of the table described by ``context``.

        Raises:
            LockProviderError: The backing service cannot be used (for example a missing lock table
                that may not be created).
        """
