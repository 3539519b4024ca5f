"""Commit hooks: ``hudi_pre_commit`` may veto an instant, ``hudi_commit_completed`` observes it.

A veto fails the write exactly as any failed write: the caller gets a ``CommitVetoedError`` naming
the plugin, the instant never completes, its files are rolled back and the table reads row for row
as before (ours and hudi-rs), on local disk and on S3. An observer that fails is a post-commit
failure: the write is committed, the failure is reported, never raised.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import CommitVetoedError, PostCommitWarning
from hudi_framework.plugin import build_plugin_manager, hookimpl
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant, State
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place, snapshot

Rows = list[tuple[str, str, int]]


@dataclass
class Guard:
    """A plugin that vetoes the actions in ``veto`` (``fail``: raises a plain error instead)."""

    veto: set[str] = field(default_factory=set)
    fail: bool = False
    seen: list[tuple[str, str, Mapping[str, object]]] = field(default_factory=list)

    @hookimpl
    def hudi_pre_commit(self, base_path: str, instant: str, action: str, metadata: Mapping[str, object]) -> None:
        self.seen.append((instant, action, metadata))
        if action in self.veto:
            if self.fail:
                raise RuntimeError("the validator's database is down")
            raise CommitVetoedError("acme-guard", f"no {action} today")


@dataclass
class Observer:
    """A plugin that records completed instants (``fail``: raises after recording)."""

    fail: bool = False
    seen: list[tuple[str, str, str, Mapping[str, object]]] = field(default_factory=list)

    @hookimpl
    def hudi_commit_completed(
        self, base_path: str, instant: str, action: str, completion_time: str, metadata: Mapping[str, object]
    ) -> None:
        self.seen.append((instant, action, completion_time, metadata))
        if self.fail:
            raise ConnectionError("the catalog is unreachable")


def _batch(ids: list[str], ts: int, city: str = "sf") -> pa.Table:
    return pa.table({"id": ids, "city": [city] * len(ids), "ts": [ts] * len(ids)})


def _create(place: Place, plugins: dict[str, object], table_type: str = "COPY_ON_WRITE", version: int = 9) -> HudiTable:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    pm = build_plugin_manager(extra_plugins=plugins)
    return HudiTable.create(place.uri, config, plugin_manager=pm, storage_options=place.options)


def _rows(table: HudiTable) -> Rows:
    t = read_table(table.reload()).select(["id", "city", "ts"])
    return sorted((r["id"], r["city"], r["ts"]) for r in t.to_pylist())


def _completed_writes(table: HudiTable) -> list[Instant]:
    # A merge-on-read v6 rollback completes a rollback instant of its own (its log blocks name it).
    return [i for i in table.reload().timeline.completed() if i.action in WRITE_ACTIONS]


def _data_files(table: HudiTable) -> set[str]:
    # A partition's metadata file may stay, as after any failed write (it names no data).
    listed = table.storage.list("", recursive=True)
    return {i.key for i in listed if not i.key.startswith(".hoodie") and ".hoodie_partition_metadata" not in i.key}


#: (table type, version, operation): every action a data write completes (commit, deltacommit, replacecommit).
VETOED = [
    ("COPY_ON_WRITE", 9, "upsert"),
    ("COPY_ON_WRITE", 9, "bulk_insert"),
    ("COPY_ON_WRITE", 6, "delete"),
    ("COPY_ON_WRITE", 9, "insert_overwrite"),
    ("MERGE_ON_READ", 9, "upsert"),
    ("MERGE_ON_READ", 8, "insert"),
    ("MERGE_ON_READ", 6, "upsert"),
]


@pytest.mark.parametrize(("table_type", "version", "operation"), VETOED, ids=["-".join(map(str, v)) for v in VETOED])
def test_a_vetoed_write_leaves_the_table_as_before(place: Place, table_type: str, version: int, operation: str) -> None:
    guard = Guard()
    table = _create(place, {"acme-guard": guard}, table_type, version)
    client = WriteClient(table)
    client.insert(_batch(["a", "b"], 1))
    client.upsert(_batch(["a"], 2))
    before_rows, before_files = _rows(table), _data_files(table)
    before = snapshot(place.uri, place.endpoint, place.options)
    completed = _completed_writes(table)
    guard.veto = {"commit", "deltacommit", "replacecommit"}

    with pytest.raises(CommitVetoedError, match=r"commit vetoed by acme-guard: no .*commit today") as caught:
        client.write(_batch(["a", "c"], 3), operation)

    assert caught.value.plugin == "acme-guard"
    assert _rows(table) == before_rows, "row for row as before"
    assert snapshot(place.uri, place.endpoint, place.options) == before, "hudi-rs reads it as before too"
    timeline = table.reload().timeline
    assert _completed_writes(table) == completed, "the vetoed instant never completed"
    assert not timeline.pending(WRITE_ACTIONS), "and was rolled back"
    if not (table_type == "MERGE_ON_READ" and version == 6):  # v6 logs keep a rollback block instead
        assert _data_files(table) == before_files, "its data files are gone"
    vetoed = guard.seen[-1]
    assert vetoed[0] not in {i.requested_time for i in timeline.completed()}
    guard.veto = set()
    client.upsert(_batch(["c"], 4))  # the next write works
    assert _rows(table) == sorted([*before_rows, ("c", "sf", 4)])


def test_a_veto_under_optimistic_concurrency_releases_the_lock(tmp_path: Path) -> None:
    guard = Guard(veto={"commit"})
    table = _create(Place(str(tmp_path / "t"), None), {"acme-guard": guard})
    occ = HudiSettings(write={"concurrency_mode": "optimistic_concurrency_control"})
    client = WriteClient(table, occ)
    with pytest.raises(CommitVetoedError):
        client.insert(_batch(["a"], 1))
    assert _completed_writes(table) == []
    assert _data_files(table) == set()
    assert not table.reload().timeline.pending(WRITE_ACTIONS)
    guard.veto = set()
    client.insert(_batch(["b"], 2))  # the lock was released: this write takes it again
    assert _rows(table) == [("b", "sf", 2)]


def test_a_failing_pre_commit_check_vetoes_naming_the_plugin(tmp_path: Path) -> None:
    guard = Guard(veto={"commit"}, fail=True)
    table = _create(Place(str(tmp_path / "t"), None), {"acme-guard": guard})
    with pytest.raises(CommitVetoedError, match=r"plugin 'acme-guard'.*database is down") as caught:
        WriteClient(table).insert(_batch(["a"], 1))
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert _completed_writes(table) == []
    assert _data_files(table) == set()


def test_pre_commit_sees_the_metadata_about_to_be_written(tmp_path: Path) -> None:
    guard = Guard()
    table = _create(Place(str(tmp_path / "t"), None), {"acme-guard": guard})
    result = WriteClient(table).insert(_batch(["a", "b"], 1))
    ((instant, action, metadata),) = guard.seen
    assert (instant, action) == (result.instant.requested_time, "commit")
    assert metadata["operationType"] == "INSERT"
    stats = metadata["partitionToWriteStats"]
    assert isinstance(stats, dict)
    assert sum(s["numInserts"] for s in stats["sf"]) == 2
    with pytest.raises(TypeError):
        metadata["operationType"] = "UPSERT"  # type: ignore[index]


def test_commit_completed_observes_every_write_and_service(tmp_path: Path) -> None:
    observer, guard = Observer(), Guard()
    table = _create(Place(str(tmp_path / "t"), None), {"acme-sync": observer, "acme-guard": guard}, "MERGE_ON_READ")
    settings = HudiSettings(
        services={"compaction": {"inline": True, "max_delta_commits": 1}, "clean": {"commits_retained": 1}}
    )
    client = WriteClient(table, settings)
    first = client.insert(_batch(["a", "b"], 1))
    second = client.upsert(_batch(["a"], 2))  # a log file: compaction due, then a clean
    third = client.upsert(_batch(["b"], 3))
    timeline = table.reload().timeline
    done = {i.requested_time: i for i in timeline.completed()}
    actions = [a for _, a, _, _ in observer.seen]
    assert [i for i, *_ in observer.seen][:2] == [first.instant.requested_time, second.instant.requested_time]
    assert "compaction" in actions, actions
    assert "clean" in actions, actions
    for instant, _, completion_time, metadata in observer.seen:
        assert done[instant].completion_time == completion_time
        assert metadata, "with its metadata"
    assert third.instant.requested_time in {i for i, *_ in observer.seen}
    assert "clean" not in {a for _, a, _ in guard.seen}, "a clean cannot be vetoed"
    assert {"deltacommit", "compaction"} <= {a for _, a, _ in guard.seen}
    assert _rows(table) == [("a", "sf", 2), ("b", "sf", 3)]
    assert not timeline.by_action(Action.ROLLBACK)


def test_a_failing_observer_is_a_post_commit_failure(place: Place) -> None:
    failing, fine = Observer(fail=True), Observer()
    table = _create(place, {"acme-sync": failing, "acme-metrics": fine})
    with pytest.warns(PostCommitWarning, match="hudi_commit_completed of plugin 'acme-sync'"):
        result = WriteClient(table).insert(_batch(["a"], 1))
    (failure,) = result.post_commit_failures
    assert failure.step == "hudi_commit_completed of plugin 'acme-sync'"
    assert isinstance(failure.error, ConnectionError)
    assert result.instant in table.reload().timeline.completed(), "committed"
    assert [i for i, *_ in fine.seen] == [result.instant.requested_time], "the other observer still ran"
    assert _rows(table) == [("a", "sf", 1)]


def test_a_vetoed_compaction_goes_back_to_requested(tmp_path: Path) -> None:
    guard = Guard(veto={"compaction"})
    table = _create(Place(str(tmp_path / "t"), None), {"acme-guard": guard}, "MERGE_ON_READ")
    client = WriteClient(table, HudiSettings(services={"compaction": {"inline": True, "max_delta_commits": 1}}))
    client.insert(_batch(["a", "b"], 1))
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        result = client.upsert(_batch(["a"], 2))
    (failure,) = result.post_commit_failures
    assert failure.step == "compaction"
    assert isinstance(failure.error, CommitVetoedError)
    timeline = table.reload().timeline
    (pending,) = timeline.pending({Action.COMPACTION})
    assert pending.state is State.REQUESTED
    assert not [i for i in timeline.completed() if i.action is Action.COMMIT], "no compaction completed"
    assert _rows(table) == [("a", "sf", 2), ("b", "sf", 1)]
    guard.veto = set()
    client.upsert(_batch(["b"], 3))
    assert _rows(table) == [("a", "sf", 2), ("b", "sf", 3)]


@pytest.mark.spark
def test_a_vetoed_spark_write_leaves_the_table_as_before(spark: Any, tmp_path: Path) -> None:
    from hudi_framework.spark.write_engine import SparkWriteClient

    guard = Guard()
    table = _create(Place(str(tmp_path / "t"), None), {"acme-guard": guard})
    client = SparkWriteClient(table, HudiSettings(), spark)
    client.insert(spark.createDataFrame(_batch(["a", "b"], 1)))
    before_rows, before_files = _rows(table), _data_files(table)
    guard.veto = {"commit"}
    with pytest.raises(CommitVetoedError, match="acme-guard"):
        client.upsert(spark.createDataFrame(_batch(["a", "c"], 2)))
    assert _rows(table) == before_rows
    assert _data_files(table) == before_files
    assert not table.reload().timeline.pending(WRITE_ACTIONS)
