"""The sources on S3 (moto server on 127.0.0.1): the DFS contract as on local disk, and hudi-incr."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import boto3
import pyarrow as pa
import pytest

from hudi_framework import Components, HudiSettings, HudiTable, WriteClient, new_table_config
from hudi_framework.contracts.source import Source, SourceContext
from hudi_framework.errors import SourceError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.testing import SourceContract
from hudi_framework.testing.source_contract import consume, read_plan
from tests.unit.sources.dfs_landing import encode, rows

pytestmark = pytest.mark.s3


@pytest.fixture
def bucket(endpoint: str) -> str:
    name = f"landing-{uuid.uuid4().hex[:10]}"
    _client(endpoint).create_bucket(Bucket=name)
    return name


def _client(endpoint: str) -> Any:
    return boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1")


def _context(endpoint: str) -> SourceContext:
    settings = HudiSettings(
        storage={"s3": {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}}
    )
    return Components.from_settings(settings)


def _source(name: str, root: str) -> Source:
    registry = ComponentRegistry.from_manager(build_plugin_manager())
    return registry.build(ComponentKind.SOURCE, name, {"hoodie.streamer.source.dfs.root": root})


class _Uploader:
    """Uploads one JSON file per call, each in a later second than the last (S3 keeps whole seconds)."""

    def __init__(self, endpoint: str, bucket: str) -> None:
        self.client, self.bucket, self.calls = _client(endpoint), bucket, 0

    def __call__(self) -> Sequence[Any]:
        time.sleep(1.01 - time.time() % 1)
        batch = rows(self.calls * 3, 3)
        self.client.put_object(Bucket=self.bucket, Key=f"in/day={self.calls}/part.json", Body=encode("json", batch))
        self.calls += 1
        return [r["id"] for r in batch]


class TestJsonOnS3(SourceContract):
    BAD_CHECKPOINTS = ("topic,0:1",)

    @pytest.fixture
    def context(self, endpoint: str) -> SourceContext:
        return _context(endpoint)

    @pytest.fixture
    def source(self, bucket: str) -> Source:
        return _source("json-dfs", f"s3://{bucket}/in")

    @pytest.fixture
    def land(self, endpoint: str, bucket: str) -> Callable[[], Sequence[Any]]:
        return _Uploader(endpoint, bucket)


def test_parquet_and_hidden_objects_on_s3(endpoint: str, bucket: str) -> None:
    client = _client(endpoint)
    written = rows(0, 4)
    client.put_object(Bucket=bucket, Key="in/a.parquet", Body=encode("parquet", written))
    client.put_object(Bucket=bucket, Key="in/_SUCCESS", Body=b"")
    client.put_object(Bucket=bucket, Key="in/_temporary/0/b.parquet", Body=encode("parquet", rows(9, 1)))
    context = _context(endpoint)
    source = _source("ParquetDFSSource", f"s3://{bucket}/in")
    plan = source.plan(None, limit=None, context=context)
    assert [s.id for s in plan.splits] == [f"s3://{bucket}/in/a.parquet"]
    table = read_plan(source, plan, context)
    assert table is not None
    assert table.to_pylist() == written


def test_unreadable_object_names_its_uri(endpoint: str, bucket: str) -> None:
    _client(endpoint).put_object(Bucket=bucket, Key="in/bad.avro", Body=b"not avro")
    context = _context(endpoint)
    source = _source("avro-dfs", f"s3://{bucket}/in")
    plan = source.plan(None, limit=None, context=context)
    with pytest.raises(SourceError, match=rf"s3://{bucket}/in/bad\.avro"):
        list(source.read(plan.splits[0], context))


def test_hudi_incr_follows_a_table_on_s3(endpoint: str, bucket: str) -> None:
    context = _context(endpoint)
    uri = f"s3://{bucket}/up"
    config = new_table_config("up", record_key_fields=["id"], ordering_fields=["ts"])
    table = HudiTable.create(uri, config, storage=context.storage(uri))
    for n in range(3):
        WriteClient(table.reload()).upsert(pa.table({"id": [f"k{n}"], "ts": pa.array([n], pa.int64())}))
    registry = ComponentRegistry.from_manager(build_plugin_manager())
    source = registry.build(ComponentKind.SOURCE, "HoodieIncrSource", {"path": uri, "num_instants": 2})
    tables, checkpoint = consume(source, context, None, limit=None)
    assert [sorted(t.column("id").to_pylist()) for t in tables] == [["k0", "k1"], ["k2"]]
    assert checkpoint == HudiTable.open(uri, storage=context.storage(uri)).timeline.last_completion_time()
