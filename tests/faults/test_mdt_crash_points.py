"""A writer keeping the metadata table (MDT) SIGKILLed at each step of a write, then recovered.

The steps of a write with the MDT on: data files written; the MDT delta commit requested; its log
file written; the MDT delta commit completed; the data commit being published. Killed at each: every
reader sees the previous snapshot, the MDT validates against storage, and the next writer's
rollback of the dead instant leaves both tables consistent (``validate_files`` passes, nothing of
the dead instant is left in the MDT) and reads equal the model.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from tests.acceptance.test_metadata_bloom_filters import _check_blooms
from tests.acceptance.test_metadata_table_write import MDT_ON, _mdt_timeline, check_mdt
from tests.faults.processes import kill_writer
from tests.faults.s3_faults import rows_of

START = [("a", "sf", 1), ("b", "sf", 1), ("x", "ny", 1)]
DEAD_ROWS = [{"id": "a", "city": "sf", "ts": 2}, {"id": "c", "city": "la", "ts": 2}]

#: Park points, in write order (tests.faults.park): what is on storage when the writer dies.
STEPS = {
    # Data files and markers written; the MDT delta commit's requested file is being published.
    "data-files-written": r"tmp:metadata/\.hoodie/timeline/\d{17}\.deltacommit\.requested$",
    # The MDT delta commit inflight; its log file is being published.
    "mdt-log-written": r"tmp:metadata/files/\.files-0000-0_\d{17}\.log\.",
    # The MDT log written; the MDT delta commit's completed file is being published.
    "mdt-completing": r"tmp:metadata/\.hoodie/timeline/\d{17}_\d{17}\.deltacommit$",
    # The MDT delta commit completed; the data instant's completed file is being published.
    "data-completing": r"tmp:/t/\.hoodie/timeline/\d{17}_\d{17}\.(commit|deltacommit)$",
}


def _table(path: Path, table_type: str) -> WriteClient:
    config = new_table_config(
        "t", version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(MDT_ON, env=False))
    client.insert(pa.Table.from_pylist([{"id": i, "city": c, "ts": t} for i, c, t in START]))
    return client


@pytest.mark.matrix  # each value of each parameter by default, every combination with HUDI_TEST_SLOW=1
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
@pytest.mark.parametrize("step", list(STEPS))
def test_killed_at_each_step_recovers_consistent(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, table_type: str, step: str
) -> None:
    path = tmp_path / "t"
    client = _table(path, table_type)
    kill_writer(str(path), "park", tmp_path, DEAD_ROWS, MDT_ON, park=STEPS[step])
    (dead,) = HudiTable.open(str(path)).timeline.pending()
    mdt_done = {i.requested_time for i in _mdt_timeline(path).completed()}
    assert (dead.requested_time in mdt_done) is (step == "data-completing")
    caplog.set_level(logging.WARNING)
    assert check_mdt(path, caplog) == START, "every reader sees the previous snapshot"

    client.upsert(pa.Table.from_pylist([{"id": "b", "city": "sf", "ts": 3}]))  # EAGER: rolls the dead write back
    data = HudiTable.open(str(path)).timeline
    assert dead.requested_time not in {i.requested_time for i in data.instants}
    mdt = _mdt_timeline(path)
    assert dead.requested_time not in {i.requested_time for i in mdt.instants}
    assert not [p for p in (path / ".hoodie" / "metadata").rglob(f"*{dead.requested_time}*") if p.is_file()]
    assert len(data.completed({Action.ROLLBACK})) == 1
    model = [("a", "sf", 1), ("b", "sf", 3), ("x", "ny", 1)]
    assert check_mdt(path, caplog) == model

    # The table keeps working: the dead write's rows, written again, land once.
    client.upsert(pa.Table.from_pylist(DEAD_ROWS))
    assert check_mdt(path, caplog) == [("a", "sf", 2), ("b", "sf", 3), ("c", "la", 2), ("x", "ny", 1)]


#: Every MDT partition the writer keeps: files, column_stats, bloom_filters, partition_stats.
ALL_ON = {"hoodie.metadata.enable": "true", "hoodie.metadata.index.bloom.filter.enable": "true"}


def _check_all(path: Path) -> list[tuple[str, str, int]]:
    """Every MDT partition in step, ``files`` equal to storage, filters equal to footers; the rows."""
    table = HudiTable.open(str(path))
    assert set(table.config.metadata_partitions) == {"files", "column_stats", "bloom_filters", "partition_stats"}
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    for partition in table.config.metadata_partitions:
        check_in_sync(mdt, table.timeline, partition)
    report = validate_files(table.storage, table.timeline, table.properties)
    assert report.ok, report
    _check_blooms(table)
    from_mdt = rows_of(read_table(table))
    assert from_mdt == rows_of(read_table(table, options={"hoodie.metadata.enable": "false"}))
    return from_mdt


@pytest.mark.parametrize("step", list(STEPS))
def test_killed_at_each_step_with_every_partition(tmp_path: Path, step: str) -> None:
    path = tmp_path / "t"
    config = new_table_config(
        "t", version=9, table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(ALL_ON, env=False))
    client.insert(pa.Table.from_pylist([{"id": i, "city": c, "ts": t} for i, c, t in START]))
    park = STEPS[step].replace(r"metadata/files/\.files-0000-0_", r"metadata/bloom_filters/\.bloom-filters-\d{4}-0_")
    kill_writer(str(path), "park", tmp_path, DEAD_ROWS, ALL_ON, park=park)
    (dead,) = HudiTable.open(str(path)).timeline.pending()
    dead_files = [p for p in path.rglob(f"*{dead.requested_time}.parquet")]
    assert _check_all(path) == START

    client.upsert(pa.Table.from_pylist([{"id": "b", "city": "sf", "ts": 3}]))
    assert _check_all(path) == [("a", "sf", 1), ("b", "sf", 3), ("x", "ny", 1)]
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    assert mdt.bloom_filters([(p.parent.name, p.name) for p in dead_files]) == {}
    assert not [p for p in (path / ".hoodie" / "metadata").rglob(f"*{dead.requested_time}*") if p.is_file()]
    client.upsert(pa.Table.from_pylist(DEAD_ROWS))
    assert _check_all(path) == [("a", "sf", 2), ("b", "sf", 3), ("c", "la", 2), ("x", "ny", 1)]
