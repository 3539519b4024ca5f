"""The .hoodie_partition_metadata codec."""

from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.contracts.partition_path import PartitionPathError
from hudi_framework.errors import StorageNotFoundError, UnsupportedFormatError
from hudi_framework.layout.partition_metadata import (
    PARTITION_METADATA_FILE,
    PartitionMetadata,
    is_partition_metadata_file,
    partition_depth,
    partition_metadata_key,
    read_partition_metadata,
    write_partition_metadata,
)
from hudi_storage_local.backend import LocalStorageBackend

JAVA_WRITTEN = b"#partition metadata\n#Thu Apr 18 17:32:14 CDT 2024\ncommitTime=20240418173213674\npartitionDepth=2\n"


def test_parse_java_written_file() -> None:
    meta = PartitionMetadata.from_bytes(JAVA_WRITTEN)
    assert meta == PartitionMetadata("20240418173213674", 2)


def test_parse_tolerates_properties_syntax() -> None:
    data = b"! comment\r\n  commitTime : 1\r\n\npartitionDepth= 0 \nother=x\n"
    assert PartitionMetadata.from_bytes(data) == PartitionMetadata("1", 0)
    with pytest.raises(PartitionPathError, match="commitTime"):
        PartitionMetadata.from_bytes(b"partitionDepth=1\n")
    with pytest.raises(PartitionPathError):
        PartitionMetadata.from_bytes(b"commitTime=1\npartitionDepth=x\n")


def test_serialise_like_java() -> None:
    now = dt.datetime(2024, 4, 18, 22, 32, 14, tzinfo=dt.UTC)
    data = PartitionMetadata.for_partition("byteField=10/shortField=300", "20240418173213674").to_bytes(now)
    assert data == (
        b"#partition metadata\n#Thu Apr 18 22:32:14 UTC 2024\ncommitTime=20240418173213674\npartitionDepth=2\n"
    )
    assert PartitionMetadata.from_bytes(data) == PartitionMetadata("20240418173213674", 2)
    assert PartitionMetadata("1", 0).to_bytes().startswith(b"#partition metadata\n#")


def test_helpers() -> None:
    assert partition_depth("") == 0
    assert partition_depth("a") == 1
    assert partition_depth("2023/04/01/12") == 4
    assert partition_metadata_key("") == PARTITION_METADATA_FILE
    assert partition_metadata_key("a/b") == f"a/b/{PARTITION_METADATA_FILE}"
    assert is_partition_metadata_file(".hoodie_partition_metadata")
    assert is_partition_metadata_file(".hoodie_partition_metadata.parquet")
    assert not is_partition_metadata_file(".hoodie_partition_metadata_x")


def test_write_then_read_through_storage(tmp_path: Path) -> None:
    storage = LocalStorageBackend(str(tmp_path))
    assert write_partition_metadata(storage, "region=eu", "20240101000000000")
    assert not write_partition_metadata(storage, "region=eu", "20250101000000000")  # first writer wins
    assert read_partition_metadata(storage, "region=eu") == PartitionMetadata("20240101000000000", 1)
    assert write_partition_metadata(storage, "", "1")
    assert read_partition_metadata(storage, "") == PartitionMetadata("1", 0)
    with pytest.raises(StorageNotFoundError):
        read_partition_metadata(storage, "missing")
    with pytest.raises(PartitionPathError):
        write_partition_metadata(storage, "a/../b", "1")


def test_read_parquet_and_orc_variants(tmp_path: Path) -> None:
    storage = LocalStorageBackend(str(tmp_path))
    table = pa.table({"x": [1]}).replace_schema_metadata({"commitTime": "20240101000000000", "partitionDepth": "1"})
    buf = io.BytesIO()
    pq.write_table(table, buf)
    storage.write(f"p/{PARTITION_METADATA_FILE}.parquet", buf.getvalue())
    assert read_partition_metadata(storage, "p") == PartitionMetadata("20240101000000000", 1)
    storage.write(f"q/{PARTITION_METADATA_FILE}.orc", b"ORC")
    with pytest.raises(UnsupportedFormatError, match="orc"):
        read_partition_metadata(storage, "q")


def test_existing_metadata_is_not_written_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    storage = LocalStorageBackend(str(tmp_path))
    puts: list[str] = []
    original = storage.put_if_absent
    monkeypatch.setattr(storage, "put_if_absent", lambda key, data: puts.append(key) or original(key, data))
    assert write_partition_metadata(storage, "region=eu", "20240101000000000")
    assert not write_partition_metadata(storage, "region=eu", "20250101000000000")
    assert puts == [partition_metadata_key("region=eu")]  # the second call only looked
    # A rival that creates the file between the lookup and the put: still first writer wins.
    monkeypatch.setattr(storage, "exists", lambda key: False)
    assert not write_partition_metadata(storage, "region=eu", "20260101000000000")
    assert read_partition_metadata(storage, "region=eu") == PartitionMetadata("20240101000000000", 1)
