"""A process for the kill tests: runs one operation on a table and parks at a chosen point to be SIGKILLed.

``python -m tests.faults.kill_writer <base path> <when> <ready file> <json rows> [<json hoodie options>
[<operation>]]``

``when``:

* ``before``: the data files and markers are written, the completed instant is not (parks inside
  ``TimelineWriter.complete`` before it writes; under optimistic concurrency control that is inside
  the locked section, holding the table lock);
* ``after``: the completed instant is written, the markers and heartbeat are not cleaned up yet;
* ``after-mdt``: the first completion that returns is written: with the metadata table (MDT) on,
  the MDT's delta commit of the instant, the data table's completed instant not yet;
* ``park``: at the park point in the environment variable ``HUDI_FAULT_PARK``
  (:mod:`tests.faults.park`), anywhere in any operation.

Either way the ready file tells the test to kill.

``operation``: a write operation (``upsert`` by default; the rows are its data), or a table
operation that ignores the rows: ``rollback`` (``hudi-fw rollback``: the latest commit),
``restore:<savepoint time>``, ``clean`` (a forced round of the clean service), ``compact`` (schedule
a compaction and execute every pending one), ``cluster`` (the same with clustering), ``logcompact``
(schedule a log compaction of slices with at least two log blocks and execute it), ``archive`` (one
archival of the timeline, as ``hudi-fw archive`` runs it).

Two more environment variables, read only by this script: ``HUDI_FAULT_SETTINGS`` (JSON of
:class:`HudiSettings` fields, used instead of the hoodie options, e.g. for lock lease timings that
have no hoodie key) and ``HUDI_FAULT_STORAGE_OPTIONS`` (JSON storage options, e.g. a moto endpoint).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.write.archival import archive_timeline
from hudi_framework.write.client import WriteClient
from hudi_framework.write.log_compactor import execute_log_compaction, schedule_log_compaction
from hudi_framework.write.savepoint import restore_to_savepoint, rollback_latest_commit
from tests.faults.park import PARK_ENV, install, park

_MDT_TIMELINE = ".hoodie/metadata/"


def _park_around_complete(when: str, ready: Path) -> None:
    real_complete = TimelineWriter.complete

    def complete(self: TimelineWriter, instant: Instant, *args: Any, **kwargs: Any) -> Instant:
        if when == "before":
            park(ready)
        done = real_complete(self, instant, *args, **kwargs)
        # The MDT's completions (its own timeline writer, under .hoodie/metadata) come first.
        if when != "after" or not self.timeline_directory.startswith(_MDT_TIMELINE):
            park(ready)
        return done

    TimelineWriter.complete = complete  # type: ignore[method-assign]


def run_operation(table: HudiTable, settings: HudiSettings, operation: str, rows: list[dict[str, Any]]) -> None:
    """Run ``operation`` (see the module docstring) on ``table``."""
    if operation == "rollback":
        rollback_latest_commit(table)
    elif operation.startswith("restore:"):
        restore_to_savepoint(table, operation.split(":", 1)[1])
    elif operation == "clean":
        cleaner, host = open_table_service(table, settings, "clean")
        cleaner.run(host, force=True)  # type: ignore[attr-defined]
    elif operation == "compact":
        service, host = open_table_service(table, settings, "compaction")
        service.schedule(host)
        for instant in table.reload().timeline.pending({Action.COMPACTION}):
            service.execute(host, instant.requested_time)
    elif operation == "cluster":
        service, host = open_table_service(table, settings, "clustering")
        service.schedule(host)
        for instant in sorted(table.reload().timeline.pending_clustering_plans()):
            service.execute(host, instant.requested_time)
    elif operation == "archive":
        archive_timeline(table, settings)
    elif operation == "logcompact":
        instant = schedule_log_compaction(table, blocks_threshold=2)
        assert instant is not None, "nothing to log-compact"
        execute_log_compaction(table, instant, settings)
    else:
        WriteClient(table, settings).write(pa.Table.from_pylist(rows), operation)


def main(argv: list[str]) -> None:
    base, when, ready_file, rows_json = argv[:4]
    options = json.loads(argv[4]) if len(argv) > 4 else {}
    operation = argv[5] if len(argv) > 5 else "upsert"
    ready = Path(ready_file)
    if when == "park":
        install(os.environ[PARK_ENV], ready)
    else:
        _park_around_complete(when, ready)
    raw_settings = os.environ.get("HUDI_FAULT_SETTINGS")
    settings = (
        HudiSettings.model_validate(json.loads(raw_settings))
        if raw_settings
        else HudiSettings.from_hoodie_options(options)
    )
    storage_options = json.loads(os.environ.get("HUDI_FAULT_STORAGE_OPTIONS", "null"))
    table = HudiTable.open(base, storage_options=storage_options)
    run_operation(table, settings, operation, json.loads(rows_json))


if __name__ == "__main__":
    main(sys.argv[1:])
