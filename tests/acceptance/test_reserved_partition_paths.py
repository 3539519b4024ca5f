"""Partition values that would make a path no reader finds are refused before anything is written.

Without hive-style partitioning and url-encoding a value is the path itself: ``.hoodie`` would put
data files into the metadata folder, ``a/../b`` would leave the partition, ``x/.hoodie_partition_metadata``
would collide with the partition metadata file of ``x``, and ``a/b`` next to ``a`` nests one
partition in another (a listing stops at the outer one). Every key generator and both engines refuse
them with a typed error naming the field and the value; the table is left exactly as it was. Values
that readers do find (``.net``; ``.hoodie`` behind a hive-style ``field=`` prefix) are written and
read back.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import DataError, InvalidPartitionValueError, PartitionPathError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteClient
from tests.acceptance.data import to_table
from tests.acceptance.engines import LocalEngine, Step, WriteEngine
from tests.acceptance.layouts import KeyGen, Layout, PartitionStyle
from tests.acceptance.oracle import snapshot_files
from tests.acceptance.scenario import Scenario

#: Values whose plain (non-hive, non-url-encoded) path no reader would find, or that leave the table.
RESERVED = [
    ".hoodie",
    ".hoodie/timeline/x",
    ".hoodie/.temp/x",
    "a/.hoodie",
    ".hoodie_partition_metadata",
    "x/.hoodie_partition_metadata",
    "x/.hoodie_partition_metadata.parquet",
    "a/../b",
    "..",
    ".",
    "a//b",
    "a/",
    "/a",
]


def _scenario(engine: WriteEngine, path: Path, layout: Layout, version: int = 9) -> Scenario:
    sc = Scenario(engine, path, layout, version=version)
    sc.write_inserts(30, WriteOperation.BULK_INSERT)
    return sc


def _check_value_error(err: BaseException, field: str, value: str) -> None:
    assert isinstance(err, InvalidPartitionValueError)
    assert isinstance(err, PartitionPathError)  # what the key generator contract always raised for paths
    assert err.field == field
    assert err.value == value
    assert "hoodie.datasource.write.hive_style_partitioning" in str(err)


@pytest.mark.parametrize(
    "layout",
    [
        pytest.param(Layout(KeyGen.SIMPLE, True), id="simple"),
        pytest.param(Layout(KeyGen.COMPLEX, True), id="complex"),
        pytest.param(Layout(KeyGen.CUSTOM, True), id="custom"),
    ],
)
@pytest.mark.parametrize("op", [WriteOperation.UPSERT, WriteOperation.BULK_INSERT])
def test_reserved_values_are_refused(layout: Layout, op: WriteOperation, tmp_path: Path) -> None:
    sc = _scenario(LocalEngine(), tmp_path / "t", layout)
    for n, value in enumerate(RESERVED):
        data = to_table([*sc.rows.rows(range(500, 503)), sc.rows.row(600 + n, region=value)])
        err = sc.refused(Step(op, data), InvalidPartitionValueError)
        _check_value_error(err, "region", value)


def test_a_timestamp_output_format_into_the_metadata_folder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t"
    config = new_table_config(
        "t",
        record_key_fields=["id"],
        partition_fields=["ts"],
        ordering_fields=["ts"],
        key_generator_type="TIMESTAMP",
        extra={
            "hoodie.keygen.timebased.timestamp.type": "EPOCHMILLISECONDS",
            "hoodie.keygen.timebased.output.dateformat": "'.hoodie'/yyyy",
            "hoodie.keygen.timebased.timezone": "UTC",
        },
    )
    table = HudiTable.create(str(path), config)
    before = snapshot_files(path)
    with pytest.raises(InvalidPartitionValueError) as info:
        WriteClient(table).upsert(pa.table({"id": ["a"], "ts": [1705311000000]}))
    _check_value_error(info.value, "ts", ".hoodie/2024")
    assert snapshot_files(path) == before


def test_partitions_nested_in_one_another_are_refused(tmp_path: Path) -> None:
    """``eu/x`` inside the existing ``eu``, ``eu`` around a new ``zz/y``... one write at a time."""
    sc = _scenario(LocalEngine(), tmp_path / "t", Layout(KeyGen.SIMPLE, True))
    for regions in (["eu/x"], ["zz", "zz/y"], ["ap/1/2", "zz"]):
        rows = [sc.rows.row(700 + i, region=r) for i, r in enumerate(regions)]
        err = sc.refused(Step(WriteOperation.UPSERT, to_table(rows)), DataError)
        assert isinstance(err, PartitionPathError)
        assert "nest" in str(err)
    # The other way round: a new partition around an existing one.
    sc.run(Step(WriteOperation.UPSERT, to_table(rows := [sc.rows.row(800, region="deep/one")])), rows)
    err = sc.refused(Step(WriteOperation.UPSERT, to_table([sc.rows.row(801, region="deep")])), DataError)
    assert isinstance(err, PartitionPathError)
    # Same depth everywhere (a timestamp-style value) is fine.
    rows = [sc.rows.row(900, region="deep/two")]
    sc.run(Step(WriteOperation.UPSERT, to_table(rows)), rows)
    sc.checker().check_latest()


@pytest.mark.parametrize(
    ("style", "values"),
    [
        pytest.param(PartitionStyle.PLAIN, [".net", "x/.y", "__HIVE_DEFAULT_PARTITION__/z"], id="plain-hidden"),
        pytest.param(PartitionStyle.HIVE, [".hoodie", ".hoodie_partition_metadata", "..", "."], id="hive"),
        pytest.param(PartitionStyle.HIVE_URL_ENCODED, ["a/../b", ".hoodie/timeline", "a//b", "/"], id="hive-url"),
    ],
)
def test_values_readers_find_are_written(style: PartitionStyle, values: list[str], tmp_path: Path) -> None:
    """Apache Hudi writes these and every reader lists them: no reason to refuse them."""
    sc = _scenario(LocalEngine(), tmp_path / "t", Layout(KeyGen.SIMPLE, True, style))
    rows = [sc.rows.row(1000 + i, region=v) for i, v in enumerate(values)]
    sc.run(Step(WriteOperation.UPSERT, to_table(rows)), rows)
    sc.checker().check_latest()
    assert set(values) <= set(read_table(sc.table).column("region").to_pylist())


@pytest.mark.spark
def test_the_spark_engine_refuses_a_reserved_value(spark: Any, tmp_path: Path) -> None:
    from tests.acceptance.engines import SparkEngine

    sc = _scenario(LocalEngine(), tmp_path / "t", Layout(KeyGen.SIMPLE, True))
    sc.engine = SparkEngine(spark)
    data = to_table([*sc.rows.rows(range(500, 503)), sc.rows.row(600, region=".hoodie")])
    err = sc.refused(Step(WriteOperation.UPSERT, data), InvalidPartitionValueError)
    _check_value_error(err, "region", ".hoodie")
    err = sc.refused(Step(WriteOperation.UPSERT, to_table([sc.rows.row(601, region="eu/x")])), DataError)
    assert isinstance(err, PartitionPathError)


# ------------------------------------------------------------------------------------------- S3
@pytest.fixture
def s3_uri(endpoint: str) -> str:
    bucket = f"hudi-reserved-{uuid.uuid4().hex[:10]}"
    boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    return f"s3://{bucket}/t"


def _objects(uri: str, endpoint: str) -> Iterator[tuple[str, str]]:
    bucket, _, prefix = uri.removeprefix("s3://").partition("/")
    client = boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1")
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/"):
        for obj in page.get("Contents", []):
            yield obj["Key"], obj["ETag"]


@pytest.mark.s3
def test_reserved_and_nested_values_are_refused_on_s3(s3_uri: str, endpoint: str) -> None:
    options = {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    table = HudiTable.create(s3_uri, config, storage_options=options)
    client = WriteClient(table, HudiSettings.from_hoodie_options({}, env=False))
    client.upsert(pa.table({"id": ["a", "b"], "city": ["sf", "ny"], "ts": [1, 1]}))
    before = sorted(_objects(s3_uri, endpoint))
    rows = read_table(table.reload()).select(["id", "city", "ts"]).sort_by("id")
    for city in (".hoodie", ".hoodie/timeline/x", "x/.hoodie_partition_metadata", "a/../b", "sf/x"):
        with pytest.raises(DataError) as info:
            client.upsert(pa.table({"id": ["c", "d"], "city": ["la", city], "ts": [2, 2]}))
        assert isinstance(info.value, PartitionPathError)
        assert sorted(_objects(s3_uri, endpoint)) == before, city
        assert read_table(table.reload()).select(["id", "city", "ts"]).sort_by("id") == rows
