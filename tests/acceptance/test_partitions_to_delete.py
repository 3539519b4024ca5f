"""``hoodie.datasource.write.partitions.to.delete`` names the partitions a ``delete_partition`` write
drops, as Apache Hudi's Spark writer takes it: a comma-separated list of partition paths, where ``*``
(or its url-encoded ``%2A``) matches any characters and names no partition of the table are skipped;
the rows of the write are then not looked at. On local disk and on S3 (moto)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import boto3
import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, read_table
from hudi_framework.testing import DUMMY_AWS_ENV

#: Two levels of partitions: ``region/city``.
ROWS = pa.table(
    {
        "id": ["a", "b", "c", "d", "e"],
        "region": ["us", "us", "us", "eu", "eu"],
        "city": ["sf", "sj", "ny", "paris", "porto"],
        "ts": [1, 1, 1, 1, 1],
    }
)
OPTION = "hoodie.datasource.write.partitions.to.delete"


@pytest.fixture(params=["local", "s3"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, dict[str, Any] | None]:
    if request.param == "local":
        return str(tmp_path / "t"), None
    endpoint: str = request.getfixturevalue("endpoint")
    monkeypatch: pytest.MonkeyPatch = request.getfixturevalue("monkeypatch")
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    bucket = f"hudi-p2d-{uuid.uuid4().hex[:10]}"
    boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    return f"s3://{bucket}/t", {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}


def _table(location: tuple[str, dict[str, Any] | None]) -> HudiTable:
    uri, storage_options = location
    config = new_table_config(
        "t", record_key_fields=["id"], partition_fields=["region", "city"], ordering_fields=["ts"]
    )
    table = HudiTable.create(uri, config, storage_options=storage_options)
    WriteClient(table).insert(ROWS)
    return table


def _delete(table: HudiTable, value: str, rows: pa.Table) -> None:
    settings = HudiSettings.from_hoodie_options({OPTION: value}, env=False)
    WriteClient(table, settings).write(rows, "delete_partition")


def _ids(table: HudiTable) -> list[str]:
    ids: list[str] = sorted(read_table(table.reload())["id"].to_pylist())
    return ids


@pytest.mark.parametrize(
    ("value", "left"),
    [
        ("us/sf,eu/paris", ["b", "c", "e"]),
        ("us/s*", ["c", "d", "e"]),  # sf and sj
        ("eu/p%2A", ["a", "b", "c"]),  # url-encoded wildcard: paris and porto
        ("us/ny,xx/none,us/s", ["a", "b", "d", "e"]),  # names no partition has are skipped
    ],
)
def test_the_option_names_the_partitions_dropped(
    location: tuple[str, dict[str, Any] | None], value: str, left: list[str]
) -> None:
    table = _table(location)
    # The rows name eu/porto; with the option given they are not looked at.
    _delete(table, value, ROWS.slice(4, 1))
    assert _ids(table) == left
    latest = table.reload().timeline.commits_timeline()[-1]
    assert latest.action.value == "replacecommit"


def test_without_the_option_the_rows_name_the_partitions(location: tuple[str, dict[str, Any] | None]) -> None:
    table = _table(location)
    WriteClient(table).write(ROWS.slice(4, 1), "delete_partition")
    assert _ids(table) == ["a", "b", "c", "d"]


def test_an_empty_value_drops_nothing(location: tuple[str, dict[str, Any] | None]) -> None:
    """Set but empty, the option still decides (as in Apache Hudi): no partition, whatever the rows name."""
    table = _table(location)
    _delete(table, "", ROWS)
    assert _ids(table) == ["a", "b", "c", "d", "e"]
