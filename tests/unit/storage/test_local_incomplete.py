"""Incomplete writes of the local backend: temporary files a killed writer leaves, listing and
discarding them, and what discarding one does to a writer that is still alive."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework.contracts.storage import IncompleteWrite
from hudi_framework.errors import InvalidStorageKeyError, PreconditionFailedError, StorageError
from hudi_storage_local import LocalStorageProvider
from hudi_storage_local.backend import LocalStorageBackend

TMP_HEX = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def backend(tmp_path: Path) -> LocalStorageBackend:
    opened = LocalStorageProvider().open(str(tmp_path / "t"))
    assert isinstance(opened, LocalStorageBackend)
    return opened


def _leave_temp(backend: LocalStorageBackend, target: str, data: bytes = b"partial") -> Path:
    """What a writer killed before publishing ``target`` leaves."""
    path = Path(backend.path(target))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{TMP_HEX}.tmp"
    tmp.write_bytes(data)
    return tmp


def test_a_killed_writers_temporary_files_are_listed_by_target(backend: LocalStorageBackend) -> None:
    _leave_temp(backend, "sf/f1_0-0-0_20240101000000000.parquet")
    _leave_temp(backend, "sf/.f2_20240101000000000.log.1_0-0-0")
    _leave_temp(backend, ".hoodie/timeline/20240101000000000.commit.requested")
    backend.write("sf/.hoodie_partition_metadata", b"x")
    assert backend.list("sf") == [backend.info("sf/.hoodie_partition_metadata")], "listings never show them"
    found = backend.list_incomplete("sf")
    assert sorted(w.target for w in found) == [
        "sf/.f2_20240101000000000.log.1_0-0-0",
        "sf/f1_0-0-0_20240101000000000.parquet",
    ]
    assert {w.target_name for w in found} == {".f2_20240101000000000.log.1_0-0-0", "f1_0-0-0_20240101000000000.parquet"}
    assert all(w.handle.startswith("sf/.") and w.handle.endswith(".tmp") for w in found)
    assert backend.list_incomplete("") == []
    assert len(backend.list_incomplete("", recursive=True)) == 3
    for write in found:
        backend.discard_incomplete(write)
        backend.discard_incomplete(write)  # already gone
    assert (
        backend.list_incomplete("", recursive=True)[0].target == ".hoodie/timeline/20240101000000000.commit.requested"
    )
    assert sorted(p.name for p in Path(backend.path("sf")).iterdir()) == [".hoodie_partition_metadata"]


def test_only_temporary_files_can_be_discarded(backend: LocalStorageBackend) -> None:
    backend.write("sf/data.parquet", b"x")
    fake = IncompleteWrite(
        target="sf/data.parquet", started=backend.info("sf/data.parquet").modified, handle="sf/data.parquet"
    )
    with pytest.raises(InvalidStorageKeyError):
        backend.discard_incomplete(fake)
    assert backend.exists("sf/data.parquet")


def test_delete_tree_takes_temporary_files_and_directories(backend: LocalStorageBackend) -> None:
    backend.put_if_absent(".hoodie/.temp/1/sf/a.parquet.marker.CREATE", b"")
    _leave_temp(backend, ".hoodie/.temp/1/sf/b.parquet.marker.CREATE")
    backend.put_if_absent(".hoodie/.temp/2/sf/c.parquet.marker.CREATE", b"")
    backend.delete_tree(".hoodie/.temp/1")
    assert not Path(backend.path(".hoodie/.temp/1")).exists()
    assert backend.list_dirs(".hoodie/.temp") == [".hoodie/.temp/2"]


@pytest.mark.parametrize("operation", ["write", "put_if_absent", "compare_and_swap"])
def test_a_small_write_whose_temporary_file_vanished_is_written_again(
    backend: LocalStorageBackend, monkeypatch: pytest.MonkeyPatch, operation: str
) -> None:
    """A sweep may discard a live writer's temporary file of a small object: the write redoes it."""
    backend.write("k", b"old")
    version = backend.read_versioned("k").version
    real = LocalStorageBackend._tmp_write
    swept: list[Path] = []

    def tmp_write(self: LocalStorageBackend, target: Path, data: bytes) -> Path:
        tmp = real(self, target, data)
        if not swept:
            tmp.unlink()  # a concurrent sweep
            swept.append(tmp)
        return tmp

    monkeypatch.setattr(LocalStorageBackend, "_tmp_write", tmp_write)
    if operation == "write":
        backend.write("k", b"new")
    elif operation == "put_if_absent":
        backend.put_if_absent("k2", b"new")
        with pytest.raises(PreconditionFailedError):
            backend.put_if_absent("k2", b"newer")
    else:
        backend.compare_and_swap("k", b"new", version)
    assert swept
    assert backend.read("k2" if operation == "put_if_absent" else "k") == b"new"
    assert backend.list_incomplete("", recursive=True) == []


def test_a_stream_whose_temporary_file_vanished_fails_to_publish(backend: LocalStorageBackend) -> None:
    out = backend.open_output("sf/data.parquet")
    out.write(b"rows")
    (write,) = backend.list_incomplete("sf")
    assert write.target == "sf/data.parquet"
    backend.discard_incomplete(write)
    with pytest.raises(StorageError, match="removed before it was published"):
        out.close()
    assert not backend.exists("sf/data.parquet")


def test_deleting_the_last_data_file_of_a_directory_removes_the_directory(backend: LocalStorageBackend) -> None:
    root = Path(backend.path(""))
    backend.write("la/2024/a.parquet", b"a")
    backend.write("la/2024/b.parquet", b"b")
    backend.write(".hoodie/.heartbeat/1", b"")
    backend.delete("la/2024/a.parquet")
    assert (root / "la" / "2024").is_dir()  # not empty yet
    backend.delete("la/2024/b.parquet")
    assert not (root / "la").exists()  # a partition a rolled-back write created leaves no trace
    backend.delete(".hoodie/.heartbeat/1")
    assert (root / ".hoodie" / ".heartbeat").is_dir()  # the metadata folder's directories stay
    assert root.is_dir()
    backend.write("la/2024/c.parquet", b"c")  # and a writer recreates what it needs
    assert backend.read("la/2024/c.parquet") == b"c"
