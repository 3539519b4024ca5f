"""LeaseKeeper: local validity, renewals, loss on a failed or impossible renewal."""

from __future__ import annotations

import time
from collections.abc import Callable

from hudi_framework.lock import LeaseKeeper


def _keeper(lease_s: float = 0.5) -> LeaseKeeper:
    return LeaseKeeper(lease_s=lease_s, renew_interval_s=0.05, margin_s=0.1, name="test")


def _wait_until(condition: Callable[[], bool], timeout_s: float = 3.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def test_renewals_keep_it_valid_and_stop_keeps_it_until_it_lapses() -> None:
    keeper = _keeper()
    renewals: list[float] = []

    def renew() -> bool:
        renewals.append(time.monotonic())
        return True

    keeper.begin(time.monotonic(), renew)
    time.sleep(0.8)
    assert keeper.is_valid()
    assert len(renewals) >= 5
    keeper.stop()
    assert keeper.is_valid()
    assert _wait_until(lambda: not keeper.is_valid())
    assert "expired" in keeper.lost_reason()


def test_taken_over_lease_is_lost_at_once() -> None:
    keeper = _keeper(lease_s=10)
    keeper.begin(time.monotonic(), lambda: False)
    assert _wait_until(lambda: not keeper.is_valid(), 1.0)
    assert "taken over" in keeper.lost_reason()
    assert keeper.remaining_s() == 0


def test_transient_failures_are_retried_until_the_lease_lapses() -> None:
    keeper = _keeper(lease_s=0.4)
    calls: list[int] = []

    def failing() -> bool:
        calls.append(1)
        raise OSError("network down")

    keeper.begin(time.monotonic(), failing)
    assert _wait_until(lambda: not keeper.is_valid())
    assert len(calls) >= 2
    keeper.end()
    assert keeper.lost_reason()


def test_end_forgets_the_lease() -> None:
    keeper = _keeper(lease_s=10)
    keeper.begin(time.monotonic(), lambda: True)
    keeper.end()
    assert not keeper.is_valid()
    assert keeper.lost_reason() == "released"
