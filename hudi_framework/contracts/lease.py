"""Keeping a lease alive: local validity with a clock-drift margin and a renewing heartbeat thread.

Lease-based providers (``storage``, ``dynamodb``) share this mechanism. The holder never trusts a
remote clock: its lease is valid until ``sent + lease_s - margin_s`` on its own monotonic clock,
where ``sent`` is when the request that acquired or last renewed the lease was *sent* (the lease
started no earlier). Others take the lease over only ``margin_s`` after it expired by their own
clock, so as long as clocks disagree by less than ``margin_s`` a holder stops believing it holds the
lock before anyone else can take it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

__all__ = ["LeaseKeeper", "Renewal"]

_log = logging.getLogger(__name__)

#: A renewal: returns False when the lease is definitively gone (taken over, released by someone
#: else); raises on a transient failure, which is retried while the lease is still valid.
Renewal = Callable[[], bool]


class LeaseKeeper:
    """Local view of one lease plus the daemon thread that renews it.

    Thread-safe: the heartbeat thread and the owning writer both read and update it.
    """

    def __init__(self, *, lease_s: float, renew_interval_s: float, margin_s: float, name: str) -> None:
        """Describe the lease timing.

        Args:
            lease_s: How long one acquisition or renewal keeps the lease.
            renew_interval_s: Time between renewals; well below ``lease_s - margin_s``.
            margin_s: Clock-drift margin (see the module docstring).
            name: Names the heartbeat thread (``hudi-lock-heartbeat-<name>``).
        """
        self._lease_s = lease_s
        self._interval_s = renew_interval_s
        self._margin_s = margin_s
        self._name = name
        self._mutex = threading.Lock()
        self._valid_until = 0.0
        self._lost: str | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def begin(self, sent_at: float, renew: Renewal) -> None:
        """Record a fresh acquisition (request sent at monotonic ``sent_at``) and start renewing."""
        self.stop()
        with self._mutex:
            self._valid_until = sent_at + self._lease_s - self._margin_s
            self._lost = None
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, args=(renew, self._stop), name=f"hudi-lock-heartbeat-{self._name}", daemon=True
        )
        self._thread.start()

    def extend(self, sent_at: float) -> None:
        """Record a successful renewal whose request was sent at monotonic ``sent_at``."""
        with self._mutex:
            if self._lost is None:
                self._valid_until = max(self._valid_until, sent_at + self._lease_s - self._margin_s)

    def mark_lost(self, reason: str) -> None:
        """The lease is gone for good; :meth:`is_valid` is False from now on."""
        with self._mutex:
            if self._lost is None:
                self._lost = reason
            self._valid_until = 0.0

    def is_valid(self) -> bool:
        """Whether the lease is still ours by local, conservative timing."""
        with self._mutex:
            return self._lost is None and time.monotonic() < self._valid_until

    def remaining_s(self) -> float:
        """Seconds of local validity left (0 when lost or lapsed)."""
        with self._mutex:
            return 0.0 if self._lost is not None else max(0.0, self._valid_until - time.monotonic())

    def lost_reason(self) -> str:
        """Why the lease is not valid (``""`` while it is)."""
        with self._mutex:
            if self._lost is not None:
                return self._lost
            return "" if time.monotonic() < self._valid_until else "the lease expired before it was renewed"

    def stop(self) -> None:
        """Stop renewing (without invalidating) and wait for an in-flight renewal to finish."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def end(self) -> None:
        """Stop renewing and forget the lease (after a release)."""
        self.stop()
        self.mark_lost("released")

    def _run(self, renew: Renewal, stop: threading.Event) -> None:
        wait = self._interval_s
        while not stop.wait(wait):
            sent = time.monotonic()
            if not self.is_valid():
                self.mark_lost("the lease expired before it could be renewed")
                return
            try:
                renewed = renew()
            except Exception as e:  # transient (network, throttling): retry sooner while still valid
                _log.warning("lock heartbeat %s: renewal failed, retrying: %s", self._name, e)
                wait = max(0.01, min(self._interval_s, self.remaining_s() / 4))
                continue
            if not renewed:
                self.mark_lost("the lease was taken over or released by another holder")
                return
            self.extend(sent)
            wait = self._interval_s
