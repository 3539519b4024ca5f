"""Hadoop's local file system (Apache Hudi on ``file://`` paths) keeps a checksum beside each file it
writes (``dir/.name.crc``) and verifies it on every read: a file we rewrite under a checksum it left
makes Apache Hudi fail to read it (``hoodie.properties`` after it compacted a table we then wrote:
"Could not load Hoodie properties"). The local backend removes that side file whenever it replaces,
creates or deletes a file, so Hadoop reads our bytes unverified, as it does any file without one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hudi_framework.contracts.storage import StorageBackend
from hudi_storage_local.backend import LocalStorageBackend

KEY = ".hoodie/hoodie.properties"


def _write(storage: StorageBackend) -> None:
    storage.write(KEY, b"new")


def _compare_and_swap(storage: StorageBackend) -> None:
    storage.compare_and_swap(KEY, b"new", storage.read_versioned(KEY).version)


def _stream(storage: StorageBackend) -> None:
    with storage.open_output(KEY) as out:
        out.write(b"new")


def _delete(storage: StorageBackend) -> None:
    storage.delete(KEY)


@pytest.mark.parametrize("change", [_write, _compare_and_swap, _stream, _delete], ids=lambda f: f.__name__[1:])
def test_changing_a_file_drops_hadoops_checksum_of_it(tmp_path: Path, change: Callable[[StorageBackend], None]) -> None:
    (tmp_path / ".hoodie").mkdir()
    (tmp_path / KEY).write_bytes(b"old")
    checksum = tmp_path / ".hoodie" / ".hoodie.properties.crc"
    checksum.write_bytes(b"crc\0\0\0\2\0stale")
    other = tmp_path / ".hoodie" / ".other.crc"
    other.write_bytes(b"crc\0")
    change(LocalStorageBackend(str(tmp_path)))
    assert not checksum.exists()
    assert other.exists()  # only the changed file's checksum goes


def test_creating_a_file_drops_a_stale_checksum(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    checksum = tmp_path / "p" / ".f.parquet.crc"
    checksum.write_bytes(b"crc\0")
    LocalStorageBackend(str(tmp_path)).put_if_absent("p/f.parquet", b"new")
    assert not checksum.exists()
    assert (tmp_path / "p" / "f.parquet").read_bytes() == b"new"
