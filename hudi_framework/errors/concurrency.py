"""Concurrency and commit errors: locks, write conflicts, commits."""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.errors.base import HudiError
from hudi_framework.errors.config import ConfigError

__all__ = [
    "CommitError",
    "CommitStateUnknownError",
    "CommitVetoedError",
    "ConcurrencyError",
    "LockAcquireTimeoutError",
    "LockAcquisitionError",
    "LockLostError",
    "LockProviderError",
    "SchemaEvolutionConflictError",
    "UnsafeLockConfigError",
    "WriteConflictError",
]


class ConcurrencyError(HudiError):
    """Locks or concurrent writers got in the way."""


class LockAcquisitionError(ConcurrencyError):
    """The table lock could not be taken in time."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        super().__init__(f"could not acquire the table lock within {timeout_s:g}s")


class LockAcquireTimeoutError(LockAcquisitionError):
    """Every attempt to take a table's lock timed out.

    Attributes:
        table: The table (base path or name) whose lock was wanted.
        holder: Who held the lock at the last attempt, as the provider saw it (None when unknown).
        attempts: How many attempts were made.
    """

    def __init__(self, table: str, holder: str | None, timeout_s: float, attempts: int) -> None:
        self.table = table
        self.holder = holder
        self.attempts = attempts
        ConcurrencyError.__init__(
            self,
            f"could not acquire the lock of table {table!r} in {attempts} attempt(s) over {timeout_s:g}s; "
            f"held by {holder or 'an unknown holder'}",
        )
        self.timeout_s = timeout_s


class LockLostError(ConcurrencyError):
    """A writer no longer holds the table lock it took (its lease expired or was taken over).

    Raised before a commit so that a writer whose lease lapsed never completes an instant (fencing).

    Attributes:
        table: The table whose lock was lost.
        owner: The owner id of the writer that lost it.
        reason: What happened, as far as the provider knows.
    """

    def __init__(self, table: str, owner: str, reason: str) -> None:
        self.table = table
        self.owner = owner
        self.reason = reason
        super().__init__(f"lock of table {table!r} is no longer held by {owner}: {reason}")


class LockProviderError(ConcurrencyError):
    """A lock provider's backing service failed in a way retries do not fix (a missing lock table...).

    Attributes:
        provider: The provider's registered name.
        reason: What failed.
    """

    def __init__(self, provider: str, reason: str) -> None:
        self.provider = provider
        self.reason = reason
        super().__init__(f"lock provider {provider!r}: {reason}")


class UnsafeLockConfigError(ConfigError):
    """A combination of concurrency settings would let writers lose data; checked before a write starts.

    Attributes:
        keys: The Apache Hudi option keys that together are unsafe.
        reason: Why the combination is unsafe and what to set instead.
    """

    def __init__(self, keys: Sequence[str], reason: str) -> None:
        self.keys = tuple(keys)
        self.reason = reason
        super().__init__(f"unsafe combination of {' and '.join(self.keys)}: {reason}")


class WriteConflictError(ConcurrencyError):
    """Two writers touched the same file groups."""

    def __init__(self, instant: str, other_instant: str, file_group_ids: Sequence[str]) -> None:
        self.instant = instant
        self.other_instant = other_instant
        self.file_group_ids = tuple(file_group_ids)
        super().__init__(
            f"write {instant} conflicts with {other_instant} on file groups {', '.join(self.file_group_ids)}"
        )


class SchemaEvolutionConflictError(ConcurrencyError):
    """Two concurrent writers evolved the table schema differently; the later one fails (Apache Hudi's
    ``HoodieSchemaEvolutionConflictException``), leaving the table as the earlier one left it."""

    def __init__(self, instant: str, other_instant: str, reason: str) -> None:
        self.instant = instant
        self.other_instant = other_instant
        super().__init__(f"write {instant} and {other_instant} both evolved the table schema: {reason}")


class CommitError(HudiError):
    """A commit failed."""


class CommitVetoedError(CommitError):
    """A plugin vetoed the commit."""

    def __init__(self, plugin: str, reason: str) -> None:
        self.plugin = plugin
        super().__init__(f"commit vetoed by {plugin}: {reason}")


class CommitStateUnknownError(CommitError):
    """The commit of ``instant`` may or may not have landed: it did if the timeline has it completed
    once storage answers. It is not rolled back meanwhile (if it did not land, the next writer does)."""

    def __init__(self, instant: str, reason: str) -> None:
        self.instant = instant
        super().__init__(reason)
