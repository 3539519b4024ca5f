"""Clustering on S3 (moto server on 127.0.0.1): it stitches small files there as on local disk, and a
run that fails half way leaves no object behind (the plan stays requested and runs again)."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.errors import ClusteringExecutionError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.timeline.instant import State
from hudi_framework.write import clusterer
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import admin_client, new_bucket

pytestmark = pytest.mark.s3


def _settings(uri: str, endpoint: str, table_type: str, version: int) -> HudiSettings:
    return HudiSettings.load(
        overrides={
            "table.base_path": uri, "table.name": "s", "table.type": table_type, "table.version": version,
            "table.record_key_fields": ["id"], "table.partition_fields": ["city"], "table.ordering_fields": ["ts"],
            "write.small_file_limit_bytes": 0, "storage.s3.endpoint_url": endpoint, "storage.s3.region": "us-east-1",
            "storage.s3.addressing_style": "path",
        },
        env=False,
    )  # fmt: skip


def _objects(endpoint: str, bucket: str) -> set[str]:
    pages = admin_client(endpoint).get_paginator("list_objects_v2").paginate(Bucket=bucket)
    return {o["Key"] for page in pages for o in page.get("Contents", [])}


def _rows(table: HudiTable) -> list[tuple[str, int]]:
    got = read_table(table.reload())
    return sorted(zip(got.column("id").to_pylist(), got.column("ts").to_pylist(), strict=True))


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 9), ("MERGE_ON_READ", 6)])
def test_clustering_on_s3_and_a_failed_run_leaves_nothing(
    endpoint: str, monkeypatch: pytest.MonkeyPatch, table_type: str, version: int
) -> None:
    bucket = new_bucket(endpoint, monkeypatch)
    uri = f"s3://{bucket}/t"
    settings = _settings(uri, endpoint, table_type, version)
    options = {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}
    table = HudiTable.create(uri, table_config_from_settings(settings), storage_options=options)
    client = WriteClient(table, settings)
    for n in range(3):
        client.insert(
            pa.Table.from_pylist([{"id": f"k{n}{i}", "city": "sf" if i % 2 else "ny", "ts": n} for i in range(4)])
        )
    client.upsert(pa.Table.from_pylist([{"id": "k00", "city": "ny", "ts": 9}]))
    before_rows = _rows(table)
    groups_before = len(table.latest_file_slices())
    service, host = open_table_service(table, settings, "clustering")
    instant = service.schedule(host)
    assert instant is not None
    scheduled = _objects(endpoint, bucket)

    real = clusterer.write_base_file
    calls: list[str] = []

    def fail_second(*args: Any, **kwargs: Any) -> int:
        calls.append(args[1])
        if len(calls) == 2:
            raise OSError("disk gone")
        return real(*args, **kwargs)

    monkeypatch.setattr(clusterer, "write_base_file", fail_second)
    with pytest.raises(ClusteringExecutionError, match="disk gone"):
        service.execute(host, instant)
    monkeypatch.setattr(clusterer, "write_base_file", real)
    assert _objects(endpoint, bucket) == scheduled, "the failed run left the table exactly as scheduled"
    (pending,) = table.reload().timeline.pending_clustering_plans()
    assert pending.state is State.REQUESTED
    assert _rows(table) == before_rows

    service.execute(host, instant)
    assert _rows(table) == before_rows
    assert len(table.reload().latest_file_slices()) == 2 < groups_before
