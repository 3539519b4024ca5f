"""Partition discovery and table listing from storage."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework.contracts.storage import FileInfo, StorageBackend
from hudi_framework.errors import NestedPartitionError, PartitionPathError
from hudi_framework.layout.discovery import TableListing, check_new_partitions, discover_partitions, list_table
from hudi_storage_local.backend import LocalStorageBackend

META = ".hoodie_partition_metadata"


class CountingBackend(LocalStorageBackend):
    """Records every listing call, to check the request pattern object stores see."""

    def __init__(self, root: str) -> None:
        super().__init__(root)
        self.calls: list[tuple[str, bool]] = []

    def list(self, prefix: str = "", *, recursive: bool = False) -> list[FileInfo]:
        self.calls.append((prefix, recursive))
        return super().list(prefix, recursive=recursive)


def _touch(storage: StorageBackend, *keys: str) -> None:
    for key in keys:
        storage.write(key, b"x")


def _names(listing: TableListing) -> dict[str, list[str]]:
    return {p: sorted(i.name for i in files) for p, files in listing.files.items()}


def test_non_partitioned_table_needs_one_listing(tmp_path: Path) -> None:
    storage = CountingBackend(str(tmp_path))
    _touch(storage, ".hoodie/hoodie.properties", META, "f-0_0-0-0_1.parquet", ".f-0_1.log.1_0-0-0", "x/y")
    listing = list_table(storage)
    assert _names(listing) == {"": [".f-0_1.log.1_0-0-0", "f-0_0-0-0_1.parquet"]}
    assert storage.calls == [("", False)]


def test_partitioned_table_one_recursive_listing(tmp_path: Path) -> None:
    storage = CountingBackend(str(tmp_path))
    _touch(
        storage,
        ".hoodie/hoodie.properties",
        f".hoodie/metadata/files/{META}",  # the metadata table is never a data partition
        f"byteField=10/shortField=300/{META}",
        "byteField=10/shortField=300/a-0_0-1-2_1.parquet",
        "byteField=10/.DS_Store",  # not a partition: no metadata file
        f"byteField=20/shortField=100/{META}.parquet",
        "byteField=20/shortField=100/b-0_0-1-2_1.parquet",
        "byteField=20/shortField=100/nested/c-0_0-1-2_1.parquet",
        f"2023/04/01/12/{META}",
        f"2023/04/01/12/sub/{META}",  # inside a partition: Java never descends there
        "no_meta/d-0_0-1-2_1.parquet",
        f"x/.hoodie/{META}",
    )
    listing = list_table(storage)
    assert listing.partitions == [
        "2023/04/01/12",
        "byteField=10/shortField=300",
        "byteField=20/shortField=100",
    ]
    assert _names(listing)["byteField=20/shortField=100"] == ["b-0_0-1-2_1.parquet"]
    assert _names(listing)["2023/04/01/12"] == []
    assert storage.calls == [("", False), ("", True)]
    assert discover_partitions(storage) == listing.partitions


def test_listing_known_partitions(tmp_path: Path) -> None:
    storage = CountingBackend(str(tmp_path))
    _touch(storage, f"a/{META}", "a/f-0_0-0-0_1.parquet", "b/g-0_0-0-0_1.parquet")
    listing = list_table(storage, ["a", "b", "missing"])
    assert _names(listing) == {"a": ["f-0_0-0-0_1.parquet"]}
    assert storage.calls == [("a", False), ("b", False), ("missing", False)]


def test_empty_table(tmp_path: Path) -> None:
    storage = LocalStorageBackend(str(tmp_path))
    _touch(storage, ".hoodie/hoodie.properties")
    assert list_table(storage).partitions == []
    assert discover_partitions(storage) == []


def test_new_partitions_must_be_found_by_a_listing() -> None:
    check_new_partitions(["eu", "2024/01/15", ""], ["us", "2024/01/14", ""])
    check_new_partitions(["a/b"], ["a/c", "x"])  # siblings of different depths do not nest
    check_new_partitions(["a", "a/b"], ["a", "a/b"])  # nothing new: existing layouts are not judged
    for new, existing, other in [
        (["eu/west"], ["eu"], "eu"),
        (["eu"], ["eu/west"], "eu/west"),
        (["zz", "zz/y/z"], [], "zz/y/z"),
        (["a/b/c"], ["a"], "a"),
    ]:
        with pytest.raises(NestedPartitionError) as info:
            check_new_partitions(new, existing)
        assert info.value.other == other
        assert isinstance(info.value, PartitionPathError)
    with pytest.raises(PartitionPathError, match="metadata folder"):
        check_new_partitions([".hoodie/x"], [])
