"""Run in child processes by test_multiprocess.py (must be importable, hence its own module)."""

from __future__ import annotations

from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_storage_local.backend import LocalStorageBackend


def create_instants(root: str, layout: int, count: int) -> list[tuple[str, str | None]]:
    """Create and complete ``count`` commits; return their (requested, completion) times in order."""
    writer = TimelineWriter(LocalStorageBackend(root), layout_version=layout)
    out = []
    for _ in range(count):
        requested = writer.create_requested(Action.COMMIT)
        done = writer.complete(writer.transition_to_inflight(requested))
        out.append((done.requested_time, done.completion_time))
    return out
