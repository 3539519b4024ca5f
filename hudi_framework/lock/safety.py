"""Fail-fast checks for concurrency settings that would let writers lose data.

The write path calls :func:`check_lock_safety` once before it starts an instant. It cannot see other
processes, so the caller states how the table's writers are deployed (:class:`WriterTopology`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from hudi_framework.errors import UnsafeLockConfigError
from hudi_framework.vocabulary import ConcurrencyMode, FailedWritesPolicy

if TYPE_CHECKING:
    from hudi_framework.config import HudiSettings

_CONCURRENCY_MODE_KEY: Final = "hoodie.write.concurrency.mode"
_FAILED_WRITES_KEY: Final = "hoodie.clean.failed.writes.policy"
_PROVIDER_KEY: Final = "hoodie.write.lock.provider"


class WriterTopology(enum.Enum):
    """Where the writers (and table services) of one table run."""

    #: Every writer is a thread of this process (local engine, or one Spark driver doing it all).
    SINGLE_PROCESS = "single-process"
    #: Writers may run in several processes or hosts (several Spark applications or ``hudi-fw`` jobs).
    MULTI_PROCESS = "multi-process"


def topology_of_spark_master(master: str) -> WriterTopology:
    """The topology to assume for a Spark application with this master URL.

    ``local``/``local[N]`` runs everything in one JVM and one driver, so an in-process lock suffices
    for writers sharing that driver. Any cluster master (``yarn``, ``k8s://``, ``spark://``) is how
    several applications write one table (ingestion plus separate table-service jobs), so it is
    treated as multi-process: the lock must live outside the process.
    """
    normalized = master.strip().lower()
    if normalized == "local" or normalized.startswith("local["):
        return WriterTopology.SINGLE_PROCESS
    return WriterTopology.MULTI_PROCESS


def check_lock_safety(settings: HudiSettings, topology: WriterTopology, process_local: Callable[[], bool]) -> None:
    """Reject unsafe combinations of concurrency mode, failed-writes policy, lock provider and topology.

    * optimistic concurrency control with the ``EAGER`` failed-writes policy: an eager rollback at
      the start of one write deletes the files of a concurrent writer's inflight instant;
    * optimistic concurrency control with a process-local lock (``in-process``) while writers may
      run in several processes: their locks never meet, so conflict checks and commits interleave.

    Single-writer mode takes no lock, so nothing is checked for it.

    Args:
        settings: The write's settings.
        topology: Where the table's writers run.
        process_local: Whether the configured lock provider's locks exclude only the writers of one
            process (:attr:`~hudi_framework.contracts.lock.LockProviderFactory.process_local`);
            asked only when it matters.

    Raises:
        UnsafeLockConfigError: Naming the option keys that together are unsafe.
    """
    if settings.write.concurrency_mode is not ConcurrencyMode.OPTIMISTIC_CONCURRENCY_CONTROL:
        return
    if settings.write.effective_failed_writes_policy is not FailedWritesPolicy.LAZY:
        raise UnsafeLockConfigError(
            (_CONCURRENCY_MODE_KEY, _FAILED_WRITES_KEY),
            "optimistic_concurrency_control needs the LAZY failed-writes policy; EAGER would roll back "
            "the inflight instants of concurrent writers",
        )
    if topology is WriterTopology.MULTI_PROCESS and process_local():
        raise UnsafeLockConfigError(
            (_CONCURRENCY_MODE_KEY, _PROVIDER_KEY),
            f"the {settings.lock.provider!r} lock only excludes writers inside one process, but writers "
            "may run in several processes; use the 'storage' or 'dynamodb' lock provider",
        )
