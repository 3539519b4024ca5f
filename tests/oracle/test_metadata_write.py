"""Apache Hudi and the metadata table (MDT) we write: it reads our table with ``hoodie.metadata.enable=true``
(listing from our ``files`` partition) equal to ours, then writes to it with its MDT enabled and keeps
our MDT (no rebuild: our ``00000000000000000`` bootstrap and delta commits stay, its own delta commit
joins them), and we read, validate and write again (compacting the MDT first), and Apache Hudi
reads and writes the MDT we compacted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.write.client import WriteClient
from hudi_storage_local.backend import LocalStorageBackend
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, EXPECTED_TS, KEY, SEQUENCE, apache_hudi_options, trip_rows

pytestmark = pytest.mark.oracle

#: Apache Hudi with its MDT on, only the partition we write (its Spark default adds column stats).
THEIR_MDT = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.index.column.stats.enable": "false",
    "hoodie.metadata.index.partition.stats.enable": "false",
}
#: Our writers compact the MDT early, so Apache Hudi also reads and writes an MDT we compacted; the
#: files partition alone, as Apache Hudi's writes here (column statistics: test_metadata_stats_write.py).
OUR_MDT = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.compact.max.delta.commits": "3",
    "hoodie.metadata.index.column.stats.enable": "false",
}
TABLE_TYPES = ("MERGE_ON_READ", pytest.param("COPY_ON_WRITE", marks=pytest.mark.oracle_full))


def _mdt_timeline(path: Path) -> Timeline:
    return Timeline.load(LocalStorageBackend(str(path)), layout_version=2, timeline_path="metadata/.hoodie/timeline")


def _validate(path: Path) -> HudiTable:
    table = HudiTable.open(str(path))
    storage = LocalStorageBackend(str(path))
    mdt = MetadataTable.open(storage, table.properties)
    assert mdt is not None
    assert "files" in mdt.partitions_available()
    check_in_sync(mdt, table.timeline)
    report = validate_files(storage, table.timeline, table.properties)
    assert report.ok, report
    return table


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_apache_hudi_reads_and_keeps_our_mdt(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    name = f"mdtw_{table_type.lower()}"
    path = tmp_path / name
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        name, table_type=table_type, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(OUR_MDT, env=False))
    for operation, rows in SEQUENCE[:2]:
        client.write(rows, operation)
    label = f"hudi_framework wrote {table_type} with its MDT"
    compare_reads(
        oracle_tally, f"{label}: Apache Hudi reads from our MDT",
        read_table(_validate(path)), apache_hudi.read(path, THEIR_MDT), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
    ours_before = {(i.requested_time, i.action) for i in _mdt_timeline(path).completed()}

    operation, rows = SEQUENCE[2]
    apache_hudi.write(path, rows, {**apache_hudi_options(name, table_type, 9), **THEIR_MDT}, operation)
    data = HudiTable.open(str(path)).timeline
    theirs = data.completed()[-1].requested_time
    mdt = {(i.requested_time, i.action) for i in _mdt_timeline(path).completed()}
    assert ours_before <= mdt, "Apache Hudi kept our MDT instead of rebuilding it"
    assert (theirs, Action.DELTA_COMMIT) in mdt, "and added its delta commit of the same instant"
    table = _validate(path)
    compare_reads(
        oracle_tally, f"{label}, Apache Hudi deleted with its MDT on",
        read_table(table), apache_hudi.read(path, THEIR_MDT), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip

    operation, rows = SEQUENCE[3]
    WriteClient(table, HudiSettings.from_hoodie_options(OUR_MDT, env=False)).write(rows, operation)
    table = _validate(path)
    ours = read_table(table)
    compare_reads(
        oracle_tally, f"{label}, we upserted on top", ours, apache_hudi.read(path, THEIR_MDT),
        key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
    assert dict(zip(ours["id"].to_pylist(), ours["ts"].to_pylist(), strict=True)) == EXPECTED_TS
    (compaction,) = _mdt_timeline(path).completed({Action.COMMIT})  # ours, before our last write

    apache_hudi.write(path, trip_rows(range(45, 55), ts=6), {**apache_hudi_options(name, table_type, 9), **THEIR_MDT})
    assert compaction in _mdt_timeline(path).completed()
    compare_reads(
        oracle_tally, f"{label}, compacted by us, Apache Hudi upserted with its MDT on",
        read_table(_validate(path)), apache_hudi.read(path, THEIR_MDT), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip


@pytest.mark.oracle_full
def test_apache_hudi_compacts_our_mdt(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path) -> None:
    """Ten MDT delta commits of ours (bootstrap included): Apache Hudi's next write compacts our MDT
    (merging our HFile base and HFILE_DATA logs into its base HFile), and we read and validate it."""
    name = "mdtw_their_compaction"
    path = tmp_path / name
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        name, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    never = {**OUR_MDT, "hoodie.metadata.compact.max.delta.commits": "1000"}
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(never, env=False))
    for ts in range(1, 10):
        client.upsert(trip_rows(range(ts * 3, ts * 3 + 6), ts=ts))
    assert not _mdt_timeline(path).completed({Action.COMMIT})
    apache_hudi.write(
        path, trip_rows(range(50, 55), ts=20), {**apache_hudi_options(name, "MERGE_ON_READ", 9), **THEIR_MDT}
    )
    (compaction,) = _mdt_timeline(path).completed({Action.COMMIT})
    base = path / ".hoodie" / "metadata" / "files"
    assert [p.name for p in base.glob(f"files-0000-0_*_{compaction.requested_time}.hfile")]
    compare_reads(
        oracle_tally, "hudi_framework wrote MERGE_ON_READ, Apache Hudi compacted our MDT",
        read_table(_validate(path)), apache_hudi.read(path, THEIR_MDT), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
    WriteClient(HudiTable.open(str(path)), HudiSettings.from_hoodie_options(never, env=False)).upsert(
        trip_rows(range(0, 3), ts=30)
    )
    compare_reads(
        oracle_tally, "hudi_framework wrote MERGE_ON_READ, Apache Hudi compacted our MDT, we wrote again",
        read_table(_validate(path)), apache_hudi.read(path, THEIR_MDT), key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
