"""On S3 (moto server on 127.0.0.1): a table written with ``hoodie.metadata.enable=true`` keeps its
metadata table (MDT) in step, and a read planned from it lists no data partition and equals a
listing-planned read, after writes on copy-on-write and merge-on-read."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_framework.read import read_table
from hudi_framework.read.reader import build_options, plan_read
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import new_bucket, s3_options
from tests.faults.test_s3_metadata_listing import _open

pytestmark = pytest.mark.s3


@pytest.fixture
def uri(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    return f"s3://{new_bucket(endpoint, monkeypatch)}/t"


def _triples(table: pa.Table) -> list[tuple[str, str, int]]:
    return sorted((r["id"], r["city"], r["ts"]) for r in table.select(["id", "city", "ts"]).to_pylist())


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_writes_keep_the_mdt_and_reads_plan_from_it(uri: str, endpoint: str, table_type: str) -> None:
    config = new_table_config(
        "t", version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(uri, config, storage_options=s3_options(endpoint))
    client = WriteClient(table, HudiSettings.from_hoodie_options({"hoodie.metadata.enable": "true"}, env=False))
    client.insert(pa.Table.from_pylist([{"id": i, "city": c, "ts": 1} for i, c in [("a", "sf"), ("x", "ny")]]))
    client.upsert(pa.Table.from_pylist([{"id": "a", "city": "sf", "ts": 2}, {"id": "b", "city": "la", "ts": 2}]))
    client.delete(pa.Table.from_pylist([{"id": "x", "city": "ny", "ts": 3}]))

    table = HudiTable.open(uri, storage_options=s3_options(endpoint))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    for partition in ("files", "column_stats", "partition_stats"):  # column statistics: on by default
        check_in_sync(mdt, table.timeline, partition)
    report = validate_files(table.storage, table.timeline, table.properties)
    assert report.ok, report
    plan = plan_read(table, build_options(filters=[("ts", "=", 1)]))
    assert plan.skipping.stats_source == "metadata_table"
    if table_type == "COPY_ON_WRITE":  # sf and la: their files hold ts 2 only (partition_stats prune them)
        assert plan.skipping.files_skipped + plan.skipping.partitions_pruned_by_stats >= 2

    table, listed = _open(uri, endpoint)
    from_mdt = _triples(read_table(table))
    assert [p for p in listed if not p.startswith(".hoodie")] == [], "no data partition is listed"
    assert any(p.startswith(".hoodie/metadata/files") for p in listed)
    table = HudiTable.open(uri, storage_options=s3_options(endpoint))
    from_listing = _triples(read_table(table, options={"hoodie.metadata.enable": "false"}))
    assert from_mdt == from_listing == [("a", "sf", 2), ("b", "la", 2)]
