"""On S3 (moto server on 127.0.0.1): a read planned from Apache Hudi's metadata table lists no data
partition, returns what a listing-planned read returns, and a damaged MDT falls back to listing."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
import pytest

from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.testing import DUMMY_AWS_ENV
from tests.compat.test_read_fixtures import _hash
from tests.fixture_tables import FixtureTable, all_fixture_tables

pytestmark = pytest.mark.s3

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]
FIXTURE = "mor/avro/v9_txns_simple_meta"


@pytest.fixture
def client(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    return boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1")


@pytest.fixture
def table_uri(client: Any, extract_fixture: Extract) -> tuple[str, Path]:
    bucket = f"hudi-mdt-{uuid.uuid4().hex[:10]}"
    client.create_bucket(Bucket=bucket)
    fixture = next(t for t in all_fixture_tables() if t.id == FIXTURE)
    local, gold = extract_fixture(fixture)
    assert gold is not None
    for path in local.rglob("*"):
        if path.is_file():
            client.upload_file(str(path), bucket, f"t/{path.relative_to(local).as_posix()}")
    return f"s3://{bucket}/t", local


def _open(uri: str, endpoint: str) -> tuple[HudiTable, list[str]]:
    """The table, and a record of the prefixes its storage lists (one or more LIST requests each)."""
    table = HudiTable.open(
        uri, storage_options={"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}
    )
    storage = table._storage
    listed: list[str] = []
    original = storage.list

    def counting(prefix: str = "", *, recursive: bool = False) -> Any:
        listed.append(prefix)
        return original(prefix, recursive=recursive)

    storage.list = counting  # type: ignore[method-assign]
    return table, listed


def test_planning_from_the_mdt_lists_no_data_partition(table_uri: tuple[str, Path], endpoint: str) -> None:
    uri, local = table_uri
    table, listed = _open(uri, endpoint)
    from_mdt = read_table(table)
    assert [p for p in listed if not p.startswith(".hoodie")] == []
    assert any(p.startswith(".hoodie/metadata/files") for p in listed)

    table, listed = _open(uri, endpoint)
    from_listing = read_table(table, options={"hoodie.metadata.enable": "false"})
    assert [p for p in listed if not p.startswith(".hoodie")] != []
    assert _hash(from_mdt) == _hash(from_listing) == _hash(read_table(HudiTable.open(str(local))))


def test_damaged_mdt_on_s3_falls_back(
    table_uri: tuple[str, Path], endpoint: str, client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    uri, local = table_uri
    bucket = uri.split("/")[2]
    logs = client.list_objects_v2(Bucket=bucket, Prefix="t/.hoodie/metadata/files/.files-")["Contents"]
    newest = max(logs, key=lambda o: o["Key"])["Key"]
    body = client.get_object(Bucket=bucket, Key=newest)["Body"].read()
    client.put_object(Bucket=bucket, Key=newest, Body=body[: len(body) // 2])
    table, listed = _open(uri, endpoint)
    with caplog.at_level(logging.WARNING, logger="hudi_framework.metadata.listing"):
        out = read_table(table)
    assert any("listing storage instead of the metadata table" in r.getMessage() for r in caplog.records)
    assert [p for p in listed if not p.startswith(".hoodie")] != []
    assert _hash(out) == _hash(read_table(HudiTable.open(str(local))))
