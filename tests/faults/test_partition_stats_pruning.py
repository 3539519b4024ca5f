"""Partition pruning by the metadata table's ``partition_stats``, on local disk and on S3: a filter on
a data column leaves out whole partitions whose statistics cannot match, the plan counts them, and
the rows equal a read that prunes nothing. Partitions whose statistics are missing, or may not hold
what a merged read returns (log files), are kept; time travel does not use them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata_writer.initialize import set_partition_state
from hudi_framework.read.reader import build_options, collect_plan, plan_read, read_table
from hudi_framework.read.schema import read_schema
from hudi_framework.read.skipping_plan import stats_source_for
from hudi_framework.read.snapshot import plan_snapshot
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place

SETTINGS = HudiSettings.from_hoodie_options(
    {"hoodie.parquet.small.file.limit": "0", "hoodie.metadata.enable": "true"}, env=False
)
ROWS = 10
REGIONS = 4
NO_PRUNING = {"hoodie.enable.data.skipping": "false"}


def _batch(k: int, region: int | None = None) -> pa.Table:
    """Batch ``k``: in region ``r`` (every region if None), ``ts`` in ``[1000 r + 100 k, +ROWS)``."""
    regions = range(REGIONS) if region is None else [region]
    return pa.table(
        {
            "id": [f"r{r}-k{k}-{i}" for r in regions for i in range(ROWS)],
            "region": [f"r{r}" for r in regions for _ in range(ROWS)],
            "ts": pa.array([1000 * r + 100 * k + i for r in regions for i in range(ROWS)], pa.int64()),
            "name": [None if i == 0 else f"n{i}" for _ in regions for i in range(ROWS)],
        }
    )


def _client(place: Place, table_type: str = "COPY_ON_WRITE", batches: int = 2) -> WriteClient:
    config = new_table_config(
        "t", table_type=table_type, record_key_fields=["id"], partition_fields=["region"], ordering_fields=["ts"]
    )
    client = WriteClient(HudiTable.create(place.uri, config, storage_options=place.options), SETTINGS)
    for k in range(batches):
        client.insert(_batch(k))
    return client


@pytest.fixture(scope="module")
def _written() -> dict[str | None, Place]:
    """The two-batch copy-on-write table of each storage place, written once per module."""
    return {}


@pytest.fixture
def cow(place: Place, _written: dict[str | None, Place]) -> HudiTable:
    """The module's two-batch copy-on-write table on ``place``'s storage (local disk or the module's
    moto server), written by the first test asking: the tests taking it only read it."""
    if place.endpoint not in _written:
        _client(place)
        _written[place.endpoint] = place
    return _written[place.endpoint].open()


def _rows(table: pa.Table | list[pa.RecordBatch]) -> list[tuple[Any, ...]]:
    t = table if isinstance(table, pa.Table) else pa.Table.from_batches(table)
    return sorted(zip(*(t.column(c).to_pylist() for c in ("id", "region", "ts", "name")), strict=True))


def _same_as_unpruned(table: HudiTable, filters: Sequence[tuple[str, str, Any]]) -> list[tuple[Any, ...]]:
    ours = read_table(table, filters=list(filters))
    plain = read_table(table, filters=list(filters), options=NO_PRUNING)
    assert _rows(ours) == _rows(plain)
    return _rows(ours)


def test_a_data_column_filter_prunes_partitions_by_their_statistics(cow: HudiTable) -> None:
    table = cow
    assert "partition_stats" in table.config.metadata_partitions
    filters = [("ts", ">=", 2000), ("ts", "<", 2005)]
    plan = plan_read(table, build_options(filters=filters))
    counts = plan.skipping
    assert counts.partitions_considered == REGIONS
    assert counts.partitions_pruned == 0  # no filter on the partition column
    assert counts.partitions_pruned_by_stats == REGIONS - 1
    assert counts.files_considered == 2  # the two files of r2
    assert counts.stats_source == "metadata_table"
    got = _rows(collect_plan(plan, table.storage))
    assert [r[2] for r in got] == [2000, 2001, 2002, 2003, 2004]
    assert got == _same_as_unpruned(table, filters)
    # Pruning off: every partition is read.
    off = plan_read(table, build_options(filters=filters, options=NO_PRUNING)).skipping
    assert (off.partitions_pruned_by_stats, off.files_considered) == (0, 2 * REGIONS)


@pytest.mark.parametrize(
    "filters",
    [
        [("ts", "=", 3105)],
        [("ts", ">", 1109), ("ts", "<", 2000)],  # between the ranges: every partition pruned
        [("ts", "in", [5, 3001])],
        [("name", "starts with", "n9")],
        [("name", "is null")],  # null checks do not prune partitions
        [("region", "=", "r1"), ("ts", "<", 1003)],
    ],
    ids=["eq", "gap", "in", "prefix", "is-null", "path-and-stats"],
)
def test_pruned_reads_equal_unpruned_reads(cow: HudiTable, filters: list[tuple[str, str, Any]]) -> None:
    _same_as_unpruned(cow, filters)


def test_null_checks_and_a_partition_filter_count_apart(cow: HudiTable) -> None:
    table = cow
    nulls = plan_read(table, build_options(filters=[("name", "is null")])).skipping
    assert nulls.partitions_pruned_by_stats == 0
    both = plan_read(table, build_options(filters=[("region", "in", ["r1", "r2"]), ("ts", "<", 1003)])).skipping
    assert (both.partitions_pruned, both.partitions_pruned_by_stats) == (2, 1)
    assert both.files_considered == 2


def _source(table: HudiTable, filters: list[tuple[str, str, Any]]) -> Any:
    """The statistics source a read of ``table`` (as loaded) uses."""
    return stats_source_for(table, build_options(filters=filters), read_schema(table))


@pytest.mark.s3_full  # a pruning rule: the S3 side is the shared-table tests'
def test_a_merge_on_read_partition_with_log_files_is_kept(place: Place) -> None:
    client = _client(place, "MERGE_ON_READ")
    filters = [("ts", "=", 3003)]
    before = _source(place.open(), filters)  # statistics of the slices before the log write
    # A log write into r1 moving one row's ts into r3's range.
    moved = _batch(0, 1).slice(0, 1).set_column(2, "ts", pa.array([3003], pa.int64()))
    client.upsert(moved)
    table = place.open()
    assert any(s.has_log_files for s in table.latest_file_slices() if s.partition_path == "r1")
    expected = [("r1-k0-0", "r1", 3003, None), ("r3-k0-3", "r3", 3003, "n3")]
    plan = plan_read(table, build_options(filters=filters))
    assert plan.skipping.partitions_pruned_by_stats == 2  # r0 and r2
    assert _rows(collect_plan(plan, table.storage)) == expected == _same_as_unpruned(table, filters)
    # Statistics from before the log write (stale for r1): r1 holds log files, so it is still read.
    stale = plan_snapshot(table, build_options(filters=filters), stats_source=before)
    assert stale.skipping.partitions_pruned_by_stats == 2
    assert _rows(collect_plan(stale, table.storage)) == expected
    # Read-optimized reads base files only (the log's row is not there).
    ro = build_options(filters=filters, options={"hoodie.datasource.query.type": "read_optimized"})
    assert _rows(collect_plan(plan_read(table, ro), table.storage)) == [("r3-k0-3", "r3", 3003, "n3")]


class _Missing:
    """The table's statistics, but none for partition ``missing``."""

    name = "metadata_table"

    def __init__(self, inner: Any, missing: str) -> None:
        self._inner = inner
        self._missing = missing

    def column_stats(self, files: Sequence[tuple[str, str]], columns: Sequence[str]) -> pa.Table | None:
        result: pa.Table | None = self._inner.column_stats(files, columns)
        return result

    def partition_stats(self, partitions: Sequence[str], columns: Sequence[str]) -> pa.Table | None:
        stats: pa.Table = self._inner.partition_stats(partitions, columns)
        return stats.filter(pc.invert(pc.equal(stats.column("fileName"), self._missing)))


def test_a_partition_without_statistics_is_kept(cow: HudiTable) -> None:
    table = cow
    filters = [("ts", "<", 5)]
    plan = plan_snapshot(table, build_options(filters=filters), stats_source=_Missing(_source(table, filters), "r2"))
    assert plan.skipping.partitions_pruned_by_stats == 2  # r1 and r3; r2 has no statistics
    assert plan.skipping.files_considered == 4
    assert _rows(collect_plan(plan, table.storage)) == _same_as_unpruned(table, filters)


@pytest.mark.s3_full  # a pruning rule: the S3 side is the shared-table tests'
def test_no_partition_stats_partition_prunes_no_partition(place: Place) -> None:
    _client(place)
    table = place.open()
    set_partition_state(table.storage, "partition_stats", enabled=False)  # no longer listed: not used
    table = place.open()
    assert "partition_stats" not in table.config.metadata_partitions
    filters = [("ts", ">=", 2000), ("ts", "<", 2005)]
    plan = plan_read(table, build_options(filters=filters))
    assert plan.skipping.partitions_pruned_by_stats == 0
    assert (plan.skipping.files_considered, plan.skipping.files_skipped) == (2 * REGIONS, 2 * REGIONS - 1)
    assert _rows(collect_plan(plan, table.storage)) == _same_as_unpruned(table, filters)


@pytest.mark.s3_full  # a pruning rule: the S3 side is the shared-table tests'
def test_time_travel_does_not_prune_by_the_latest_statistics(place: Place) -> None:
    client = _client(place, batches=1)
    first = place.open().timeline.completed()[-1].requested_time
    # Every r1 row moves to ts 1500+: r1's statistics no longer hold 1000..1009.
    moved = _batch(0, 1).set_column(2, "ts", pa.array([1500 + i for i in range(ROWS)], pa.int64()))
    client.upsert(moved)
    table = place.open()
    filters = [("ts", "=", 1005)]
    assert read_table(table, filters=filters).num_rows == 0
    assert plan_read(table, build_options(filters=filters)).skipping.partitions_pruned_by_stats == REGIONS
    old = read_table(table, filters=filters, options={"as.of.instant": first})
    assert _rows(old) == [("r1-k0-5", "r1", 1005, "n5")]
