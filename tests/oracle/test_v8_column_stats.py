"""Column statistics on table version 8 between Apache Hudi and us: we keep ``column_stats`` and
``partition_stats`` on a version-8 table in Apache Hudi's version-8 layout (index version V1), Apache
Hudi skips files by them and keeps them when it writes; on a version-8 table Apache Hudi wrote, we
skip and prune by its statistics, keep them in step when we write (they used to be dropped), and
both engines read the same rows. hudi-rs reads the tables the same with and without the metadata table."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.read.reader import build_options, plan_read
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally
from tests.oracle.sequence import SEQUENCE, apache_hudi_options, trip_rows
from tests.oracle.test_metadata_stats_write import (
    FILTERS,
    OURS,
    THEIRS,
    _compare_filtered,
    _hudi_rs_agrees,
    _mdt_timeline,
    _validate,
)

pytestmark = pytest.mark.oracle


def _v1_records(path: Path) -> None:
    """Every column_stats and partition_stats record is in the V1 layout (no value type)."""
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    for partition in ("column_stats", "partition_stats"):
        stats = mdt.column_stats() if partition == "column_stats" else mdt.partition_stats()
        assert stats.num_rows > 0
        assert stats.column("value_type").null_count == stats.num_rows, partition


def _inits(path: Path) -> set[str]:
    return {i.requested_time for i in _mdt_timeline(path).completed() if i.requested_time.startswith("0000")}


@pytest.mark.oracle_full
def test_apache_hudi_skips_by_our_version_8_statistics_and_keeps_them(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    name = "v8stats_cow"
    path = tmp_path / name
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        name, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"], version=8
    )
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(OURS, env=False))
    for operation, rows in SEQUENCE[:2]:
        client.write(rows, operation)
    client.insert(trip_rows(range(60, 66), ts=5))
    label = "hudi_framework wrote v8 COW with column stats"
    _validate(path)
    _v1_records(path)
    _compare_filtered(apache_hudi, oracle_tally, path, label)
    inits = _inits(path)

    operation, rows = SEQUENCE[2]
    apache_hudi.write(path, rows, {**apache_hudi_options(name, "COPY_ON_WRITE", 8), **THEIRS}, operation)
    assert _inits(path) == inits, "no rebuild"
    _validate(path)
    _v1_records(path)
    _compare_filtered(apache_hudi, oracle_tally, path, f"{label}, Apache Hudi deleted", FILTERS[:1])
    _hudi_rs_agrees(path)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", pytest.param("MERGE_ON_READ", marks=pytest.mark.oracle_full)])
def test_we_skip_by_apache_hudis_version_8_statistics_and_keep_them(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    name = f"v8theirs_{table_type.lower()}"
    path = tmp_path / name
    oracle_tally.tables.add(str(path))
    options = {**apache_hudi_options(name, table_type, 8), **THEIRS, "hoodie.parquet.small.file.limit": "0"}
    for operation, rows in SEQUENCE[:2]:
        apache_hudi.write(path, rows, options, operation)
    apache_hudi.write(path, trip_rows(range(60, 66), ts=5), options, "insert")
    label = f"Apache Hudi wrote v8 {table_type} with column stats"
    _validate(path)
    _v1_records(path)
    plan = plan_read(HudiTable.open(str(path)), build_options(filters=[("ts", "=", 5)]))
    assert plan.skipping.stats_source == "metadata_table"
    assert plan.skipping.partitions_pruned_by_stats + plan.skipping.files_skipped > 0
    _compare_filtered(apache_hudi, oracle_tally, path, label)
    inits = _inits(path)

    operation, rows = SEQUENCE[3]
    WriteClient(HudiTable.open(str(path)), HudiSettings.from_hoodie_options(OURS, env=False)).write(rows, operation)
    assert _inits(path) == inits, "we kept its statistics (no drop, no rebuild)"
    _validate(path)
    _v1_records(path)
    _compare_filtered(apache_hudi, oracle_tally, path, f"{label}, we upserted on top", FILTERS[1:2])
    assert read_table(HudiTable.open(str(path))).num_rows == apache_hudi.read(path).num_rows
    _hudi_rs_agrees(path)
