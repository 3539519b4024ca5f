"""Incremental clean planning: which partitions can have something new to clean (Java ``CleanPlanner``).

A slice becomes cleanable when a newer slice of its file group was written before the earliest
retained commit ``E``. Slices whose successor was written before the previous clean's ``E`` were
cleaned then, so only partitions written by commits in ``[previous E, new E)`` need listing, plus
those of savepoints deleted since the previous clean (their files were kept then). Commits are read
from their metadata (written and replaced partitions). The full listing is used instead when there
is no usable previous clean: none, one without a retained commit, or a deleted savepoint whose
commit is gone. ``KEEP_LATEST_FILE_VERSIONS`` always lists every partition, as in Apache Hudi.
"""

from __future__ import annotations

from hudi_framework.services.clean_plan import SAVEPOINTED_TIMESTAMPS
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.timeline import Timeline

__all__ = ["partitions_to_clean"]


def _partitions_of(timeline: Timeline, instant: Instant) -> set[str]:
    metadata = timeline.read_commit_metadata(instant)
    out = set(metadata.partition_to_write_stats or {})
    out |= set(getattr(metadata, "partition_to_replace_file_ids", None) or {})
    return out


def partitions_to_clean(timeline: Timeline, retain_from: str, savepoints: list[str]) -> list[str] | None:
    """Partitions an incremental plan lists, or None when every partition must be listed.

    Args:
        timeline: The table's timeline.
        retain_from: Requested time of the new earliest retained commit.
        savepoints: Savepointed instants now.
    """
    cleans = timeline.completed({Action.CLEAN})
    if not cleans:
        return None
    data = timeline.read_bytes(cleans[-1])
    if not data:
        return None
    last = decode_clean_metadata(data, path=timeline.file_key(cleans[-1]))
    if not last.earliest_commit_to_retain:
        return None
    commits = timeline.commits_timeline()
    out: set[str] = set()
    for commit in commits:
        if last.earliest_commit_to_retain <= commit.requested_time < retain_from:
            out |= _partitions_of(timeline, commit)
    kept_before = {t for t in (last.extra_metadata or {}).get(SAVEPOINTED_TIMESTAMPS, "").split(",") if t}
    by_time = {c.requested_time: c for c in commits}
    for removed in sorted(kept_before - set(savepoints)):
        savepointed = by_time.get(removed)
        if savepointed is None:
            return None
        out |= _partitions_of(timeline, savepointed)
    return sorted(out)
