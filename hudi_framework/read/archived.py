"""The archived timeline of a table, for the reads that reach it.

A table's archive (``hoodie.archivelog.folder`` under ``.hoodie`` on timeline layout 1, the LSM
history ``hoodie.timeline.history.path`` under the timeline folder on layout 2) is read only when a
query reaches before the active timeline: a time travel to an archived instant, an incremental
window starting before the first active commit, ``hudi-fw show timeline --archived``. Snapshot reads
never open it: files of archived instants count as committed because they are older than the active
timeline (Java's ``isBeforeTimelineStarts``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hudi_framework.timeline.archive import ArchivedInstant
from hudi_framework.timeline.archived_timeline import ArchivedTimeline, timeline_start

if TYPE_CHECKING:
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.table.table_config import TableConfig
    from hudi_framework.timeline.instant import Instant
    from hudi_framework.timeline.metadata import CommitMetadata
    from hudi_framework.timeline.timeline import Timeline

__all__ = [
    "CommitHistory",
    "archive_directory",
    "archive_reached",
    "archived_instants",
    "archived_timeline",
    "reaches_archive",
]


def archive_directory(config: TableConfig) -> str:
    """The storage key of the table's archive directory, relative to its base path."""
    return config.archive_directory


def archived_instants(table: HudiTable) -> list[ArchivedInstant]:
    """Every archived instant of ``table`` not also on its active timeline, oldest requested time
    first (none without an archive).

    Raises:
        InstantMetadataError: The archive is damaged.
    """
    return table.archived_instants()


def reaches_archive(table: HudiTable, instant: str | None) -> bool:
    """Whether ``instant`` (None: the beginning of time) is older than the active timeline's start."""
    start = timeline_start(table.timeline)
    return start is not None and (instant is None or instant < start)


def archive_reached(table: HudiTable, instant: str | None) -> ArchivedTimeline | None:
    """The archive as instants when ``instant`` reaches into it and it holds any, else None.

    Raises:
        InstantMetadataError: The archive is damaged.
    """
    if not reaches_archive(table, instant):
        return None
    return CommitHistory.of(table, reached=True).archived


class CommitHistory:
    """The active timeline, with the archived instants before it when a read reaches them.

    Incremental reads ask it for the commits of their window and those commits' metadata, wherever
    the instant is kept.
    """

    def __init__(
        self, timeline: Timeline, archived: ArchivedTimeline | None, *, archive_unreadable: bool = False
    ) -> None:
        """Join ``timeline`` and ``archived`` (None: nothing archived, or not reached)."""
        self.timeline = timeline
        self.archived = archived
        #: The read reached the archive but its format cannot be loaded here.
        self.archive_unreadable = archive_unreadable
        self._in_archive = frozenset(archived.instants) if archived is not None else frozenset()

    @classmethod
    def of(cls, table: HudiTable, reached: bool) -> CommitHistory:
        """The table's history; the archive is read only when ``reached``."""
        if not reached:
            return cls(table.timeline, None)
        try:
            instants = archived_instants(table)
        except ModuleNotFoundError:
            # The archive format of this layout is not installed: reads keep to the active timeline.
            return cls(table.timeline, None, archive_unreadable=True)
        path = table.storage.uri(archive_directory(table.config))
        return cls(table.timeline, ArchivedTimeline(instants, path=path) if instants else None)

    def commits_timeline(self) -> list[Instant]:
        """Completed writes, archived ones first (an instant on both is taken from the active timeline)."""
        active = self.timeline.commits_timeline()
        if self.archived is None:
            return active
        seen = {i.requested_time for i in active}
        older = [i for i in self.archived.commits_timeline() if i.requested_time not in seen]
        return sorted([*older, *active], key=lambda i: i.requested_time)

    def read_commit_metadata(self, instant: Instant) -> CommitMetadata:
        """The commit metadata of a completed write, archived or active."""
        if self.archived is not None and instant in self._in_archive:
            return self.archived.read_commit_metadata(instant)
        return self.timeline.read_commit_metadata(instant)

    def replaced_file_groups(self, as_of: str | None = None) -> dict[tuple[str, str], Instant]:
        """File groups replaced by completed replacecommits at or before ``as_of``, archived or active."""
        out = self.archived.replaced_file_groups(as_of) if self.archived is not None else {}
        for key, inst in self.timeline.replaced_file_groups(as_of).items():
            out.setdefault(key, inst)
        return out


def archived_timeline(table: HudiTable) -> ArchivedTimeline:
    """The table's archived instants as a timeline (empty without an archive).

    Raises:
        InstantMetadataError: The archive is damaged.
    """
    return ArchivedTimeline(archived_instants(table), path=table.storage.uri(archive_directory(table.config)))
