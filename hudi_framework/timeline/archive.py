"""The archived timeline: instants moved off the active timeline, in the table's archive format.

Two formats hold them: table version 6 (timeline layout 1) appends to the Hudi log files of
``.hoodie/archived/`` (:mod:`hudi_framework.log.archive_v6`, records coded by
:mod:`hudi_framework.timeline.archived_entry`); versions 8 and 9 (layout 2) keep
an LSM tree of Parquet files under ``.hoodie/timeline/history/``
(:mod:`hudi_framework.timeline.lsm`). Both read and write :class:`ArchivedInstant` records; the
format module is loaded on demand, so a table of one layout never imports the other's machinery.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from hudi_framework.contracts.storage import StorageBackend

__all__ = ["ArchiveFormat", "ArchivedInstant", "archive_format"]


@dataclass(frozen=True, slots=True)
class ArchivedInstant:
    """One completed instant as the archive keeps it.

    Attributes:
        requested_time: The instant time.
        completion_time: When it completed (layout 2 archives keep it; layout 1 records carry it as
            ``stateTransitionTime`` where the writer kept it, as Apache Hudi 1.x does; else None).
        action: The completed action as the active timeline names it (``commit``, ``deltacommit``,
            ``replacecommit``, ``clean``, ``rollback``, ``savepoint``, ``restore``, ``indexing``...).
        metadata: The completed instant file's content, encoded as the table's active timeline
            encodes it (Avro container on layout 2, JSON or Avro on layout 1), or None if empty.
        plan: The requested instant file's content (the plan of a compaction, clustering, clean,
            rollback...), same encoding, or None if it had none.
    """

    requested_time: str
    completion_time: str | None
    action: str
    metadata: bytes | None
    plan: bytes | None = None


class ArchiveFormat(Protocol):
    """The archive of one table, in its format."""

    def read(self) -> list[ArchivedInstant]:
        """Every archived instant, oldest requested time first."""
        ...

    def append(self, instants: Sequence[ArchivedInstant]) -> None:
        """Archive ``instants`` (already deleted from nowhere: the caller removes them from the
        active timeline only after this returns). Appending an instant already archived must not
        duplicate it on read."""
        ...


#: Module and factory per timeline layout version.
_FORMATS = {1: ("hudi_framework.log.archive_v6", "V6Archive"), 2: ("hudi_framework.timeline.lsm", "LsmArchive")}


def archive_format(storage: StorageBackend, layout_version: int, directory: str) -> ArchiveFormat:
    """The archive in ``directory`` (a key under the table's root: ``.hoodie/archived`` on layout
    1, ``.hoodie/timeline/history`` on layout 2, as ``hoodie.properties`` names them) of a table
    with timeline layout ``layout_version`` on ``storage``."""
    module, name = _FORMATS[layout_version]
    factory = getattr(importlib.import_module(module), name)
    archive: ArchiveFormat = factory(storage, directory)
    return archive
