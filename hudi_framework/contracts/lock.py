"""The table lock contract, held around conflict checks and commits."""

from __future__ import annotations

from abc import ABC, abstractmethod


class LockProvider(ABC):
    """A mutual-exclusion lock for one table.

    Postconditions: at most one holder at a time; ``unlock`` is idempotent; ``try_lock(0)`` never
    blocks and returns ``False`` when another holder has the lock.
    """

    @abstractmethod
    def try_lock(self, timeout_s: float) -> bool:
        """Try to acquire the lock for up to ``timeout_s`` seconds; ``True`` when acquired."""

    @abstractmethod
    def unlock(self) -> None:
        """Release the lock if held by this provider."""

    def is_held(self) -> bool:
        """Whether this provider still holds a valid lease (fencing check before commit)."""
        return True
