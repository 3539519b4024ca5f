"""Apache Hudi and the column statistics we write: it reads our table with the metadata table and
data skipping on and a filter, equal to our filtered read (a wrong statistic would drop rows); it
then writes to our table with its column statistics on and keeps our ``column_stats`` and
``partition_stats`` (no rebuild: our init instants stay), and we read, validate and write again.
hudi-rs reads our tables the same with and without ``hoodie.metadata.enable``."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_framework.read.reader import build_options, plan_read
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.write.client import WriteClient
from hudi_storage_local.backend import LocalStorageBackend
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, SEQUENCE, apache_hudi_options, trip_rows
from tests.tools.hudi_rs_check import build_table, canonical_hash, read_via_hudi_rs

pytestmark = pytest.mark.oracle

STATS = ("column_stats", "files", "partition_stats")
#: New file groups for every insert, so files hold disjoint ranges that statistics can skip.
OURS = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.parquet.small.file.limit": "0",
}
#: Apache Hudi reading with the metadata table and data skipping (its column statistics) on.
SKIPPING = {"hoodie.metadata.enable": "true", "hoodie.enable.data.skipping": "true"}
THEIRS = {"hoodie.metadata.enable": "true", "hoodie.metadata.index.column.stats.enable": "true"}
Filters = list[tuple[str, str, object]]
#: Filters as Spark SQL and as our read filters.
FILTERS: tuple[tuple[str, Filters], ...] = (
    ("ts = 5", [("ts", "=", 5)]),
    ("fare > 60.0", [("fare", ">", 60.0)]),
    ("name = 'rider-7-2'", [("name", "=", "rider-7-2")]),
)
TABLE_TYPES = ("COPY_ON_WRITE", pytest.param("MERGE_ON_READ", marks=pytest.mark.oracle_full))


def _mdt_timeline(path: Path) -> Timeline:
    return Timeline.load(LocalStorageBackend(str(path)), layout_version=2, timeline_path="metadata/.hoodie/timeline")


def _validate(path: Path) -> HudiTable:
    table = HudiTable.open(str(path))
    assert table.config.metadata_partitions == STATS
    storage = LocalStorageBackend(str(path))
    mdt = MetadataTable.open(storage, table.properties)
    assert mdt is not None
    check_in_sync(mdt, table.timeline)
    check_in_sync(mdt, table.timeline, "column_stats")
    assert validate_files(storage, table.timeline, table.properties).ok
    return table


def _their_filtered_read(apache_hudi: ApacheHudi, path: Path, where: str) -> tuple[pa.Table, int]:
    out = apache_hudi.workdir / f"filtered-{abs(hash((str(path), where)))}"
    request = {"op": "filtered_read", "path": str(path), "options": SKIPPING, "where": where, "out": str(out)}
    answer = apache_hudi.call(request)
    return pq.read_table(out), int(answer["files"])


def _compare_filtered(
    apache_hudi: ApacheHudi, tally: Tally, path: Path, label: str, cases: tuple[tuple[str, Filters], ...] = FILTERS
) -> None:
    table = HudiTable.open(str(path))
    for where, filters in cases:
        plan = plan_read(table, build_options(filters=filters))
        assert plan.skipping.stats_source == "metadata_table"
        ours = read_table(table, filters=filters)
        assert ours.num_rows > 0
        theirs, their_files = _their_filtered_read(apache_hudi, path, where)
        compare_reads(
            tally, f"{label}, filter {where}", ours, theirs, key=KEY, data_columns=DATA_COLUMNS,
        )  # fmt: skip
        if table.config.table_type == "COPY_ON_WRITE":
            # Apache Hudi skipped by our statistics the files we skip.
            assert plan.skipping.files_skipped > 0
            assert their_files == plan.skipping.files_considered - plan.skipping.files_skipped, where


def _hudi_rs_agrees(path: Path) -> None:
    with_mdt = canonical_hash(read_via_hudi_rs(build_table(str(path), {"hoodie.metadata.enable": "true"})))
    without = canonical_hash(read_via_hudi_rs(build_table(str(path), {"hoodie.metadata.enable": "false"})))
    ours = canonical_hash(read_table(HudiTable.open(str(path))))
    assert with_mdt == without == ours


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_apache_hudi_skips_by_our_column_stats_and_keeps_them(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    name = f"mdtstats_{table_type.lower()}"
    path = tmp_path / name
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        name, table_type=table_type, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(OURS, env=False))
    for operation, rows in SEQUENCE[:2]:
        client.write(rows, operation)
    client.insert(trip_rows(range(60, 66), ts=5))
    label = f"hudi_framework wrote {table_type} with column stats"
    _validate(path)
    _compare_filtered(apache_hudi, oracle_tally, path, label)
    inits = {i.requested_time for i in _mdt_timeline(path).completed() if i.requested_time.startswith("0000")}
    assert inits == {"00000000000000000", "00000000000000001", "00000000000000002"}

    operation, rows = SEQUENCE[2]
    apache_hudi.write(path, rows, {**apache_hudi_options(name, table_type, 9), **THEIRS}, operation)
    theirs = HudiTable.open(str(path)).timeline.completed()[-1].requested_time
    mdt = _mdt_timeline(path).completed()
    assert inits == {i.requested_time for i in mdt if i.requested_time.startswith("0000")}, "no rebuild"
    (their_delta,) = [i for i in mdt if i.requested_time == theirs]
    assert their_delta.action is Action.DELTA_COMMIT
    written = _mdt_timeline(path).read_commit_metadata(their_delta).partition_to_write_stats or {}
    assert {"files", "column_stats", "partition_stats"} <= set(written), "it kept our statistics in step"
    _validate(path)
    _compare_filtered(
        apache_hudi, oracle_tally, path, f"{label}, Apache Hudi deleted with column stats on", FILTERS[:1]
    )

    operation, rows = SEQUENCE[3]
    WriteClient(HudiTable.open(str(path)), HudiSettings.from_hoodie_options(OURS, env=False)).write(rows, operation)
    _validate(path)
    _compare_filtered(apache_hudi, oracle_tally, path, f"{label}, we upserted on top", FILTERS[1:2])
    _hudi_rs_agrees(path)
