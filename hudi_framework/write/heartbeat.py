"""Write heartbeats: ``.hoodie/.heartbeat/<instant>``, refreshed while a write runs.

A running write rewrites its heartbeat file every ``hoodie.client.heartbeat.interval_in_ms`` from a
daemon thread and deletes it when it commits or aborts. Another writer (LAZY failed-writes policy)
treats an unfinished instant as failed once its heartbeat is older than ``tolerable.misses``
intervals. The file body is the beat's epoch milliseconds; its modification time says the same on
stores without reliable bodies, and the later of the two counts. An instant without a heartbeat
file is judged by its requested time, so a write is never mistaken for a dead one in the moment
between creating its instant and its first beat.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hudi_framework.errors import StorageNotFoundError
from hudi_framework.timeline.instant_time import instant_time_to_epoch_ms
from hudi_framework.vocabulary import TimelineTimezone

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend

__all__ = [
    "HEARTBEAT_ROOT",
    "Heartbeat",
    "HeartbeatPolicy",
    "heartbeat_key",
    "is_heartbeat_expired",
    "last_heartbeat_ms",
]

HEARTBEAT_ROOT: Final = ".hoodie/.heartbeat"


def heartbeat_key(instant: str) -> str:
    """The heartbeat file of one write."""
    return f"{HEARTBEAT_ROOT}/{instant}"


@dataclass(frozen=True, slots=True)
class HeartbeatPolicy:
    """Beat interval and how many missed beats mean a dead writer (Apache Hudi defaults: 60 s, 2).

    Attributes:
        interval_ms: ``hoodie.client.heartbeat.interval_in_ms``.
        tolerable_misses: ``hoodie.client.heartbeat.tolerable.misses``.
    """

    interval_ms: int = 60_000
    tolerable_misses: int = 2

    @property
    def expiry_ms(self) -> int:
        """Age after which a heartbeat is expired."""
        return self.interval_ms * self.tolerable_misses


def _now_ms() -> int:
    return int(time.time() * 1000)


def last_heartbeat_ms(storage: StorageBackend, instant: str) -> int | None:
    """Epoch milliseconds of the last beat of ``instant``; None without a heartbeat file."""
    key = heartbeat_key(instant)
    try:
        info = storage.info(key)
        body = storage.read(key)
    except StorageNotFoundError:
        return None
    beat = int(info.modified.timestamp() * 1000)
    text = body.decode("ascii", errors="replace").strip()
    return max(beat, int(text)) if text.isdigit() else beat


def is_heartbeat_expired(
    storage: StorageBackend,
    instant: str,
    policy: HeartbeatPolicy,
    *,
    timezone: TimelineTimezone = TimelineTimezone.LOCAL,
    now_ms: int | None = None,
) -> bool:
    """Whether the write ``instant`` stopped beating more than ``policy.expiry_ms`` ago.

    Without a heartbeat file the instant's requested time stands in for its last beat.
    """
    last = last_heartbeat_ms(storage, instant)
    if last is None:
        try:
            last = instant_time_to_epoch_ms(instant, timezone)
        except ValueError:
            return True
    now = _now_ms() if now_ms is None else now_ms
    return now - last > policy.expiry_ms


class Heartbeat:
    """The heartbeat of one running write: a daemon thread rewriting the file until :meth:`stop`."""

    def __init__(self, storage: StorageBackend, instant: str, policy: HeartbeatPolicy) -> None:
        """Prepare (not start) the heartbeat of ``instant``."""
        self._storage = storage
        self._instant = instant
        self._policy = policy
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def key(self) -> str:
        """The heartbeat file."""
        return heartbeat_key(self._instant)

    @property
    def running(self) -> bool:
        """Whether the beating thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def beat(self) -> None:
        """Write one beat now."""
        self._storage.write(self.key, str(_now_ms()).encode("ascii"))

    def start(self) -> Heartbeat:
        """Write the first beat, then keep beating from a daemon thread."""
        if self._thread is not None:
            raise RuntimeError(f"heartbeat of {self._instant} already started")
        self.beat()
        self._thread = threading.Thread(target=self._run, name=f"hudi-heartbeat-{self._instant}", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stopped.wait(self._policy.interval_ms / 1000):
            # A failed beat (a storage hiccup) is retried at the next interval; only sustained
            # failure lets the heartbeat expire, which is what expiry is meant to detect.
            with contextlib.suppress(Exception):
                self.beat()

    def stop(self) -> None:
        """Stop beating and delete the heartbeat file (at commit or abort); idempotent."""
        self._stopped.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        self._storage.delete(self.key, missing_ok=True)
