"""Incremental clean planning: which partitions can have something new to clean (Java ``CleanPlanner``).

A slice becomes cleanable when a newer slice of its file group was written before the earliest
retained commit ``E``. Slices whose successor was written before the previous clean's ``E`` were
cleaned then, so only partitions written by commits in ``[previous E, new E)`` need listing, plus
those of savepoints deleted since the previous clean (their files were kept then). Commits are read
from their metadata (written and replaced partitions). The full listing is used instead when there
is no usable previous clean: none, one without a retained commit, one whose retained commit was
archived since (the commits after it are no longer all on the active timeline), or a deleted
savepoint whose commit is gone. ``KEEP_LATEST_FILE_VERSIONS`` always lists every partition, as in Apache Hudi.
"""

from __future__ import annotations

from hudi_framework.contracts.clean import CleanHost

__all__ = ["partitions_to_clean"]


def partitions_to_clean(host: CleanHost, retain_from: str, savepoints: list[str]) -> list[str] | None:
    """Partitions an incremental plan lists, or None when every partition must be listed.

    Args:
        host: The table, as the kernel hands it to the service.
        retain_from: Requested time of the new earliest retained commit.
        savepoints: Savepointed instants now.
    """
    last = host.last_clean()
    if last is None or not last.earliest_commit_to_retain:
        return None
    commits = host.commits()
    if commits and last.earliest_commit_to_retain < commits[0].requested_time:
        return None
    out: set[str] = set()
    for commit in commits:
        if last.earliest_commit_to_retain <= commit.requested_time < retain_from:
            out |= host.partitions_written(commit)
    kept_before = set(last.savepointed_timestamps)
    by_time = {c.requested_time: c for c in commits}
    for removed in sorted(kept_before - set(savepoints)):
        savepointed = by_time.get(removed)
        if savepointed is None:
            return None
        out |= host.partitions_written(savepointed)
    return sorted(out)
