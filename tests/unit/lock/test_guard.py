"""The lock guard: attempts, back-off, typed timeout and fencing errors."""

from __future__ import annotations

import pytest

from hudi_framework.config import LockSettings
from hudi_framework.contracts.lock import LockProvider
from hudi_framework.errors import ConcurrencyError, LockAcquireTimeoutError, LockAcquisitionError, LockLostError
from hudi_framework.lock import LockPolicy, acquire, table_lock


class ScriptedLock(LockProvider):
    """Answers try_lock from a script and records every call."""

    def __init__(self, answers: list[bool], holder: str | None = "host/1/abc") -> None:
        self.answers = answers
        self.timeouts: list[float] = []
        self.unlocks = 0
        self.held = False
        self.holder = holder

    def try_lock(self, timeout_s: float) -> bool:
        self.timeouts.append(timeout_s)
        self.held = self.answers.pop(0)
        return self.held

    def unlock(self) -> None:
        self.unlocks += 1
        self.held = False

    def is_held(self) -> bool:
        return self.held

    def last_holder(self) -> str | None:
        return self.holder


FAST = LockPolicy(wait_time_ms=25, num_retries=2, retry_wait_time_ms=1, max_retry_wait_time_ms=2)


def test_policy_from_settings() -> None:
    settings = LockSettings(wait_time_ms=5, num_retries=3, retry_wait_time_ms=7, max_retry_wait_time_ms=9)
    assert LockPolicy.from_settings(settings) == LockPolicy(5, 3, 7, 9)


def test_acquire_retries_then_succeeds() -> None:
    lock = ScriptedLock([False, False, True])
    acquire(lock, FAST, table="t")
    assert lock.timeouts == [0.025, 0.025, 0.025]


def test_acquire_gives_up_after_one_plus_num_retries_attempts() -> None:
    lock = ScriptedLock([False] * 3)
    with pytest.raises(LockAcquireTimeoutError) as info:
        acquire(lock, FAST, table="s3://bucket/trips")
    err = info.value
    assert (err.table, err.holder, err.attempts) == ("s3://bucket/trips", "host/1/abc", 3)
    assert isinstance(err, LockAcquisitionError)
    assert isinstance(err, ConcurrencyError)
    assert "s3://bucket/trips" in str(err)
    assert "host/1/abc" in str(err)
    assert len(lock.timeouts) == 3


def test_timeout_error_with_unknown_holder() -> None:
    with pytest.raises(LockAcquireTimeoutError, match="unknown holder"):
        acquire(ScriptedLock([False], holder=None), LockPolicy(1, 0, 1, 1), table="t")


def test_table_lock_unlocks_after_body_and_on_error() -> None:
    lock = ScriptedLock([True, True])
    with table_lock(lock, table="t", policy=FAST) as held:
        held.ensure_held()
        assert held.provider is lock
    assert lock.unlocks == 1
    with pytest.raises(ValueError, match="boom"), table_lock(lock, table="t", policy=FAST):
        raise ValueError("boom")
    assert lock.unlocks == 2


def test_ensure_held_raises_lock_lost_naming_table_and_owner() -> None:
    lock = ScriptedLock([True])
    with table_lock(lock, table="trips", policy=FAST, owner="host/2/def") as held:
        lock.held = False  # the lease lapsed
        with pytest.raises(LockLostError) as info:
            held.ensure_held()
    assert (info.value.table, info.value.owner) == ("trips", "host/2/def")
