"""Completions under the table lock: ``write.serialize_commits`` (a single writer with table services
running beside it) and compactions under optimistic concurrency control.

The test holds the table's in-process lock; a completion that needs it stays inflight until the test
releases it, one that does not completes meanwhile.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from hudi_framework.write.compactor import execute_compaction
from hudi_framework.write.concurrency import WriteConcurrency
from hudi_framework.write.service_host import open_table_service

SERIALIZED = HudiSettings(write={"serialize_commits": True, "small_file_limit_bytes": 0})
OCC = HudiSettings(write={"concurrency_mode": "optimistic_concurrency_control", "small_file_limit_bytes": 0})
PLAIN = HudiSettings(write={"small_file_limit_bytes": 0})


def _table(path: Path, table_type: str = "COPY_ON_WRITE") -> HudiTable:
    config = new_table_config("t", table_type=table_type, record_key_fields=["id"], ordering_fields=["ts"])
    return HudiTable.create(str(path), config)


def _schedule(table: HudiTable, settings: HudiSettings) -> str:
    service, host = open_table_service(table.reload(), settings, "compaction")
    instant = service.schedule(host)
    assert instant is not None
    return instant


def _batch(ids: list[str], ts: int) -> pa.Table:
    return pa.table({"id": ids, "ts": [ts] * len(ids)})


@contextmanager
def _lock_held(table: HudiTable, settings: HudiSettings) -> Iterator[None]:
    open_lock = WriteConcurrency.from_settings(settings, table).open_lock
    assert open_lock is not None
    provider = open_lock()
    assert provider.try_lock(5)
    try:
        yield
    finally:
        provider.unlock()


def _completes_while_locked(table: HudiTable, settings: HudiSettings, work: Callable[[], Any]) -> bool:
    """Run ``work`` in a thread while the lock is held; whether it finished before the release."""
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as e:
            errors.append(e)
        done.set()

    with _lock_held(table, settings):
        worker = threading.Thread(target=run)
        worker.start()
        finished = done.wait(1.0)
        if not finished:
            # Waiting for the lock with its instant inflight: nothing completed yet.
            assert table.reload().timeline.pending(), "a completion waiting for the lock left no pending instant"
    worker.join(30)
    assert not errors, errors
    return finished


def test_a_serialized_commit_waits_for_the_table_lock(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    client = WriteClient(table, SERIALIZED)
    assert not _completes_while_locked(table, SERIALIZED, lambda: client.upsert(_batch(["a", "b"], 1)))
    assert sorted(r["id"] for r in read_table(table.reload()).to_pylist()) == ["a", "b"]


def test_a_single_writer_commit_takes_no_lock_by_default(tmp_path: Path) -> None:
    table = _table(tmp_path / "t")
    client = WriteClient(table, PLAIN)
    assert _completes_while_locked(table, PLAIN, lambda: client.upsert(_batch(["a"], 1)))


@pytest.mark.parametrize("settings", [SERIALIZED, OCC], ids=["serialized", "occ"])
def test_a_compaction_completes_under_the_table_lock(tmp_path: Path, settings: HudiSettings) -> None:
    table = _table(tmp_path / "t", "MERGE_ON_READ")
    WriteClient(table, settings).upsert(_batch(["a", "b"], 1))
    WriteClient(table, settings).upsert(_batch(["a"], 2))
    instant = _schedule(table, settings)
    assert not _completes_while_locked(table, settings, lambda: execute_compaction(table.reload(), instant, settings))
    completed = table.reload().timeline.completed({Action.COMMIT})
    assert [i.requested_time for i in completed] == [instant]
    assert sorted((r["id"], r["ts"]) for r in read_table(table).to_pylist()) == [("a", 2), ("b", 1)]


def test_a_compaction_takes_no_lock_by_default(tmp_path: Path) -> None:
    table = _table(tmp_path / "t", "MERGE_ON_READ")
    WriteClient(table, PLAIN).upsert(_batch(["a", "b"], 1))
    WriteClient(table, PLAIN).upsert(_batch(["a"], 2))
    instant = _schedule(table, PLAIN)
    assert _completes_while_locked(table, PLAIN, lambda: execute_compaction(table.reload(), instant, PLAIN))
