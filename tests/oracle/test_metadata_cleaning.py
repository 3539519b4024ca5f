"""A metadata table we cleaned (its own ``clean`` instants, old file slices deleted): Apache Hudi
reads the table with its MDT on equal to our read, writes on top keeping our MDT (no rebuild), and
we validate and read equal again."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.timeline import Timeline
from hudi_framework.write.client import WriteClient
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, apache_hudi_options, trip_rows

pytestmark = [pytest.mark.oracle, pytest.mark.oracle_full]

OURS = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.index.column.stats.enable": "false",
    "hoodie.metadata.compact.max.delta.commits": "3",
}


def _mdt_timeline(table: HudiTable) -> Timeline:
    return Timeline.load(table.storage, layout_version=2, timeline_path="metadata/.hoodie/timeline")


def _check(table: HudiTable) -> None:
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    check_in_sync(mdt, table.timeline)
    report = validate_files(table.storage, table.timeline, table.properties)
    assert report.ok, report


def test_apache_hudi_reads_and_writes_over_our_cleaned_mdt(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    path = tmp_path / "cleaned_mdt"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        path.name, version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(OURS, env=False))
    client.insert(trip_rows(range(30), ts=1))
    for n in range(2, 32):
        client.upsert(trip_rows(range(n % 30, n % 30 + 1), ts=n))
    table = HudiTable.open(str(path))
    assert _mdt_timeline(table).completed({Action.CLEAN}), "our MDT cleaned itself"
    _check(table)

    options = {**apache_hudi_options(path.name, "MERGE_ON_READ", 9), "hoodie.metadata.enable": "true"}
    options["hoodie.metadata.index.column.stats.enable"] = "false"
    compare_reads(
        oracle_tally,
        "Apache Hudi reads over our cleaned MDT",
        read_table(table),
        apache_hudi.read(path, {"hoodie.metadata.enable": "true"}),
        key=KEY,
        data_columns=DATA_COLUMNS,
    )
    before = {i.requested_time for i in _mdt_timeline(table).completed()}
    apache_hudi.write(path, pa.concat_tables([trip_rows(range(0, 3), ts=99), trip_rows(range(30, 32), ts=99)]), options)
    table = HudiTable.open(str(path))
    # No rebuild: our latest MDT instants stay (Apache Hudi archives the oldest: its MDT keeps 21-31).
    assert set(sorted(before)[-10:]) <= {i.requested_time for i in _mdt_timeline(table).completed()}
    _check(table)
    client = WriteClient(table, HudiSettings.from_hoodie_options(OURS, env=False))
    client.upsert(trip_rows(range(3, 5), ts=100))
    table = HudiTable.open(str(path))
    _check(table)
    compare_reads(
        oracle_tally,
        "after Apache Hudi's write and ours over our cleaned MDT",
        read_table(table),
        apache_hudi.read(path, {"hoodie.metadata.enable": "true"}),
        key=KEY,
        data_columns=DATA_COLUMNS,
    )
