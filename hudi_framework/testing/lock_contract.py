"""The lock contract suite: behaviour every :class:`LockProvider` must show.

Plugin authors subclass :class:`LockProviderContract` in a ``Test*`` class and provide:

* an ``open_lock`` fixture: a callable that opens a new writer's provider for one shared table,
  given the writer's owner id (each call is another writer);
* ``LEASE_S``: the lease duration the fixture configures (short, 1-2 s), or None for providers
  without a lease (``in-process``), whose holder only "dies" with its process;
* optionally a ``spawn_lock`` fixture: a picklable callable ``(owner) -> LockProvider`` that opens a
  provider for the same table in *another process* (spawned); None skips the cross-process test.

Lease-based providers expose ``stop_heartbeat()`` (see :class:`StoppableHeartbeat`) so the suite can
simulate a holder that died or stalled without releasing.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ClassVar, Protocol, runtime_checkable

import pytest

from hudi_framework.contracts.lock import LockProvider
from hudi_framework.errors import LockAcquireTimeoutError, LockLostError
from hudi_framework.lock.guard import HeldLock, LockPolicy, table_lock

__all__ = ["LockProviderContract", "OpenLock"]

#: Opens one writer's provider on the suite's table, given the writer's owner id.
OpenLock = Callable[[str], LockProvider]

_TABLE = "contract-table"
#: Waits long enough for any contention in the suite, so only real exclusion failures fail tests.
_PATIENT = LockPolicy(wait_time_ms=30_000, num_retries=0, retry_wait_time_ms=10, max_retry_wait_time_ms=10)


@runtime_checkable
class StoppableHeartbeat(Protocol):
    """A lease-based provider whose renewals can be stopped without releasing the lease."""

    def stop_heartbeat(self) -> None:
        """Stop renewing; the lease lapses as if the holder had died."""


def increment_counter(counter: Path, lock: LockProvider, times: int, inside: list[int] | None = None) -> None:
    """Add 1 to the integer in ``counter`` ``times`` times, each read-modify-write under the lock.

    The pause between read and write makes a lost update certain if two holders ever overlap.
    ``inside`` (threads only) counts holders inside the critical section; it must never exceed 1.
    """
    for _ in range(times):
        with table_lock(lock, table=_TABLE, policy=_PATIENT) as held:
            if inside is not None:
                inside[0] += 1
                inside[1] = max(inside[1], inside[0])
            value = int(counter.read_text() or "0")
            time.sleep(0.01)
            held.ensure_held()
            counter.write_text(str(value + 1))
            if inside is not None:
                inside[0] -= 1


def spawned_increment(spawn_lock: Callable[[str], LockProvider], owner: str, counter: str, times: int) -> None:
    """Process entry point of the cross-process test: open a provider here and increment."""
    lock = spawn_lock(owner)
    try:
        increment_counter(Path(counter), lock, times)
    finally:
        lock.unlock()


class LockProviderContract:
    """Every test runs against providers opened by the subclass's ``open_lock`` fixture."""

    #: Lease duration configured by ``open_lock``; None when the provider has no lease.
    LEASE_S: ClassVar[float | None] = None
    #: Threads and increments per thread of the contention test.
    THREADS: ClassVar[int] = 4
    INCREMENTS: ClassVar[int] = 5

    @pytest.fixture
    def spawn_lock(self) -> Callable[[str], LockProvider] | None:
        """Override to run the cross-process contention test."""
        return None

    @pytest.fixture
    def writers(self, open_lock: OpenLock) -> Iterator[Callable[[str], LockProvider]]:
        """Open writers by owner id; every one is unlocked (heartbeat stopped) at teardown."""
        opened: list[LockProvider] = []

        def open_writer(owner: str) -> LockProvider:
            lock = open_lock(owner)
            opened.append(lock)
            return lock

        yield open_writer
        for lock in opened:
            lock.unlock()

    def _stop_heartbeat(self, lock: LockProvider) -> None:
        assert isinstance(lock, StoppableHeartbeat), "lease-based providers must offer stop_heartbeat()"
        lock.stop_heartbeat()

    # ------------------------------------------------------------------ basics
    def test_lock_unlock(self, writers: Callable[[str], LockProvider]) -> None:
        a = writers("writer-a")
        assert not a.is_held()
        assert a.try_lock(0)
        assert a.is_held()
        assert a.try_lock(0), "try_lock by the holder itself succeeds"
        a.unlock()
        assert not a.is_held()

    def test_try_lock_zero_is_false_while_held(self, writers: Callable[[str], LockProvider]) -> None:
        a, b = writers("writer-a"), writers("writer-b")
        assert a.try_lock(0)
        started = time.monotonic()
        assert not b.try_lock(0)
        assert time.monotonic() - started < 1.0, "try_lock(0) must not wait"
        assert not b.is_held()
        a.unlock()
        assert b.try_lock(0)

    def test_try_lock_waits_for_its_timeout(self, writers: Callable[[str], LockProvider]) -> None:
        a, b = writers("writer-a"), writers("writer-b")
        assert a.try_lock(0)
        started = time.monotonic()
        assert not b.try_lock(0.3)
        assert time.monotonic() - started >= 0.29

    def test_waiter_gets_the_lock_once_released(self, writers: Callable[[str], LockProvider]) -> None:
        a, b = writers("writer-a"), writers("writer-b")
        assert a.try_lock(0)
        got: list[bool] = []
        waiter = threading.Thread(target=lambda: got.append(b.try_lock(10)))
        waiter.start()
        time.sleep(0.2)
        assert not got, "the waiter must not get the lock while it is held"
        a.unlock()
        waiter.join(15)
        assert got == [True]
        assert b.is_held()

    def test_unlock_is_idempotent(self, writers: Callable[[str], LockProvider]) -> None:
        a, b = writers("writer-a"), writers("writer-b")
        a.unlock()  # never locked
        assert a.try_lock(0)
        a.unlock()
        a.unlock()
        assert not a.is_held()
        assert b.try_lock(0)

    def test_unlock_by_non_holder_keeps_the_lock(self, writers: Callable[[str], LockProvider]) -> None:
        a, b, c = writers("writer-a"), writers("writer-b"), writers("writer-c")
        assert a.try_lock(0)
        b.unlock()
        assert a.is_held()
        assert not c.try_lock(0)

    # ------------------------------------------------------------------ the guard
    def test_guard_times_out_naming_table_and_holder(self, writers: Callable[[str], LockProvider]) -> None:
        a, b = writers("writer-a"), writers("writer-b")
        assert a.try_lock(0)
        policy = LockPolicy(wait_time_ms=50, num_retries=1, retry_wait_time_ms=10, max_retry_wait_time_ms=10)
        with pytest.raises(LockAcquireTimeoutError) as info, table_lock(b, table=_TABLE, policy=policy):
            pytest.fail("the guard must not enter while another writer holds the lock")
        assert info.value.table == _TABLE
        assert info.value.holder == "writer-a"
        assert info.value.attempts == 2
        assert "writer-a" in str(info.value)

    def test_guard_releases_on_error(self, writers: Callable[[str], LockProvider]) -> None:
        a, b = writers("writer-a"), writers("writer-b")
        with pytest.raises(RuntimeError), table_lock(a, table=_TABLE, policy=_PATIENT):
            raise RuntimeError("write failed")
        assert not a.is_held()
        assert b.try_lock(0)

    def test_ensure_held_fails_after_unlock(self, writers: Callable[[str], LockProvider]) -> None:
        a = writers("writer-a")
        with table_lock(a, table=_TABLE, policy=_PATIENT, owner="writer-a") as held:
            held.ensure_held()
            a.unlock()
            with pytest.raises(LockLostError, match="writer-a"):
                held.ensure_held()

    # ------------------------------------------------------------------ contention
    def test_contention_never_loses_an_update(self, writers: Callable[[str], LockProvider], tmp_path: Path) -> None:
        counter = tmp_path / "counter"
        counter.write_text("0")
        inside = [0, 0]  # current, maximum
        errors: list[BaseException] = []
        locks = [writers(f"writer-{i}") for i in range(self.THREADS)]

        def run(lock: LockProvider) -> None:
            try:
                increment_counter(counter, lock, self.INCREMENTS, inside)
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=run, args=(lock,)) for lock in locks]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors, errors
        assert inside[1] == 1, "two holders were inside the critical section at once"
        assert int(counter.read_text()) == self.THREADS * self.INCREMENTS

    def test_contention_across_processes(
        self, spawn_lock: Callable[[str], LockProvider] | None, tmp_path: Path
    ) -> None:
        if spawn_lock is None:
            pytest.skip("this provider does not exclude writers in other processes (or the run opts out)")
        counter = tmp_path / "counter"
        counter.write_text("0")
        processes, times = 2, 3
        ctx = multiprocessing.get_context("spawn")
        procs = [
            ctx.Process(target=spawned_increment, args=(spawn_lock, f"process-{i}", str(counter), times))
            for i in range(processes)
        ]
        for p in procs:
            p.start()
        for p in procs:
            p.join(120)
        assert [p.exitcode for p in procs] == [0] * processes
        assert int(counter.read_text()) == processes * times

    # ------------------------------------------------------------------ leases
    def test_renewal_keeps_the_lease(self, writers: Callable[[str], LockProvider]) -> None:
        if self.LEASE_S is None:
            pytest.skip("no lease")
        a, b = writers("writer-a"), writers("writer-b")
        assert a.try_lock(0)
        time.sleep(self.LEASE_S * 2.5)
        assert a.is_held(), "the heartbeat must keep the lease"
        assert not b.try_lock(0)

    def test_dead_holder_blocks_until_its_lease_expires(self, writers: Callable[[str], LockProvider]) -> None:
        a, b = writers("writer-a"), writers("writer-b")
        # The lease runs from a moment inside try_lock: its start is the earliest bound the caller
        # knows (after the call, a slow store would already have eaten into the lease).
        began = time.monotonic()
        assert a.try_lock(0)
        if self.LEASE_S is None:
            # Without a lease the holder only dies with its process; a live process keeps the lock.
            assert not b.try_lock(0.3)
            assert a.is_held()
            return
        self._stop_heartbeat(a)
        assert not b.try_lock(self.LEASE_S * 0.5), "taken over before the lease expired"
        assert b.try_lock(self.LEASE_S * 4 + 5), "not taken over after the lease expired"
        assert time.monotonic() - began >= self.LEASE_S * 0.95

    def test_holder_that_lost_its_lease_cannot_commit(self, writers: Callable[[str], LockProvider]) -> None:
        if self.LEASE_S is None:
            pytest.skip("no lease to lose")
        a, b, c = writers("writer-a"), writers("writer-b"), writers("writer-c")
        assert a.try_lock(0)
        held = HeldLock(a, _TABLE, "writer-a")
        held.ensure_held()
        self._stop_heartbeat(a)  # a stalls (GC pause, partition) while it still thinks it holds the lock
        assert b.try_lock(self.LEASE_S * 4 + 5)
        assert not a.is_held(), "fencing: the stalled holder must see its lease as lost"
        with pytest.raises(LockLostError):
            held.ensure_held()
        a.unlock()  # a's late release must not free b's lock
        assert b.is_held()
        assert not c.try_lock(0)
