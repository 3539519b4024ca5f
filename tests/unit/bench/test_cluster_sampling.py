"""What the cluster benchmark samples: a driver's tree apart from the workers' trees, and PSS, which
counts a page that a forked process shares with its parent once where RSS counts it in each."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.cluster_write_memory import ClusterSampler
from bench.proctree import descendants, pss_bytes

pytestmark = pytest.mark.skipif(not Path("/proc/self/smaps_rollup").exists(), reason="reads /proc (Linux)")

_MB = 1 << 20
#: A process holding 64 MB (touched), forked once: parent and child share those pages until stdin closes.
FORKED_HOLDER = (
    "import os, sys\n"
    "b = bytearray(64 << 20)\n"
    "b[:] = b'x' * len(b)\n"
    "if os.fork() == 0:\n"
    "    sys.stdin.read(); os._exit(0)\n"
    "print('ready', flush=True); sys.stdin.read(); os.wait()\n"
)


def _started(code: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"ready\n"
    return proc


def _holder() -> Iterator[subprocess.Popen[bytes]]:
    proc = _started(FORKED_HOLDER)
    try:
        yield proc
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)


forked = pytest.fixture(_holder, name="forked")
other = pytest.fixture(_holder, name="other")


def test_pss_counts_a_page_shared_with_a_forked_child_once(forked: subprocess.Popen[bytes]) -> None:
    [child] = descendants(forked.pid)
    parent_rss = int(Path(f"/proc/{forked.pid}/statm").read_text().split()[1]) * 4096
    rss = parent_rss + child.rss_bytes
    pss = pss_bytes(forked.pid) + pss_bytes(child.pid)
    assert rss >= 128 * _MB  # both count the 64 MB
    assert 64 * _MB <= pss < rss - 48 * _MB  # counted once between them


def test_the_driver_tree_and_the_workers_trees_are_sampled_apart(
    forked: subprocess.Popen[bytes], other: subprocess.Popen[bytes]
) -> None:
    with ClusterSampler(forked.pid, [other.pid], interval=0.01) as sampler:
        pass
    peak = sampler.peak
    assert peak.samples >= 1
    assert peak.tree_mb >= 128  # the driver and its forked worker, RSS added up
    assert 64 <= peak.tree_pss_mb < peak.tree_mb - 48
    assert peak.python_workers == 1
    assert peak.python_worker_mb >= 64
    assert peak.jvm_mb == 0
    # ``other`` stands for a Spark worker: its child (an "executor", 64 MB) counts apart, the worker not.
    assert 64 <= peak.executors_tree_mb < 128
    assert len(peak.at_peak) == 1
    assert peak.at_peak[0].startswith(f"{descendants(forked.pid)[0].pid}<{forked.pid} ")
