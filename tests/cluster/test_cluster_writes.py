"""Every write operation on the standalone cluster (driver, executors and their Python workers in
separate processes), through ``df.write.format("hudi")`` and ``SparkWriteClient`` on both table
types, read back with Spark (snapshot and incremental) and compared with hudi-rs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import hudi_framework
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from tests.acceptance.oracle import hudi_rs_read
from tests.cluster import jobs
from tests.cluster.driver import ClusterDriver
from tests.cluster.standalone import StandaloneCluster

pytestmark = pytest.mark.cluster

DATA = ["id", "city", "ts", "v"]
TABLE_TYPES = ["COPY_ON_WRITE", "MERGE_ON_READ"]
Model = dict[str, tuple[Any, ...]]


def rows(ids: range, cities: list[str], ts: int) -> pa.Table:
    keys = [f"k{i:04d}" for i in ids]
    return pa.table(
        {
            "id": keys,
            "city": [cities[i % len(cities)] for i in ids],
            "ts": pa.array([ts] * len(keys), pa.int64()),
            "v": [float(i * ts) for i in ids],
        }
    )


def options(table_type: str, operation: str, **extra: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": operation,
        **extra,
    }


# Each step: API, operation, batch; every operation once through each API. The model applies it as
# Apache Hudi defines the operation.
STEPS = [
    ("df", "bulk_insert", rows(range(0, 40), ["sf", "ny"], 1)),
    ("client", "bulk_insert", rows(range(200, 210), ["sf", "ny"], 1)),
    ("df", "insert", rows(range(40, 50), ["sf", "ny"], 1)),
    ("client", "insert", rows(range(50, 56), ["sf", "ny"], 1)),
    ("df", "upsert", rows(range(30, 45), ["sf", "ny"], 2)),
    ("client", "upsert", rows(range(44, 60), ["sf", "ny"], 3)),
    ("df", "delete", rows(range(0, 3), ["sf", "ny"], 4)),
    ("client", "delete", rows(range(3, 6), ["sf", "ny"], 4)),
    ("df", "insert_overwrite", rows(range(100, 103), ["ny"], 5)),  # replaces partition ny
    ("client", "insert_overwrite", rows(range(300, 302), ["sf"], 5)),  # replaces partition sf
]


def apply(model: Model, operation: str, batch: pa.Table) -> Model:
    incoming = {r["id"]: tuple(r[c] for c in DATA) for r in batch.to_pylist()}
    if operation == "delete":
        return {k: v for k, v in model.items() if k not in incoming}
    if operation == "insert_overwrite":
        replaced = {v[1] for v in incoming.values()}
        return {**{k: v for k, v in model.items() if v[1] not in replaced}, **incoming}
    if operation == "upsert":
        # A key that changes partition (a non-global index) is a new record in the new partition.
        moved = {k for k, v in incoming.items() if k in model and model[k][1] != v[1]}
        assert not moved, "the steps keep each key in its partition"
    return {**model, **incoming}


def as_model(table: pa.Table) -> Model:
    return {r["id"]: tuple(r[c] for c in DATA) for r in table.select(DATA).to_pylist()}


def completed_instants(path: str) -> list[str]:
    return [i.requested_time for i in HudiTable.open(path).timeline.commits_timeline()]


def test_executors_are_processes_of_the_workers_running_this_project(
    cluster: ClusterDriver, standalone_cluster: StandaloneCluster
) -> None:
    facts = cluster.run(jobs.executor_facts)
    by_worker = standalone_cluster.executor_pids()
    executors = {f["executor"] for f in facts}
    # Two executors, one under each worker JVM, none of them the driver.
    assert sorted(executors) == sorted(p for pids in by_worker.values() for p in pids)
    assert all(len(pids) == 1 for pids in by_worker.values())
    assert cluster.pid not in executors
    assert {f["hudi_framework"] for f in facts} == {hudi_framework.__file__}
    assert all("acme-merger" in f["plugins"] for f in facts), "the installed merger package is seen by executors"
    assert all(f["aws"] == [] for f in facts), "executors get no credentials from their environment"


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_every_operation_through_both_apis(cluster: ClusterDriver, tmp_path: Path, table_type: str) -> None:
    path = str(tmp_path / "t")
    config = new_table_config(
        "t", table_type=table_type, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    HudiTable.create(path, config)
    # MOR: SparkWriteClient's writes compact inline once two delta commits wait, in executors (the
    # data source's staged writes would compact in the commit, on the driver: not asked to).
    compaction = {"hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "2"}
    extra = compaction if table_type == "MERGE_ON_READ" else {}
    model: Model = {}
    results = []
    for api, operation, batch in STEPS:
        if api == "df":
            cluster.run(jobs.write_df, path, batch, options(table_type, operation))
        else:
            step = options(table_type, operation, **extra)
            results.append(cluster.run(jobs.client_write, path, batch, operation, step))
        model = apply(model, operation, batch)
    assert [r["failures"] for r in results] == [[]] * len(results)
    assert (results[2]["inserts"], results[2]["updates"]) == (4, 12)
    assert results[3]["deletes"] == 3
    assert as_model(cluster.run(jobs.read_df, path)) == model
    assert as_model(hudi_rs_read(path)) == model
    table = HudiTable.open(path)
    assert len(table.timeline.commits_timeline()) >= len(STEPS)
    # Incremental: everything after the upserts' first commit, as hudi-rs reads it.
    begin = completed_instants(path)[3]
    incremental = {"hoodie.datasource.query.type": "incremental", "hoodie.datasource.read.begin.instanttime": begin}
    ours = as_model(cluster.run(jobs.read_df, path, incremental))
    assert ours == as_model(hudi_rs_read(path, incremental=True, begin=begin))
    assert set(ours) >= set(model) - {f"k{i:04d}" for i in range(0, 56)}
    if table_type == "MERGE_ON_READ":
        compactions = [i for i in table.timeline.commits_timeline() if i.action.value == "commit"]
        assert compactions, "inline compaction ran"
        assert any(r["service_tasks"] for r in results), "the compaction's tasks went to the executors"
