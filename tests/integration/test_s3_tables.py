"""Tables on S3 (moto server on 127.0.0.1): open Apache Hudi's tables, create ours, use the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

import boto3
import pyarrow as pa
import pytest

from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.testing import DUMMY_AWS_ENV
from tests.fixture_tables import FixtureTable, all_fixture_tables

pytestmark = pytest.mark.s3


@pytest.fixture
def bucket(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    name = f"hudi-it-{uuid.uuid4().hex[:10]}"
    boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=name)
    return name


def _options(endpoint: str) -> dict[str, object]:
    return {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}


def _upload(local: Path, endpoint: str, bucket: str, prefix: str) -> None:
    client = boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1")
    for path in local.rglob("*"):
        if path.is_file():
            client.upload_file(str(path), bucket, f"{prefix}/{path.relative_to(local).as_posix()}")


def _key(slices: list[object]) -> list[tuple[str, str, str | None, tuple[str, ...]]]:
    return sorted((s.file_id, s.partition_path, s.base_file_name, tuple(s.log_file_names)) for s in slices)  # type: ignore[attr-defined]


@pytest.mark.parametrize("fixture_id", ["mor/avro/v9_txns_simple_meta", "cow/v6_simplekeygen_nonhivestyle"])
def test_apache_hudi_table_on_s3_reads_like_local(
    fixture_id: str,
    endpoint: str,
    bucket: str,
    extract_fixture: Callable[[FixtureTable], tuple[Path, Path | None]],
) -> None:
    fixture = next(t for t in all_fixture_tables() if t.id == fixture_id)
    local, _ = extract_fixture(fixture)
    _upload(local, endpoint, bucket, "warehouse/t")
    on_s3 = HudiTable.open(f"s3://{bucket}/warehouse/t", storage_options=_options(endpoint))
    on_disk = HudiTable.open(str(local))
    assert on_s3.config == on_disk.config
    # Layout-1 completion times come from modification times, which an upload changes.
    assert [(i.requested_time, i.action, i.state) for i in on_s3.timeline.instants] == [
        (i.requested_time, i.action, i.state) for i in on_disk.timeline.instants
    ]
    assert _key(on_s3.latest_file_slices()) == _key(on_disk.latest_file_slices())  # type: ignore[arg-type]
    assert on_s3.schema() == on_disk.schema()


def test_create_on_s3_then_inspect_with_cli(endpoint: str, bucket: str) -> None:
    uri = f"s3://{bucket}/tables/trips"
    config = new_table_config("trips", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    schema = pa.schema([("id", pa.string()), ("city", pa.string()), ("ts", pa.int64())])
    HudiTable.create(uri, config, schema=schema, storage_options=_options(endpoint))
    # Another process (as a Spark executor would be) reaches the table through the server.
    env = {**os.environ, **DUMMY_AWS_ENV, "AWS_ENDPOINT_URL_S3": endpoint}
    proc = subprocess.run(
        [sys.executable, "-c", "from hudi_framework.cli.app import main; main()", "show", "table", uri, "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert '"hoodie.table.name": "trips"' in proc.stdout
