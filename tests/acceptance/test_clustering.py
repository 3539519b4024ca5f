"""Clustering through the service plugin: many small writes, then a clustering that stitches their
file slices into fewer, bigger file groups. At every instant (the clustering included) hudi-rs, our
reader and the model agree on the snapshot and time travel, our reader and the model on
incremental windows: clustering changes no query result, and (commit metadata preserved) an
incremental window over the clustering returns no rows for it."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hudi_framework import open_table_service
from hudi_framework.errors import ClusteringUpdateError
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.clusterer import read_clustering_plan
from tests.acceptance.data import to_table
from tests.acceptance.engines import Step, WriteEngine
from tests.acceptance.layouts import KeyGen, Layout
from tests.acceptance.scenario import Scenario

#: Every insert opens new file groups (no small-file packing), so the table ends up with many small ones.
SMALL_WRITES = {"hoodie.parquet.small.file.limit": "0"}


def cluster(sc: Scenario) -> Instant:
    """Schedule and run a clustering as a separate job would; record it in the model (no record changes)."""
    table = sc.table
    service, host = open_table_service(table, sc.settings, "clustering")
    planned = service.schedule(host)
    assert planned is not None, "nothing to cluster"
    service.execute(host, planned)
    done = next(i for i in table.reload().timeline.commits_timeline() if i.requested_time == planned)
    sc.record_compaction(done)
    return done


def live_base_files(sc: Scenario) -> int:
    return sum(1 for s in sc.table.latest_file_slices() if s.base_file is not None)


@pytest.mark.parametrize(
    ("table_type", "version"),
    [
        pytest.param("COPY_ON_WRITE", 9, id="cow-v9"),
        pytest.param("MERGE_ON_READ", 9, id="mor-v9"),
        pytest.param("MERGE_ON_READ", 8, id="mor-v8"),
        pytest.param("COPY_ON_WRITE", 6, id="cow-v6"),
        pytest.param("MERGE_ON_READ", 6, id="mor-v6"),
    ],
)
def test_small_writes_clustered_into_fewer_file_groups(
    table_type: str, version: int, engine: WriteEngine, tmp_path: Path
) -> None:
    sc = Scenario(
        engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True), version=version, table_type=table_type,
        options=SMALL_WRITES, seed=version,
    )  # fmt: skip
    for _ in range(5):
        sc.write_inserts(15)
    sc.write_upsert(updates=10, stale=0, inserts=5, duplicates=0, deletes=3)
    before = sc.table.latest_file_slices()
    partitions = {s.partition_path for s in before}

    done = cluster(sc)
    assert done.action is Action.REPLACE_COMMIT
    table = sc.table
    metadata = table.timeline.read_commit_metadata(done)
    assert metadata.operation_type == "CLUSTER"
    replaced = {(p, f) for p, ids in metadata.partition_to_replace_file_ids.items() for f in ids}  # type: ignore[attr-defined]
    assert replaced == {(s.partition_path, s.file_id) for s in before}
    after = table.latest_file_slices()
    # One new file group per partition (everything is far below the 1 GB target), no log files.
    assert len(after) == len(partitions) < len(before)
    assert all(s.base_file is not None and not s.log_files for s in after)
    assert {s.file_id for s in after}.isdisjoint({s.file_id for s in before})
    for s in after:  # meta columns name the new file; commit times are the rows' own (preserved)
        rows = pq.read_table(str(sc.path / s.partition_path / s.base_file_name))  # type: ignore[operator]
        assert set(rows.column("_hoodie_file_name").to_pylist()) == {s.base_file_name}
        assert done.requested_time not in set(rows.column("_hoodie_commit_time").to_pylist())

    sc.write_upsert(updates=10, stale=0, inserts=5, duplicates=0, deletes=3)  # writes continue on the new groups
    # hudi-rs 0.5.0 answers a merge-on-read incremental window from whole file slices (see
    # test_mor_compaction); windows are checked against the model there.
    sc.checker().check_all(incremental_hudi_rs=table_type == "COPY_ON_WRITE")


def test_sort_columns_order_rows_within_clustered_files(engine: WriteEngine, tmp_path: Path) -> None:
    options = SMALL_WRITES | {"hoodie.clustering.plan.strategy.sort.columns": "ts"}
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True), options=options, seed=3)
    for _ in range(4):
        sc.write_inserts(20)
    done = cluster(sc)
    table = sc.table
    for s in table.latest_file_slices():
        ts = pq.read_table(str(sc.path / s.partition_path / s.base_file_name), columns=["ts"]).column(0).to_pylist()  # type: ignore[operator]
        assert ts == sorted(ts)
    plan = read_clustering_plan(table, done)
    assert plan.sort_columns == ("ts",)
    sc.checker().check_all()


def test_update_of_a_file_group_under_pending_clustering_is_refused(engine: WriteEngine, tmp_path: Path) -> None:
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True), options=SMALL_WRITES, seed=5)
    for _ in range(3):
        sc.write_inserts(10)
    table = sc.table
    service, host = open_table_service(table, sc.settings, "clustering")
    planned = service.schedule(host)
    assert planned is not None
    rows = sc.rows.rows(sc.live_keys()[:3])
    err = sc.refused(Step(WriteOperation.UPSERT, to_table(rows)), ClusteringUpdateError)
    assert err.instant == planned
    assert err.file_groups
    # Inserts are still accepted: they never go to a file group under pending clustering.
    sc.write_inserts(5)
    service.execute(host, planned)
    sc.record_compaction(next(i for i in sc.table.timeline.commits_timeline() if i.requested_time == planned))
    sc.write_upsert(updates=3, stale=0, inserts=0, duplicates=0, deletes=0)  # accepted once it completed
    # The clustering completed after a later insert, so completion-time windows no longer map onto
    # the model's steps (as for compaction); snapshots and time travel to every instant must agree.
    checker = sc.checker()
    checker.check_timeline()
    checker.check_snapshots()
