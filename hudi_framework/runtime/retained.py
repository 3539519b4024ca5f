"""The history cleaning left readable: which instants time travel may still reach.

Apache Hudi (``TimelineUtils.validateTimestampAsOf``) refuses a time travel older than the latest
clean's ``earliestCommitToRetain``: the cleaner keeps every slice a query as of that commit (or a
later one) reads, but may have deleted older ones. When the latest clean has no retained commit
(``KEEP_LATEST_FILE_VERSIONS``) Java only refuses instants before the active timeline.

This module applies both rules, with two differences from Java:

* a savepointed commit stays readable however old (cleaning keeps its files; Java refuses it);
* an instant is also refused when a file its slices read was deleted by a clean (the cleans'
  metadata list the names deleted per partition), which is what ``KEEP_LATEST_FILE_VERSIONS`` needs:
  an older instant whose slices were all kept still reads.

Any other file the timeline names but storage lacks is a damaged table
(:class:`~hudi_framework.errors.MissingDataFileError`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

from hudi_framework.errors import CleanedInstantError, MissingDataFileError
from hudi_framework.layout.file_group import FileGroupId
from hudi_framework.timeline.clean_metadata import CleanMetadata, decode_clean_metadata
from hudi_framework.timeline.instant import Action, Instant

if TYPE_CHECKING:
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.layout.fs_view import FileSystemView
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.timeline.archived_timeline import ArchivedTimeline
    from hudi_framework.timeline.timeline import Timeline

__all__ = [
    "check_retained",
    "check_slice_files",
    "cleaned_files",
    "earliest_retained",
    "savepointed_instants",
]


def savepointed_instants(timeline: Timeline) -> list[str]:
    """Requested times of the savepointed commits, oldest first."""
    return [i.requested_time for i in timeline.completed({Action.SAVEPOINT})]


def _clean_metadata(timeline: Timeline, clean: Instant) -> CleanMetadata:
    storage = timeline.storage
    return decode_clean_metadata(timeline.read_bytes(clean), path=storage.uri(timeline.file_key(clean)))


def cleaned_files(timeline: Timeline, archived: ArchivedTimeline | None = None) -> dict[str, str]:
    """Storage key -> the completed clean that deleted it, over every clean of the active timeline
    (and of the archive, if given)."""
    outcomes: list[tuple[str, CleanMetadata]] = []
    if archived is not None:
        for clean in archived.completed({Action.CLEAN}):
            metadata = archived.clean_metadata(clean)
            if metadata is not None:
                outcomes.append((clean.requested_time, metadata))
    outcomes += [(c.requested_time, _clean_metadata(timeline, c)) for c in timeline.completed({Action.CLEAN})]
    out: dict[str, str] = {}
    for clean_time, metadata in outcomes:
        for partition, outcome in metadata.partitions.items():
            group = FileGroupId(outcome.partition_path or partition, "")
            for name in outcome.success_delete_files:
                out[group.key(name)] = clean_time
    return out


def earliest_retained(timeline: Timeline) -> str | None:
    """The latest completed clean's ``earliestCommitToRetain`` (None without cleans or when it has none)."""
    cleans = timeline.completed({Action.CLEAN})
    if not cleans:
        return None
    return _clean_metadata(timeline, cleans[-1]).earliest_commit_to_retain or None


def check_retained(table: HudiTable, as_of: str) -> None:
    """Apache Hudi's rule: time travel may not go before the latest clean's retained history.

    Raises:
        CleanedInstantError: ``as_of`` is older than the latest clean's ``earliestCommitToRetain``
            (or, when that clean has none, older than the first commit of the active timeline),
            and the commit it reads is not savepointed.
    """
    timeline = table.timeline
    cleans = timeline.completed({Action.CLEAN})
    if not cleans:
        return
    commits = timeline.commits_timeline(as_of=as_of)
    savepoints = savepointed_instants(timeline)
    if commits and commits[-1].requested_time in savepoints:
        return  # a savepoint's files are never cleaned
    latest = cleans[-1]
    retained = _clean_metadata(timeline, latest).earliest_commit_to_retain
    if retained:
        if as_of < retained:
            reason = f"clean {latest.requested_time} kept the history from {retained} on"
            raise CleanedInstantError(as_of, retained, reason, savepoints)
        return
    first = timeline.commits_timeline()
    if first and as_of < first[0].requested_time:
        reason = f"the active timeline starts at {first[0].requested_time} and has been cleaned"
        raise CleanedInstantError(as_of, first[0].requested_time, reason, savepoints)


def check_slice_files(
    table: HudiTable,
    view: FileSystemView,
    slices: Sequence[FileSlice],
    as_of: str | None,
    *,
    partitions: Collection[str] | None = None,
    archived: ArchivedTimeline | None = None,
) -> None:
    """Raise if a file of ``slices`` (chosen as of ``as_of``) is named by the timeline but not in storage.

    Args:
        table: The table.
        view: The view the slices come from, built with ``check_files``.
        slices: The slices read.
        as_of: The time-travel instant, None for the latest state.
        partitions: The partitions read (to find the earliest readable instant); None for all.
        archived: The archive, when ``as_of`` reaches into it (its cleans name deleted files too).

    Raises:
        CleanedInstantError: Time travel, and a clean deleted one of the files.
        MissingDataFileError: A file is missing for another reason (deleted by hand, lost).
    """
    try:
        view.check_files(slices)
    except MissingDataFileError as missing:
        if as_of is None:
            raise
        timeline = table.timeline
        cleaned = cleaned_files(timeline, archived)
        deleted = [key for key in missing.missing if key in cleaned]
        if not deleted:
            raise
        earliest = _earliest_intact(view, timeline, as_of, partitions)
        reason = f"clean {cleaned[deleted[0]]} deleted {deleted[0]!r}, which the snapshot as of {as_of} reads"
        raise CleanedInstantError(as_of, earliest, reason, savepointed_instants(timeline)) from missing


def _earliest_intact(
    view: FileSystemView, timeline: Timeline, as_of: str, partitions: Collection[str] | None
) -> str | None:
    """The first commit after ``as_of`` whose snapshot has every file (the error's hint)."""
    for commit in timeline.commits_timeline():
        if commit.requested_time <= as_of:
            continue
        slices = [
            s
            for s in view.latest_file_slices(as_of=commit.requested_time)
            if partitions is None or s.partition_path in partitions
        ]
        if not view.missing_files(slices):
            return commit.requested_time
    return None
