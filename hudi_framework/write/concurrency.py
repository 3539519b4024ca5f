"""How one table's writes coordinate: concurrency mode, failed-write policy, heartbeats and the lock.

:class:`WriteConcurrency` carries what :class:`~hudi_framework.write.transaction.WriteTransaction`
needs from the settings and the table, so the transaction never builds plugins itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hudi_framework.lock import LockPolicy
from hudi_framework.vocabulary import ConcurrencyMode, FailedWritesPolicy
from hudi_framework.write.heartbeat import HeartbeatPolicy

if TYPE_CHECKING:
    from hudi_framework.config import HudiSettings
    from hudi_framework.contracts.lock import LockProvider
    from hudi_framework.runtime.table import HudiTable

__all__ = ["WriteConcurrency"]


@dataclass(frozen=True, slots=True)
class WriteConcurrency:
    """The coordination settings of one table's writes.

    Attributes:
        mode: ``hoodie.write.concurrency.mode``.
        failed_writes: The failed-writes policy in force.
        heartbeat: Heartbeat interval and tolerated misses.
        lock_policy: Lock attempts and waits.
        open_lock: Opens this writer's lock provider (optimistic concurrency, or serialized commits).
        table: The table's base URI (named in lock errors).
        serialized: Completions hold the table lock under a single writer too (``write.serialize_commits``:
            table services running beside the writer, as in the continuous streamer); no conflict check.
    """

    mode: ConcurrencyMode = ConcurrencyMode.SINGLE_WRITER
    failed_writes: FailedWritesPolicy = FailedWritesPolicy.EAGER
    heartbeat: HeartbeatPolicy = field(default_factory=HeartbeatPolicy)
    lock_policy: LockPolicy = field(default_factory=LockPolicy)
    open_lock: Callable[[], LockProvider] | None = None
    table: str = ""
    serialized: bool = False

    @property
    def optimistic(self) -> bool:
        """Whether commits run a conflict check under the table lock."""
        return self.mode is ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL

    @property
    def locks(self) -> bool:
        """Whether completions (commits, table services, archival) hold the table lock."""
        return (self.optimistic or self.serialized) and self.open_lock is not None

    @classmethod
    def from_settings(cls, settings: HudiSettings, table: HudiTable) -> WriteConcurrency:
        """The coordination of writes to ``table`` with ``settings``."""
        w = settings.write
        lock_settings = settings.lock

        # The lock the settings' plugins provide, as in every other process of the write.
        components = table.components.with_settings(settings)

        def open_lock() -> LockProvider:
            return components.table_lock(base_path=table.base_uri, table_name=table.config.name, storage=table.storage)

        return cls(
            mode=w.concurrency_mode,
            failed_writes=w.effective_failed_writes_policy,
            heartbeat=HeartbeatPolicy(w.heartbeat_interval_ms, w.heartbeat_tolerable_misses),
            lock_policy=LockPolicy.from_settings(lock_settings),
            open_lock=open_lock,
            table=table.base_uri,
            serialized=w.serialize_commits,
        )
