"""A writer keeping the metadata table (MDT) SIGKILLed between its MDT delta commit and its data commit.

Killed after the MDT delta commit completed (data instant still inflight), or while the MDT log file
was being published: readers (ours planned from the MDT, hudi-rs with ``hoodie.metadata.enable``)
see the previous snapshot, the MDT still validates against storage, and the next writer rolls the
dead write back in both tables: the MDT rollback has the data rollback's instant time and the dead
instant's MDT log files are gone.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from tests.acceptance.test_metadata_table_write import MDT_ON, _mdt_timeline, check_mdt
from tests.faults.processes import kill_writer

START = [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1)]


def _table(path: Path, table_type: str) -> WriteClient:
    config = new_table_config(
        "t", version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(MDT_ON, env=False))
    client.insert(pa.Table.from_pylist([{"id": i, "city": c, "ts": t} for i, c, t in START]))
    return client


@pytest.mark.parametrize(
    ("table_type", "when", "park"),
    [
        ("COPY_ON_WRITE", "after-mdt", None),  # the first completion to return is the MDT's
        ("MERGE_ON_READ", "after-mdt", None),
        ("MERGE_ON_READ", "park", r"tmp:metadata/files/\.files-0000-0_\d{17}\.log"),
    ],
    ids=["cow-mdt-committed", "mor-mdt-committed", "mor-mdt-log-half-published"],
)
def test_killed_between_mdt_and_data_commit(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, table_type: str, when: str, park: str | None
) -> None:
    path = tmp_path / "t"
    client = _table(path, table_type)
    rows = [{"id": "a", "city": "sf", "ts": 2}, {"id": "c", "city": "sf", "ts": 2}]
    kill_writer(str(path), when, tmp_path, rows, MDT_ON, park=park)
    (dead,) = HudiTable.open(str(path)).timeline.pending()
    mdt_done = {i.requested_time for i in _mdt_timeline(path).completed()}
    assert (dead.requested_time in mdt_done) is (when == "after-mdt")
    caplog.set_level(logging.WARNING)
    assert check_mdt(path, caplog) == START, "every reader sees the previous snapshot"

    client.upsert(pa.Table.from_pylist([{"id": "b", "city": "sf", "ts": 3}]))  # EAGER: rolls the dead write back
    data = HudiTable.open(str(path)).timeline
    assert dead.requested_time not in {i.requested_time for i in data.instants}
    mdt = _mdt_timeline(path)
    assert dead.requested_time not in {i.requested_time for i in mdt.instants}
    assert not list((path / ".hoodie" / "metadata" / "files").glob(f"*{dead.requested_time}*"))
    (rollback,) = data.completed({Action.ROLLBACK})
    assert rollback.requested_time in {i.requested_time for i in mdt.completed({Action.ROLLBACK})}
    assert check_mdt(path, caplog) == [("a", "sf", 1), ("b", "sf", 3), ("x", "ny", 1)]
