"""Which file slices of one file group a clean deletes, per policy (Java ``CleanPlanner``).

Slices are given oldest first, as the file-system view lists them (a pending compaction's slice,
empty or with new log files, included). Deleting a slice deletes its base file and its log files.
Three rules hold under every policy:

* a slice with any file named in a savepoint is kept;
* the slice a pending compaction or log compaction reads, and every newer slice, are kept;
* the latest slice is kept.

``KEEP_LATEST_COMMITS`` / ``KEEP_LATEST_BY_HOURS`` keep every slice whose base instant is at or
after the earliest retained commit ``E``, plus the newest slice older than ``E`` (the one a query
as of ``E`` reads), so snapshot, time-travel and incremental queries over every retained commit
still find their files. ``KEEP_LATEST_FILE_VERSIONS`` keeps the newest ``n`` slices (the pending
compaction's slices count as one). A file group replaced by a completed replacecommit is deleted
whole once the replacement is older than ``E`` (any replaced group for ``KEEP_LATEST_FILE_VERSIONS``).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from hudi_framework.contracts.clean import ServiceFileSlice

#: The slice type of the caller (the kernel's file slices).
SliceT = TypeVar("SliceT", bound=ServiceFileSlice)

__all__ = [
    "SliceGuard",
    "replaced_slices_to_clean",
    "slices_to_clean_by_commits",
    "slices_to_clean_by_versions",
]


@dataclass(frozen=True, slots=True)
class SliceGuard:
    """What protects slices from every policy.

    Attributes:
        savepointed_files: File names listed by any savepoint.
        pending_compaction_bases: File group -> base instant of the slice its pending compaction
            (or log compaction) reads.
    """

    savepointed_files: Collection[str] = frozenset()
    pending_compaction_bases: Mapping[Hashable, str] = field(default_factory=dict)

    def is_savepointed(self, file_slice: ServiceFileSlice) -> bool:
        """Whether the slice's base file or any of its log files is savepointed."""
        names = self.savepointed_files
        if file_slice.base_file_name is not None and file_slice.base_file_name in names:
            return True
        return any(name in names for name in file_slice.log_file_names)

    def needed_for_compaction(self, file_slice: ServiceFileSlice) -> bool:
        """Whether a pending (log) compaction reads this slice or wrote it (base at or after its input)."""
        base = self.pending_compaction_bases.get(file_slice.file_group_id)
        return base is not None and file_slice.base_instant_time >= base

    def in_pending_compaction(self, group: Hashable) -> bool:
        """Whether the file group has a pending (log) compaction."""
        return group in self.pending_compaction_bases


def slices_to_clean_by_commits(slices: Sequence[SliceT], retain_from: str, guard: SliceGuard) -> list[SliceT]:
    """Slices of one live file group older than the retained history (``KEEP_LATEST_COMMITS`` / ``BY_HOURS``).

    Args:
        slices: The group's slices, oldest first.
        retain_from: Requested time of the earliest retained commit.
        guard: Savepoints and pending compactions.
    """
    if not slices:
        return []
    latest = slices[-1].base_instant_time
    older = [s.base_instant_time for s in slices if s.base_instant_time < retain_from]
    serving = older[-1] if older else None  # what a query as of ``retain_from`` reads
    out: list[SliceT] = []
    for file_slice in slices:
        base = file_slice.base_instant_time
        if guard.is_savepointed(file_slice) or base in (latest, serving):
            continue
        if not guard.needed_for_compaction(file_slice) and base < retain_from:
            out.append(file_slice)
    return out


def slices_to_clean_by_versions(slices: Sequence[SliceT], versions: int, guard: SliceGuard) -> list[SliceT]:
    """Slices of one live file group beyond the newest ``versions`` (``KEEP_LATEST_FILE_VERSIONS``).

    Args:
        slices: The group's slices, oldest first.
        versions: Slices to keep.
        guard: Savepoints and pending compactions.
    """
    candidates = [s for s in reversed(slices) if not guard.needed_for_compaction(s)]
    keep = versions
    if slices and guard.in_pending_compaction(slices[0].file_group_id):
        keep -= 1  # the compaction's own slices stand for the newest version
    return [s for s in candidates[max(keep, 0) :] if not guard.is_savepointed(s)]


def replaced_slices_to_clean(slices: Sequence[SliceT], guard: SliceGuard) -> list[SliceT]:
    """Every slice of a replaced file group that no savepoint names."""
    return [s for s in slices if not guard.is_savepointed(s)]
