"""Failures after the commit: the write is committed, so the caller must hear "committed, and this
follow-up failed", never the error of a failed write (a caller that retries an insert or
bulk_insert on an error would write its rows twice).

Each scenario breaks one step that runs after the completed instant is written (reloading the
table, inline compaction, inline clean, dropping the markers, stopping the heartbeat, releasing the
table lock) and checks: the write returns a result naming the failed step, a ``PostCommitWarning``
is issued, the commit is on the timeline with its rows exactly once, and the next write works.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql.pandas.types import from_arrow_schema

from hudi_framework.config import HudiSettings
from hudi_framework.errors import (
    CommitStateUnknownError,
    CompactionExecutionError,
    LockProviderError,
    PostCommitWarning,
    StorageError,
)
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.datasource_write import build_writer
from hudi_framework.spark.options import SourceOptions
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action, Instant
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.write.client import WriteClient
from hudi_framework.write.heartbeat import Heartbeat
from hudi_framework.write.pipeline import WriteResult
from hudi_framework.write.transaction import WriteTransaction
from hudi_lock_inprocess.provider import InProcessLockProvider
from hudi_services_cleaning.service import CleanService
from hudi_services_compaction.service import CompactionService
from hudi_storage_local.backend import LocalStorageBackend
from tests.faults.s3_faults import FAST_RETRY, new_bucket, s3_faults, s3_options

Rows = list[tuple[str, str, int]]


def _batch(ids: list[str], ts: int, city: str = "sf") -> pa.Table:
    return pa.table({"id": ids, "city": [city] * len(ids), "ts": [ts] * len(ids)})


def _create(uri: str, table_type: str = "COPY_ON_WRITE", version: int = 9, **storage: Any) -> HudiTable:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return HudiTable.create(uri, config, storage_options=storage or None)


def _rows(table: HudiTable) -> Rows:
    t = read_table(table.reload()).select(["id", "city", "ts"])
    return sorted((r["id"], r["city"], r["ts"]) for r in t.to_pylist())


def _committed(table: HudiTable, result: WriteResult) -> None:
    timeline = table.reload().timeline
    assert result.committed
    assert result.instant in timeline.completed(), "the write is committed"
    assert not timeline.pending(WRITE_ACTIONS), "nothing to roll back"
    assert timeline.by_action(Action.ROLLBACK) == [], "and never rolled back"


def _write_with_failing_step(
    client: WriteClient, data: pa.Table, step: str, operation: str = "bulk_insert"
) -> WriteResult:
    with pytest.warns(PostCommitWarning, match=step) as caught:
        result = client.write(data, operation)
    warning = caught[0].message
    assert isinstance(warning, PostCommitWarning)
    assert (warning.instant, warning.step) == (result.instant.requested_time, step)
    assert step in [f.step for f in result.post_commit_failures], result.post_commit_failures
    return result


def test_a_failing_inline_clean_does_not_fail_the_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _create(str(tmp_path / "t"))
    settings = HudiSettings.from_hoodie_options({"hoodie.cleaner.commits.retained": "1"})
    client = WriteClient(table, settings)
    client.insert(_batch(["a", "b"], 1))
    client.upsert(_batch(["a"], 2))

    def broken(self: CleanService, table: Any, instant: str) -> None:
        raise StorageError("injected: the clean could not delete a file")

    monkeypatch.setattr(CleanService, "execute", broken)
    result = _write_with_failing_step(client, _batch(["a", "c"], 3), "clean", "upsert")
    (failure,) = result.post_commit_failures
    assert isinstance(failure.error, StorageError)
    assert "clean" in str(failure)
    _committed(table, result)
    assert _rows(table) == [("a", "sf", 3), ("b", "sf", 1), ("c", "sf", 3)]
    monkeypatch.undo()
    assert client.upsert(_batch(["b"], 4)).post_commit_failures == ()
    assert not table.reload().timeline.pending(), "the next write finished the clean"
    assert _rows(table) == [("a", "sf", 3), ("b", "sf", 4), ("c", "sf", 3)]


def test_a_failing_inline_compaction_does_not_fail_the_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _create(str(tmp_path / "t"), "MERGE_ON_READ")
    client = WriteClient(table, HudiSettings(services={"compaction": {"inline": True, "max_delta_commits": 1}}))
    client.insert(_batch(["a", "b"], 1))  # base files only: nothing to compact yet

    def broken(self: CompactionService, table: Any, instant: str) -> None:
        raise CompactionExecutionError(instant, "g", "injected")

    monkeypatch.setattr(CompactionService, "execute", broken)
    result = _write_with_failing_step(client, _batch(["a"], 2), "compaction", "upsert")  # a log file: due
    assert isinstance(result.post_commit_failures[0].error, CompactionExecutionError)
    assert [s.service for s in result.services] == [], "the compaction did not run"
    _committed(table, result)
    assert _rows(table) == [("a", "sf", 2), ("b", "sf", 1)]


def test_a_failing_reload_after_the_commit_does_not_fail_the_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table is reloaded (``hoodie.properties`` and the timeline read again) after the commit."""
    table = _create(str(tmp_path / "t"))
    client = WriteClient(table)
    real_commit, real_reload = WriteTransaction.commit, HudiTable.reload
    done: list[bool] = []

    def commit(self: WriteTransaction, *args: Any, **kwargs: Any) -> Any:
        instant = real_commit(self, *args, **kwargs)
        done.append(True)
        return instant

    def reload(self: HudiTable) -> HudiTable:
        if done:
            raise StorageError("injected: GET .hoodie/hoodie.properties failed")
        return real_reload(self)

    monkeypatch.setattr(WriteTransaction, "commit", commit)
    monkeypatch.setattr(HudiTable, "reload", reload)
    result = _write_with_failing_step(client, _batch(["a", "b"], 1), "reload")
    monkeypatch.undo()
    _committed(table, result)
    assert _rows(table) == [("a", "sf", 1), ("b", "sf", 1)], "rows once: a retry would have doubled them"


@pytest.mark.parametrize("step", ["markers", "heartbeat"])
def test_failing_cleanups_inside_the_commit_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    table = _create(str(tmp_path / "t"))
    client = WriteClient(table)

    def broken(*args: Any, **kwargs: Any) -> None:
        raise StorageError(f"injected: {step} could not be deleted")

    if step == "markers":
        monkeypatch.setattr(LocalStorageBackend, "delete_tree", broken)
    else:
        monkeypatch.setattr(Heartbeat, "stop", broken)
    result = _write_with_failing_step(client, _batch(["a"], 1), step, "insert")
    monkeypatch.undo()
    _committed(table, result)
    client.insert(_batch(["b"], 2))  # the next write drops what was left
    assert _rows(table) == [("a", "sf", 1), ("b", "sf", 2)]
    assert not (tmp_path / "t" / ".hoodie" / ".heartbeat" / result.instant.requested_time).exists()
    assert not (tmp_path / "t" / ".hoodie" / ".temp" / result.instant.requested_time).exists()


def test_a_failing_lock_release_after_the_commit_keeps_the_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under optimistic concurrency control the completed instant is written while holding the
    lock; releasing it afterwards may fail. The commit must stay (it was undone before)."""
    table = _create(str(tmp_path / "t"))
    occ = HudiSettings(write={"concurrency_mode": "optimistic_concurrency_control"})
    client = WriteClient(table, occ)
    client.insert(_batch(["a"], 1))
    real_unlock = InProcessLockProvider.unlock
    calls: list[int] = []

    def unlock(self: InProcessLockProvider) -> None:
        calls.append(1)
        real_unlock(self)  # released, but the provider reports an error
        if len(calls) == 1:
            raise LockProviderError("in-process", "injected: release failed")

    monkeypatch.setattr(InProcessLockProvider, "unlock", unlock)
    result = _write_with_failing_step(client, _batch(["b"], 2), "lock release", "upsert")
    assert isinstance(result.post_commit_failures[0].error, LockProviderError)
    _committed(table, result)
    assert _rows(table) == [("a", "sf", 1), ("b", "sf", 2)]


def test_a_write_with_nothing_failing_reports_nothing(tmp_path: Path) -> None:
    table = _create(str(tmp_path / "t"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PostCommitWarning)
        result = WriteClient(table).insert(_batch(["a"], 1))
    assert result.committed
    assert result.post_commit_failures == ()


@pytest.mark.s3
def test_a_failing_properties_read_after_the_commit_on_s3(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """S3 answers 503 to every GET of ``hoodie.properties`` once the completed instant is stored."""
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    options = s3_options(endpoint, **FAST_RETRY)
    table = _create(uri, **options)
    client = WriteClient(table)
    client.insert(_batch(["a"], 1))
    committed: list[str] = []

    def watch(key: str) -> bool:
        if "/timeline/" in key and key.endswith(".commit") and "_" in key.rsplit("/", 1)[-1]:
            committed.append(key)
        return False

    with s3_faults() as faults:
        faults.add("PutObject", watch)
        broken = faults.add(
            "GetObject", lambda k: bool(committed) and k.endswith("hoodie.properties"), code="SlowDown", status=503,
            times=1000,
        )  # fmt: skip
        result = _write_with_failing_step(client, _batch(["a", "b"], 2), "reload")
    assert broken.injected > 0
    assert committed
    reopened = HudiTable.open(uri, storage_options=options)
    _committed(reopened, result)
    assert _rows(reopened) == [("a", "sf", 1), ("a", "sf", 2), ("b", "sf", 2)]


@pytest.mark.s3
def test_commit_state_unknown_names_the_instant(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The completed instant's PUT may or may not have landed and S3 stays down: the error says
    which instant to look for, and the write is neither undone nor reported as committed."""
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    options = s3_options(endpoint, **FAST_RETRY)
    table = _create(uri, **options)
    client = WriteClient(table)
    client.insert(_batch(["a"], 1))
    old = {f.key for f in table.storage.list(".hoodie/timeline")}

    def completed(key: str) -> bool:
        name = key.rsplit("/", 1)[-1]
        return "/timeline/" in key and name.endswith(".commit") and key.split("/", 1)[1] not in old

    with s3_faults() as faults:
        faults.add("PutObject", completed, lost=True)
        for op in ("PutObject", "GetObject", "HeadObject", "ListObjectsV2"):
            faults.add(op, completed, code="ServiceUnavailable", status=503, times=1000)
        with pytest.raises(CommitStateUnknownError) as raised:
            client.insert(_batch(["b"], 2))
    instant = raised.value.instant
    timeline = table.reload().timeline
    assert instant in {i.requested_time for i in timeline.completed()}, "it had landed"


# ------------------------------------------------------------------------------------------ Spark
def _source_options(path: Path, operation: str) -> SourceOptions:
    return SourceOptions.parse(
        {
            "path": str(path),
            "hoodie.table.name": "t",
            "hoodie.datasource.write.recordkey.field": "id",
            "hoodie.datasource.write.partitionpath.field": "city",
            "hoodie.datasource.write.precombine.field": "ts",
            "hoodie.datasource.write.operation": operation,
        }
    )


@pytest.mark.parametrize(("operation", "step"), [("bulk_insert", "markers"), ("upsert", "staging cleanup")])
def test_the_data_source_commit_warns_instead_of_failing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, operation: str, step: str
) -> None:
    """``df.write.format("hudi")``: the writer's commit (run by Spark after the tasks) logs and warns
    when a step after the completed instant fails; raising would make Spark abort a committed job.
    The writer's task and commit methods are called as Spark calls them."""
    path = tmp_path / "t"
    data = _batch(["a", "b"], 1)
    writer = build_writer(_source_options(path, operation), from_arrow_schema(data.schema), overwrite=False)
    message = writer.write(iter(data.to_batches()))

    real_complete, real_delete_tree = TimelineWriter.complete, LocalStorageBackend.delete_tree
    completed: list[Instant] = []

    def complete(self: TimelineWriter, *args: Any, **kwargs: Any) -> Instant:
        completed.append(real_complete(self, *args, **kwargs))
        return completed[-1]

    def delete_tree(self: LocalStorageBackend, prefix: str) -> None:
        if completed:  # only after the commit: a write's start sweeps scratch directories too
            raise StorageError(f"injected: {prefix} could not be deleted")
        real_delete_tree(self, prefix)

    monkeypatch.setattr(TimelineWriter, "complete", complete)
    monkeypatch.setattr(LocalStorageBackend, "delete_tree", delete_tree)
    with pytest.warns(PostCommitWarning) as caught:
        writer.commit([message])  # no exception
    monkeypatch.undo()
    assert step in [getattr(w.message, "step", None) for w in caught]
    table = HudiTable.open(str(path))
    assert len(table.timeline.completed()) == 1, "committed once"
    assert not table.timeline.pending()
    assert _rows(table) == [("a", "sf", 1), ("b", "sf", 1)]


@pytest.mark.spark
def test_spark_write_client_reports_post_commit_failures(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_framework.spark.write_engine import SparkWriteClient

    table = _create(str(tmp_path / "t"))
    settings = HudiSettings.from_hoodie_options({"hoodie.cleaner.commits.retained": "1"})
    client = SparkWriteClient(table, settings, spark)
    client.insert(spark.createDataFrame(_batch(["a", "b"], 1)))
    client.upsert(spark.createDataFrame(_batch(["a"], 2)))

    def broken(self: CleanService, table: Any, instant: str) -> None:
        raise StorageError("injected: the clean could not delete a file")

    monkeypatch.setattr(CleanService, "execute", broken)
    with pytest.warns(PostCommitWarning, match="clean"):
        result = client.bulk_insert(spark.createDataFrame(_batch(["c"], 3)))
    assert [f.step for f in result.post_commit_failures] == ["clean"]
    _committed(table, result)
    assert _rows(table) == [("a", "sf", 2), ("b", "sf", 1), ("c", "sf", 3)]
