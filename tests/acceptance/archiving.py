"""Archive the oldest instants of a table the way Apache Hudi's archiver does, for tests of readers.

The archiver proper (which instants may go) is not under test here: :func:`archive_oldest` moves
every completed write instant but the newest ``keep`` (and the cleans and rollbacks before the first
one kept) to the table's archive, then deletes their instant files, requested and inflight before
completed, oldest first (Java's ``deleteArchivedInstants``).
"""

from __future__ import annotations

from hudi_framework import HudiTable
from hudi_framework.errors import InstantNotFoundError
from hudi_framework.read.archived import archive_directory
from hudi_framework.timeline.archive import ArchivedInstant, archive_format
from hudi_framework.timeline.avro_container import AVRO_MAGIC
from hudi_framework.timeline.instant import Action, Instant, State

_SIDE_ACTIONS = frozenset({Action.CLEAN, Action.ROLLBACK})


def _files(table: HudiTable, instant: Instant) -> dict[State, str]:
    out = {}
    for state in State:
        try:
            out[state] = table.timeline.file_key(instant, state)
        except InstantNotFoundError:
            continue
    return out


def archived_instant(table: HudiTable, instant: Instant) -> ArchivedInstant:
    """What the archive keeps of a completed instant of the active timeline."""
    files = _files(table, instant)
    storage = table.storage
    metadata = storage.read(files[State.COMPLETED]) or None
    requested = storage.read(files[State.REQUESTED]) if State.REQUESTED in files else b""
    plan = requested if requested.startswith(AVRO_MAGIC) else None
    return ArchivedInstant(instant.requested_time, instant.completion_time, instant.action.value, metadata, plan)


def archive_oldest(table: HudiTable, keep: int) -> list[Instant]:
    """Archive all but the newest ``keep`` completed writes (and older cleans and rollbacks)."""
    timeline = table.reload().timeline
    commits = timeline.commits_timeline()
    first_kept = commits[-keep].requested_time
    chosen = [i for i in commits if i.requested_time < first_kept]
    chosen += [i for i in timeline.completed(_SIDE_ACTIONS) if i.requested_time < first_kept]
    chosen.sort(key=lambda i: i.requested_time)
    config = table.config
    archive = archive_format(table.storage, config.timeline_layout_version, archive_directory(config))
    archive.append([archived_instant(table, i) for i in chosen])
    files = [_files(table, i) for i in chosen]
    for state in (State.REQUESTED, State.INFLIGHT):
        for by_state in files:
            if state in by_state:
                table.storage.delete(by_state[state])
    for by_state in files:
        table.storage.delete(by_state[State.COMPLETED])
    return chosen
