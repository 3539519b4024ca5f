"""A writer process for the kill tests: runs one upsert and parks at a chosen point to be SIGKILLed.

``python -m tests.faults.kill_writer <base path> <before|after> <ready file> <json rows> [<json hoodie options>
[<operation>]]``

``before``: the data files and markers are written, the completed instant is not (parks inside
``TimelineWriter.complete`` before it writes; under optimistic concurrency control that is inside
the locked section, holding the table lock). ``after``: the completed instant is written, the
markers and heartbeat are not cleaned up yet. Either way the ready file tells the test to kill.

Two environment variables, read only by this script: ``HUDI_FAULT_SETTINGS`` (JSON of
:class:`HudiSettings` fields, used instead of the hoodie options, e.g. for lock lease timings that
have no hoodie key) and ``HUDI_FAULT_STORAGE_OPTIONS`` (JSON storage options, e.g. a moto endpoint).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow as pa

from hudi_framework.config import HudiSettings
from hudi_framework.table.table import HudiTable
from hudi_framework.timeline.instant import Instant
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.write.client import WriteClient


def _park(ready: Path) -> None:
    ready.write_text("ready")
    while True:
        time.sleep(60)


def main(argv: list[str]) -> None:
    base, when, ready_file, rows_json = argv[:4]
    options = json.loads(argv[4]) if len(argv) > 4 else {}
    operation = argv[5] if len(argv) > 5 else "upsert"
    ready = Path(ready_file)
    real_complete = TimelineWriter.complete

    def complete(self: TimelineWriter, instant: Instant, *args: Any, **kwargs: Any) -> Instant:
        if when == "before":
            _park(ready)
        done = real_complete(self, instant, *args, **kwargs)
        _park(ready)
        return done

    TimelineWriter.complete = complete  # type: ignore[method-assign]
    raw_settings = os.environ.get("HUDI_FAULT_SETTINGS")
    settings = (
        HudiSettings.model_validate(json.loads(raw_settings))
        if raw_settings
        else HudiSettings.from_hoodie_options(options)
    )
    storage_options = json.loads(os.environ.get("HUDI_FAULT_STORAGE_OPTIONS", "null"))
    client = WriteClient(HudiTable.open(base, storage_options=storage_options), settings)
    client.write(pa.Table.from_pylist(json.loads(rows_json)), operation)


if __name__ == "__main__":
    main(sys.argv[1:])
