"""Which half-written objects of dead writers a sweep may discard.

A writer killed while writing an object leaves an *incomplete write*
(:meth:`~hudi_framework.contracts.storage.StorageBackend.list_incomplete`: a temporary file on local
disk, an unfinished multipart upload on S3). Readers never see one, but it takes space for ever.
Discarding one that a live writer is still writing fails that writer, so:

* **Streams** (base files, staged Spark rows; large S3 uploads) cannot be redone. Their incomplete
  writes are discarded only when they provably belong to a write that is over: the target is a
  file that the markers of a failed, rolled-back or completed instant name, or a data file whose
  name carries an instant being rolled back.
* **Small objects** (instant files, heartbeats, markers, partition metadata, ``hoodie.properties``,
  lock files, log files) are written from memory, and a backend re-creates such a write when its
  incomplete part vanishes (the local backend does; S3 leaves none), so discarding one never fails
  its writer. Outside data files they are discarded whenever a sweep sees them; log files, as data
  files, follow the stream rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Final

from hudi_framework.layout.naming import parse_data_file_name
from hudi_framework.write.markers import MARKER_ROOT, STAGING_DIR_PREFIX, delete_markers, marked_data_files

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import IncompleteWrite, StorageBackend

__all__ = [
    "discard_incomplete_of",
    "discard_incomplete_writes",
    "discard_marked_attempt",
    "is_data_target",
    "sweep_metadata_incomplete_writes",
]

_META: Final = ".hoodie"
_STAGING: Final = f"{MARKER_ROOT}/{STAGING_DIR_PREFIX}"


def is_data_target(key: str) -> bool:
    """Whether ``key`` is a data file or staged rows: its incomplete writes need proof of a dead writer."""
    return key.startswith(_STAGING) or parse_data_file_name(key.rsplit("/", 1)[-1]) is not None


def _discard(
    storage: StorageBackend, writes: Iterable[IncompleteWrite], keep: Callable[[IncompleteWrite], bool]
) -> list[str]:
    discarded = []
    for write in writes:
        if not keep(write):
            storage.discard_incomplete(write)
            discarded.append(write.target)
    return discarded


def discard_incomplete_writes(
    storage: StorageBackend, directories: Iterable[str], dead: Callable[[str], bool]
) -> list[str]:
    """Discard the incomplete writes directly in ``directories`` that a dead writer left: of data
    files for which ``dead(key)`` holds, and of every small object that is not a data file.

    Returns:
        The targets whose incomplete writes were discarded.
    """
    discarded = []
    for directory in sorted(set(directories)):
        writes = storage.list_incomplete(directory)
        discarded += _discard(storage, writes, lambda w: is_data_target(w.target) and not dead(w.target))
    return discarded


def discard_incomplete_of(storage: StorageBackend, directory: str, owned: Callable[[str], bool]) -> list[str]:
    """Discard the incomplete writes directly in ``directory`` whose target ``owned(key)`` names
    (the caller knows their writer is done).

    Returns:
        The targets whose incomplete writes were discarded.
    """
    return _discard(storage, storage.list_incomplete(directory), lambda w: not owned(w.target))


def sweep_metadata_incomplete_writes(storage: StorageBackend) -> list[str]:
    """Discard every incomplete write of a small object under ``.hoodie`` (instant files, heartbeats,
    markers, properties, locks); staged rows are left to their own sweep.

    Returns:
        The targets whose incomplete writes were discarded.
    """
    if not storage.small_writes_leave_incomplete:
        return []  # small writes there are atomic requests: nothing to find, so no listing
    return _discard(storage, storage.list_incomplete(_META, recursive=True), lambda w: is_data_target(w.target))


def discard_marked_attempt(storage: StorageBackend, instant: str) -> list[str]:
    """Delete what a failed or crashed table-service attempt of ``instant`` wrote: every data file its
    markers name, their half-written leftovers, then the markers. The instant's files stay.

    Returns:
        The data file keys deleted.
    """
    deleted = []
    marked = marked_data_files(storage, instant)
    for key in marked:
        if storage.exists(key):
            storage.delete(key)
            deleted.append(key)
    # A crashed run may also have left a base file (or its instant file) half-written.
    discard_incomplete_writes(storage, {k.rpartition("/")[0] for k in marked}, set(marked).__contains__)
    sweep_metadata_incomplete_writes(storage)
    delete_markers(storage, instant)
    return deleted
