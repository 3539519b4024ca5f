"""On the standalone cluster: a merger installed only as a package (in executors' merges and
compaction), the streamer, S3 on moto with settings shipped to executors, and an executor killed
while it writes (the task runs again on another executor; the commit holds every row once)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import boto3
import pytest
from acme_merger import ACME_ORDER_STRATEGY_ID

from hudi_framework.runtime.table import HudiTable
from hudi_framework.testing import DUMMY_AWS_ENV
from tests.acceptance.oracle import hudi_rs_read
from tests.acceptance.test_mergers import ACME, BATCHES, COLUMNS
from tests.cluster import jobs
from tests.cluster.driver import ClusterDriver
from tests.cluster.test_cluster_writes import Model, apply, as_model, options, rows
from tests.faults.s3_faults import hudi_rs

pytestmark = pytest.mark.cluster


def test_a_merger_installed_as_a_package_merges_in_executors(cluster: ClusterDriver, tmp_path: Path) -> None:
    path = str(tmp_path / "orders")
    opts = {
        "hoodie.table.name": "orders",
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.datasource.write.recordkey.field": "order_id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": "upsert",
        "hoodie.write.record.merge.mode": "CUSTOM",
        "hoodie.write.record.merge.strategy.id": ACME_ORDER_STRATEGY_ID,
        "hoodie.compact.inline": "true",
        "hoodie.compact.inline.max.delta.commits": "3",
    }
    cluster.run(jobs.write_df, path, BATCHES[0], opts)
    results = [cluster.run(jobs.client_write, path, batch, "upsert", opts) for batch in BATCHES[1:]]
    # The last upsert's compaction merged the log files with the acme merger in executors.
    assert results[-1]["service_tasks"], "the compaction's tasks went to the executors"
    slices = HudiTable.open(path).file_system_view().latest_file_slices()
    assert all(s.base_file is not None and not s.log_file_names for s in slices)
    got = cluster.run(jobs.read_df, path).select(COLUMNS).to_pylist()
    assert {r["order_id"]: tuple(r[c] for c in COLUMNS) for r in got} == ACME


def test_the_streamer_writes_with_executors(cluster: ClusterDriver, tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    landing.mkdir()
    for f in range(3):
        lines = [json.dumps({"id": f"k{f * 10 + r:04d}", "city": "sf", "ts": f, "v": float(r)}) for r in range(4)]
        landed = landing / f"b{f:03d}.json"
        landed.write_text("\n".join(lines) + "\n")
        os.utime(landed, (1_700_000_000 + f, 1_700_000_000 + f))  # one file per round: distinct times
    base = str(tmp_path / "t")
    overrides = {
        "table.base_path": base,
        "table.name": "t",
        "table.type": "MERGE_ON_READ",
        "table.record_key_fields": ["id"],
        "table.partition_fields": ["city"],
        "table.ordering_fields": ["ts"],
        "write.engine": "spark",
        "streamer.source": "json-dfs",
        "streamer.source_options": {"root": str(landing)},
        "streamer.source_limit": 1,  # bytes: one file per round
        "streamer.continuous": True,
        "streamer.stop_after_idle_rounds": 1,
    }
    report = cluster.run(jobs.streamer, overrides)
    assert report == {"commits": 3, "rows": [4, 4, 4]}
    expected = {f"k{f * 10 + r:04d}" for f in range(3) for r in range(4)}
    assert set(as_model(hudi_rs_read(base))) == expected
    assert set(as_model(cluster.run(jobs.read_df, base))) == expected


def test_s3_settings_and_credentials_reach_the_executors(cluster: ClusterDriver, endpoint: str) -> None:
    bucket = "cluster-s3"
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    uri = f"s3://{bucket}/t"
    # Neither the driver nor the executors have credentials in their environment: the options do.
    s3 = {
        "fs.s3a.endpoint": endpoint,
        "fs.s3a.endpoint.region": "us-east-1",
        "fs.s3a.path.style.access": "true",
        "fs.s3a.access.key": DUMMY_AWS_ENV["AWS_ACCESS_KEY_ID"],
        "fs.s3a.secret.key": DUMMY_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
    }
    model: Model = {}
    for operation, batch in [
        ("bulk_insert", rows(range(0, 20), ["sf", "ny"], 1)),
        ("upsert", rows(range(10, 30), ["sf", "ny"], 2)),
    ]:
        cluster.run(jobs.write_df, uri, batch, {**options("MERGE_ON_READ", operation), **s3})
        model = apply(model, operation, batch)
    cluster.run(
        jobs.client_write, uri, rows(range(25, 35), ["sf", "ny"], 3), "upsert", options("MERGE_ON_READ", "upsert") | s3
    )
    model = apply(model, "upsert", rows(range(25, 35), ["sf", "ny"], 3))
    assert as_model(cluster.run(jobs.read_df, uri, s3)) == model
    theirs = hudi_rs(uri, endpoint)
    assert sorted(theirs) == sorted((k, v[1], v[2]) for k, v in model.items())


def test_an_executor_killed_while_writing_costs_a_retry_not_a_duplicate(cluster: ClusterDriver, tmp_path: Path) -> None:
    path = str(tmp_path / "t")
    batch = rows(range(0, 400), ["sf", "ny"], 1)
    log = cluster.run(jobs.killed_bulk_insert, path, batch, options("COPY_ON_WRITE", "bulk_insert"))
    killed = [name for name in log if name.startswith("killed-")]
    assert killed, f"the executor was not killed: {sorted(log)}"
    killed_pid = int(killed[0].removeprefix("killed-"))
    attempts = [name.split("-") for name in log if name[0].isdigit()]
    assert ["0", "0", str(killed_pid)] in attempts
    retried = [int(pid) for part, attempt, pid in attempts if part == "0" and attempt != "0"]
    assert retried, "partition 0 ran again"
    assert killed_pid not in retried, "on another executor"
    # Exactly once: one commit, every row once, no file but those the commit lists.
    table = HudiTable.open(path)
    assert len(table.timeline.commits_timeline()) == 1
    model = apply({}, "bulk_insert", batch)
    assert as_model(hudi_rs_read(path)) == model
    assert as_model(cluster.run(jobs.read_df, path)) == model
    committed = {s.base_file.file_name.name for s in table.file_system_view().latest_file_slices() if s.base_file}
    on_disk = {p.name for p in Path(path).rglob("*.parquet") if ".hoodie" not in p.parts}
    assert on_disk == committed
    # The killed attempt had marked its file (the marker names it): neither is left.
    marked = log[killed[0]].rsplit("/", 1)[-1].split(".marker.")[0]
    assert "_0-" in marked
    assert marked.split("_")[-2].endswith("-0")
    assert marked not in on_disk
    assert not (Path(path) / ".hoodie" / ".temp").exists() or not any((Path(path) / ".hoodie" / ".temp").rglob("*"))
