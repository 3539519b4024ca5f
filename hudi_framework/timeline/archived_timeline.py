"""The archived timeline as instants: what reads reaching before the active timeline ask of it.

Built from the :class:`~hudi_framework.timeline.archive.ArchivedInstant` records of either archive
format; the contents are decoded with the active timeline's decoders (each archive format re-encodes
them as the table's active timeline does). Instants of an action this project does not know are left
out.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING, Final

from hudi_framework.errors import InstantNotFoundError
from hudi_framework.timeline.archive import ArchivedInstant
from hudi_framework.timeline.clean_metadata import CleanMetadata, decode_clean_metadata
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_framework.timeline.metadata import CommitMetadata, decode_commit_metadata, decode_written_files

if TYPE_CHECKING:
    from hudi_framework.timeline.timeline import Timeline

__all__ = ["ArchivedTimeline", "timeline_start"]

_NO_METADATA: Final = b""


class ArchivedTimeline:
    """Completed instants of an archive, oldest requested time first, with their contents."""

    def __init__(self, archived: Iterable[ArchivedInstant], *, path: str = "<archive>") -> None:
        """Index ``archived`` (as an archive format's ``read`` returns it); ``path`` names the archive in errors."""
        self._path = path
        self._content: dict[Instant, bytes] = {}
        for record in archived:
            try:
                action = Action(record.action).completes_as
            except ValueError:
                continue
            instant = Instant(record.requested_time, action, State.COMPLETED, record.completion_time)
            self._content[instant] = record.metadata or _NO_METADATA
        self._instants = tuple(sorted(self._content, key=lambda i: (i.requested_time, i.action.value)))

    @property
    def instants(self) -> tuple[Instant, ...]:
        """Every archived instant, by requested time."""
        return self._instants

    def __len__(self) -> int:
        """The number of archived instants."""
        return len(self._instants)

    def completed(self, actions: Collection[Action] | None = None, *, as_of: str | None = None) -> list[Instant]:
        """Archived instants of ``actions`` (all if None) requested at or before ``as_of``."""
        return [
            i
            for i in self._instants
            if (actions is None or i.action in actions) and (as_of is None or i.requested_time <= as_of)
        ]

    def commits_timeline(self, *, as_of: str | None = None) -> list[Instant]:
        """Archived commits, delta commits and replacecommits."""
        return self.completed(WRITE_ACTIONS, as_of=as_of)

    def _data(self, instant: Instant) -> bytes:
        data = self._content.get(instant)
        if data is None:
            raise InstantNotFoundError(f"instant {instant} is not in the archive {self._path}")
        return data

    def _where(self, instant: Instant) -> str:
        return f"{self._path} ({instant})"

    def read_commit_metadata(self, instant: Instant) -> CommitMetadata:
        """The commit metadata of an archived write.

        Raises:
            InstantNotFoundError: Not an archived instant.
            InstantMetadataError: Undecodable content.
        """
        replace = True if instant.action is Action.REPLACE_COMMIT else None
        return decode_commit_metadata(self._data(instant), replace=replace, path=self._where(instant))

    def written_files(self, instants: Iterable[Instant]) -> dict[Instant, tuple[tuple[str, str], ...]]:
        """``(partition path, file name)`` of every file each archived write's metadata names."""
        return {i: decode_written_files(self._data(i), path=self._where(i)) for i in instants}

    def replaced_file_groups(self, as_of: str | None = None) -> dict[tuple[str, str], Instant]:
        """File groups replaced by archived replacecommits (requested at or before ``as_of``), with
        the earliest replacecommit that replaced each."""
        out: dict[tuple[str, str], Instant] = {}
        for inst in self.completed({Action.REPLACE_COMMIT}, as_of=as_of):
            parts = getattr(self.read_commit_metadata(inst), "partition_to_replace_file_ids", None) or {}
            for partition, ids in parts.items():
                for file_id in ids:
                    out.setdefault((partition, file_id), inst)
        return out

    def clean_metadata(self, instant: Instant) -> CleanMetadata | None:
        """The metadata of an archived clean, or None if the archive kept none."""
        data = self._data(instant)
        return decode_clean_metadata(data, path=self._where(instant)) if data else None


def timeline_start(timeline: Timeline) -> str | None:
    """Where the active timeline starts: files of older instants were written by archived commits.

    Java's ``isBeforeTimelineStarts`` takes the first completed write that is not savepointed (an
    archival beyond a savepoint leaves the savepointed commit behind, older than the rest). Pending
    writes count here too, which Java leaves out: a failed write older than every completed one then
    stays uncommitted instead of counting as archived (the archiver never passes a pending write).
    """
    savepoints = {i.requested_time for i in timeline.completed({Action.SAVEPOINT})}
    for inst in timeline.commits_timeline(include_pending=True):
        if not (inst.is_completed and inst.requested_time in savepoints):
            return inst.requested_time
    return None
