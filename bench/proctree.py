"""CPU time and resident memory of a process's descendants, read from ``/proc`` (Linux).

A Spark step's work happens outside the measured Python process: in the driver JVM (a child of it)
and in the Python workers that JVM forks. ``getrusage`` cannot see them while they live, so the
worker samples the tree: :class:`TreeSampler` keeps the peak RSS of all descendants, and
:func:`descendants_cpu_s` sums their CPU time (including children they have already reaped).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

PROC = Path("/proc")
_TICKS = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class ProcStat:
    """The fields of ``/proc/<pid>/stat`` the benchmark uses."""

    pid: int
    name: str
    ppid: int
    cpu_s: float  #: user + system time, plus that of reaped children
    rss_bytes: int

    @classmethod
    def parse(cls, pid: int, text: str) -> ProcStat:
        # The command name is in parentheses and may itself hold spaces or parentheses.
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        # fields[0] is stat field 3 (state): field n is fields[n - 3].
        utime, stime, cutime, cstime = (int(v) for v in fields[11:15])
        return cls(pid, name, int(fields[1]), (utime + stime + cutime + cstime) / _TICKS, int(fields[21]) * _PAGE)


def _own_status_bytes(field: str) -> int:
    for line in (PROC / "self" / "status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise OSError(f"no {field} in /proc/self/status")


def own_peak_rss_bytes() -> int:
    """This process's peak RSS since it started its program (``VmHWM``).

    Not ``getrusage``'s ``ru_maxrss``: Linux carries that across ``exec``, so a worker would report
    the harness's own peak (the generated inputs) when that is higher than its own.
    """
    return _own_status_bytes("VmHWM")


def own_rss_bytes() -> int:
    """This process's resident memory now (``VmRSS``)."""
    return _own_status_bytes("VmRSS")


def pss_bytes(pid: int) -> int:
    """The proportional set size of ``pid`` (its private pages, plus each shared page divided by the
    number of processes sharing it): summed over a tree, every page counts once, where RSS counts a
    page that forked workers share with their daemon in each of them. 0 if the process has gone."""
    try:
        for line in (PROC / str(pid) / "smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _snapshot() -> dict[int, ProcStat]:
    stats = {}
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stats[int(entry.name)] = ProcStat.parse(int(entry.name), (entry / "stat").read_text())
        except (OSError, ValueError, IndexError):
            continue  # exited while we looked
    return stats


def descendants(pid: int) -> list[ProcStat]:
    """Every live process below ``pid`` (children, their children, ...)."""
    stats = _snapshot()
    children: dict[int, list[int]] = {}
    for stat in stats.values():
        children.setdefault(stat.ppid, []).append(stat.pid)
    found, frontier = [], list(children.get(pid, []))
    while frontier:
        child = frontier.pop()
        found.append(stats[child])
        frontier += children.get(child, [])
    return found


def await_exit(pids: Iterable[int], timeout: float) -> None:
    """Wait until none of ``pids`` (descendants of this process) is running, killing what is left
    after ``timeout`` seconds: the next repetition must not share the cores with a dying session."""
    tree = set(pids)
    deadline = time.monotonic() + timeout
    while True:
        alive = {p.pid for p in descendants(os.getpid())} & tree
        if not alive:
            return
        if time.monotonic() > deadline:
            for pid in alive:
                os.kill(pid, signal.SIGKILL)
            return
        time.sleep(0.1)


def descendants_cpu_s(pid: int | None = None) -> float:
    """CPU seconds of all descendants of ``pid`` (default: this process), living or reaped by another
    descendant, plus those of its own reaped children."""
    pid = os.getpid() if pid is None else pid
    own = (PROC / str(pid) / "stat").read_text()
    reaped = sum(int(v) for v in own[own.rindex(")") + 2 :].split()[13:15]) / _TICKS
    return reaped + sum(s.cpu_s for s in descendants(pid))


@dataclass(frozen=True)
class TreePeak:
    """Peak resident memory of the descendants over the sampled interval, in bytes."""

    total: int = 0  #: all descendants together (the JVM and the Python workers it forked)
    jvm: int = 0  #: the ``java`` processes alone

    def merge(self, total: int, jvm: int) -> TreePeak:
        return TreePeak(max(self.total, total), max(self.jvm, jvm))


class PeriodicSampler:
    """Calls :meth:`sample` every ``interval`` seconds in a daemon thread while used as a context
    manager, and once more on exit (so a short step still gets a sample)."""

    def __init__(self, interval: float, name: str = "bench-rss-sampler") -> None:
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def sample(self) -> None:
        raise NotImplementedError

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            self.sample()

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()
        self.sample()


class TreeSampler(PeriodicSampler):
    """Samples the RSS of this process's descendants every ``interval`` seconds in a daemon thread.

    A sample scans all of ``/proc`` (~8 ms of this process's CPU with ~100 processes): every 200 ms
    keeps that near 4% of one core, taken from both Spark systems alike.

    Use as a context manager; :attr:`peak` holds the highest sums seen (one sample is also taken on
    exit, so a short step still gets one).
    """

    def __init__(self, interval: float = 0.2, pid: int | None = None) -> None:
        super().__init__(interval)
        self._pid = os.getpid() if pid is None else pid
        self.peak = TreePeak()
        self.samples = 0

    def reset(self) -> None:
        """Forget the peak so far (e.g. the session's start-up)."""
        self.peak = TreePeak()

    def sample(self) -> None:
        tree = descendants(self._pid)
        self.peak = self.peak.merge(sum(s.rss_bytes for s in tree), sum(s.rss_bytes for s in tree if s.name == "java"))
        self.samples += 1
