"""The ``filesystem`` lock keeps Apache Hudi's ``FileSystemBasedLockProvider`` file layout."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from hudi_framework.contracts.lock import LockContext, LockProvider
from hudi_framework.errors import LockProviderError
from hudi_lock_filesystem.options import FileSystemLockOptions
from hudi_lock_filesystem.provider import FileSystemLockFactory
from hudi_storage_local import LocalStorageProvider


def _open(table: Path, owner: str, options: FileSystemLockOptions | None = None) -> LockProvider:
    storage = LocalStorageProvider().open(str(table))
    factory = FileSystemLockFactory(options or FileSystemLockOptions(poll_interval_secs=0.05))
    return factory.open(LockContext(base_path=storage.root_uri, table_name="t", storage=storage, owner=owner))


def test_lock_file_is_hoodie_lock_with_hudi_lock_info(tmp_path: Path) -> None:
    lock = _open(tmp_path, "host/1/a")
    assert lock.try_lock(0)
    info = json.loads((tmp_path / ".hoodie" / "lock").read_text())
    assert set(info) == {"lockCreateTime", "lockThreadName", "lockStacksInfo"}
    assert info["lockThreadName"] == "host/1/a"
    assert len(info["lockCreateTime"]) == len("2026-01-01 00:00:00.000")
    lock.unlock()
    assert not (tmp_path / ".hoodie" / "lock").exists()


def test_a_file_written_by_apache_hudi_is_held(tmp_path: Path) -> None:
    (tmp_path / ".hoodie").mkdir()
    (tmp_path / ".hoodie" / "lock").write_text('{"lockCreateTime":"x","lockThreadName":"main","lockStacksInfo":[]}')
    lock = _open(tmp_path, "ours")
    assert not lock.try_lock(0.1)
    assert lock.last_holder() == "main"
    lock.unlock()  # a non-holder's unlock leaves the file alone
    assert (tmp_path / ".hoodie" / "lock").exists()


def test_path_option_places_the_file_and_must_stay_in_the_table(tmp_path: Path) -> None:
    lock = _open(tmp_path, "a", FileSystemLockOptions(path=f"file:{tmp_path}/.hoodie/.aux"))
    assert lock.try_lock(0)
    assert (tmp_path / ".hoodie" / ".aux" / "lock").exists()
    lock.unlock()
    with pytest.raises(LockProviderError, match="outside the table base path"):
        _open(tmp_path, "a", FileSystemLockOptions(path="/elsewhere/locks"))


def test_expire_removes_an_abandoned_file_and_its_checksum(tmp_path: Path) -> None:
    hoodie = tmp_path / ".hoodie"
    hoodie.mkdir()
    for name in ("lock", ".lock.crc"):
        (hoodie / name).write_text("{}")
        old = time.time() - 120
        os.utime(hoodie / name, (old, old))
    assert not _open(tmp_path, "a").try_lock(0.2)  # expire=0: never abandoned
    lock = _open(tmp_path, "a", FileSystemLockOptions(expire=1, poll_interval_secs=0.05))
    assert lock.try_lock(1)
    assert not (hoodie / ".lock.crc").exists()
    assert json.loads((hoodie / "lock").read_text())["lockThreadName"] == "a"


def test_holder_whose_file_was_deleted_is_no_longer_held(tmp_path: Path) -> None:
    lock = _open(tmp_path, "a")
    assert lock.try_lock(0)
    assert lock.is_held()
    (tmp_path / ".hoodie" / "lock").unlink()  # as Apache Hudi's provider does in close()
    assert not lock.is_held()
    other = _open(tmp_path, "b")
    assert other.try_lock(0)
    lock.unlock()  # must not delete b's file
    assert json.loads((tmp_path / ".hoodie" / "lock").read_text())["lockThreadName"] == "b"
