"""Clustering across engines: Apache Hudi reads tables we clustered (sorted too) and goes on writing and
clustering them; we read tables Apache Hudi clustered with a sort order, and go on writing them.

Both engines' snapshot reads (merge-on-read: also read-optimized), Apache Hudi's read without its
metadata table and a time travel to the last commit before the clustering are compared row for row
after every step (:class:`~tests.oracle.shared_table.SharedTable`).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hudi_framework import HudiSettings, HudiTable
from hudi_framework.timeline.instant import Action
from hudi_framework.write.clusterer import read_clustering_plan
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally
from tests.oracle.selection import full_matrix
from tests.oracle.sequence import EXPECTED_TS, SEQUENCE, trip_rows
from tests.oracle.shared_table import SharedTable, ts_by_key

pytestmark = pytest.mark.oracle
#: Full runs also compare Apache Hudi's read without its metadata table, a time travel, and more steps.
FULL = full_matrix()

#: (table type, version): the default subset runs copy-on-write v9 (one direction); the rest with
#: HUDI_ORACLE_FULL=1.
LAYOUTS = [
    pytest.param("COPY_ON_WRITE", 9, id="cow-v9"),
    pytest.param("MERGE_ON_READ", 9, id="mor-v9", marks=pytest.mark.oracle_full),
    pytest.param("COPY_ON_WRITE", 6, id="cow-v6", marks=pytest.mark.oracle_full),
    pytest.param("MERGE_ON_READ", 6, id="mor-v6", marks=pytest.mark.oracle_full),
]
#: Our writes open new file groups for inserts (many small ones to stitch); clustering sorts by fare.
OURS = HudiSettings.from_hoodie_options(
    {"hoodie.parquet.small.file.limit": "0", "hoodie.clustering.plan.strategy.sort.columns": "fare"}
)


def _clustering_times(path: Path) -> list[str]:
    timeline = HudiTable.open(str(path)).timeline
    return [
        i.requested_time
        for i in timeline.completed({Action.REPLACE_COMMIT})
        if timeline.read_commit_metadata(i).operation_type == "CLUSTER"
    ]


def _last_completion(path: Path) -> str:
    last = HudiTable.open(str(path)).timeline.commits_timeline()[-1]
    assert last.completion_time is not None
    return last.completion_time


def _fares_sorted_in_new_files(path: Path, instant: str) -> None:
    table = HudiTable.open(str(path))
    metadata = table.timeline.read_commit_metadata(table.timeline.get(instant, Action.CLUSTERING))
    stats = metadata.write_stats()
    assert stats
    for stat in stats:
        fares = pq.read_table(path / (stat.path or ""), columns=["fare"]).column(0).to_pylist()
        assert fares == sorted(fares), stat.path


@pytest.mark.parametrize(("table_type", "version"), LAYOUTS)
def test_apache_hudi_reads_and_writes_our_clustered_table(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, version: int
) -> None:
    table = SharedTable(apache_hudi, oracle_tally, tmp_path / "ours_clustered", table_type, version, settings=OURS)
    table.create_ours()
    for operation, rows in SEQUENCE:
        table.ours(operation, rows)
    groups_before = len(HudiTable.open(str(table.path)).latest_file_slices())
    before = _last_completion(table.path)

    instant = table.our_service("clustering")
    assert instant is not None
    assert _clustering_times(table.path) == [instant]
    assert len(HudiTable.open(str(table.path)).latest_file_slices()) < groups_before
    _fares_sorted_in_new_files(table.path, instant)
    assert ts_by_key(table.check(metadata_off=FULL, as_of=before if FULL else None)) == EXPECTED_TS

    table.theirs("upsert", trip_rows(range(30, 40), ts=6))  # Apache Hudi goes on writing
    expected = {**EXPECTED_TS, **{f"k{i:03d}": 6 for i in range(30, 40)}}
    assert ts_by_key(table.check(metadata_off=FULL)) == expected
    if not FULL:  # the default subset stops here (its budget is about a minute)
        return
    table.call("run_clustering", op="scheduleAndExecute")  # and clusters our clustered file groups again
    assert len(_clustering_times(table.path)) == 2
    assert ts_by_key(table.check(metadata_off=True)) == expected
    table.ours("upsert", trip_rows(range(0, 5), ts=7))
    expected.update({f"k{i:03d}": 7 for i in range(5)})
    assert ts_by_key(table.check()) == expected


@pytest.mark.oracle_full
@pytest.mark.parametrize(("table_type", "version"), LAYOUTS)
def test_we_read_and_write_a_table_apache_hudi_clustered_with_an_order(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str, version: int
) -> None:
    table = SharedTable(apache_hudi, oracle_tally, tmp_path / "its_clustered", table_type, version, settings=OURS)
    for operation, rows in SEQUENCE:
        table.theirs(operation, rows)
    before = _last_completion(table.path)
    clustered = table.call("run_clustering", order="fare")
    assert [row["state"] for row in clustered] == ["COMPLETED"]
    (instant,) = _clustering_times(table.path)
    hudi_table = HudiTable.open(str(table.path))
    plan = read_clustering_plan(hudi_table, hudi_table.timeline.get(instant, Action.CLUSTERING))
    assert plan.sort_columns == ("fare",)  # we read its plan
    _fares_sorted_in_new_files(table.path, instant)
    assert ts_by_key(table.check(metadata_off=True, as_of=before)) == EXPECTED_TS

    table.ours("upsert", trip_rows(range(30, 40), ts=6))  # we go on writing
    expected = {**EXPECTED_TS, **{f"k{i:03d}": 6 for i in range(30, 40)}}
    assert ts_by_key(table.check(metadata_off=True)) == expected
    assert table.our_service("clustering") is not None  # and cluster its clustered table
    assert ts_by_key(table.check()) == expected
    table.theirs("upsert", trip_rows(range(0, 5), ts=7))
    expected.update({f"k{i:03d}": 7 for i in range(5)})
    assert ts_by_key(table.check()) == expected
