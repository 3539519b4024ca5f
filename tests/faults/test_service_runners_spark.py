"""Compaction on Spark: its merges run in executor tasks (other processes than the driver), the
result equals the in-process compaction (files, rows, write stats; local disk and moto S3), a
task's failure reaches the driver typed and rolls the compaction back, and a ``SparkWriteClient``
runs its inline compaction there."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.task_runner import InProcessRunner
from hudi_framework.errors import CompactionCorruptLogError, CompactionExecutionError, ServiceTaskError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.testing import DUMMY_AWS_ENV
from hudi_framework.timeline.instant import Action
from hudi_framework.write.compactor import execute_compaction
from tests.faults.s3_faults import Place
from tests.faults.test_service_runners import (
    _assert_unchanged,
    _comparable,
    _copy,
    _corrupt_merge,
    _data_files,
    _failing_merge,
    _rows,
    _scheduled_table,
    _snapshot,
)

pytestmark = pytest.mark.spark

T = TypeVar("T")
R = TypeVar("R")


def _with_pid(fn: Callable[[T], R], task: T) -> tuple[int, R]:
    return os.getpid(), fn(task)


def _pid_runner(spark: Any, pids: list[int]) -> Any:
    """The Spark runner, recording the process id each task ran in."""
    from hudi_framework.spark.service_runner import SparkTaskRunner

    class Recording(SparkTaskRunner):
        def map(self, fn: Callable[[T], R], tasks: Sequence[T], **kwargs: Any) -> list[R]:
            out = super().map(partial(_with_pid, fn), tasks, **kwargs)
            pids.extend(pid for pid, _ in out)
            return [result for _, result in out]

    return Recording(spark)


def test_spark_compaction_runs_in_executors_and_equals_in_process(spark: Any, place: Place, tmp_path: Path) -> None:
    table, instant = _scheduled_table(place)
    other = _copy(place, str(tmp_path / "copy"))

    local = execute_compaction(table, instant, runner=InProcessRunner())
    pids: list[int] = []
    # Spark's Python workers started before the test set the moto credentials in the environment.
    keys = {
        "access_key_id": DUMMY_AWS_ENV["AWS_ACCESS_KEY_ID"],
        "secret_access_key": DUMMY_AWS_ENV["AWS_SECRET_ACCESS_KEY"],
    }
    on_spark_table = (
        HudiTable.open(other.uri, storage_options={**other.options, **keys}) if other.endpoint else other.open()
    )
    on_spark = execute_compaction(on_spark_table, instant, runner=_pid_runner(spark, pids))

    assert len(pids) == len(on_spark.stats) == 4
    assert os.getpid() not in pids, "a merge ran in the driver process"
    assert [_comparable(s) for s in on_spark.stats] == [_comparable(s) for s in local.stats]
    assert _data_files(on_spark_table) == _data_files(table)
    assert _snapshot(on_spark_table) == _snapshot(table)
    assert on_spark_table.reload().timeline.get(instant, Action.COMMIT).is_completed


def test_spark_task_failures_reach_the_driver_typed(spark: Any, tmp_path: Path) -> None:
    from hudi_framework.spark.service_runner import SparkTaskRunner

    table, instant = _scheduled_table(Place(str(tmp_path / "t"), None))
    files, rows = _data_files(table), _snapshot(table)
    with pytest.raises(CompactionExecutionError, match="disk full") as failed:
        execute_compaction(table, instant, merge=_failing_merge, runner=SparkTaskRunner(spark))
    assert failed.value.file_group.startswith("la/")
    assert isinstance(failed.value.__cause__, ServiceTaskError)
    _assert_unchanged(table, instant, files, rows)
    with pytest.raises(CompactionCorruptLogError) as corrupt:
        execute_compaction(table, instant, merge=_corrupt_merge, runner=SparkTaskRunner(spark))
    assert corrupt.value.offset == 7
    _assert_unchanged(table, instant, files, rows)


def test_spark_write_client_compacts_inline_in_executors(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_framework.spark.service_runner import SparkTaskRunner
    from hudi_framework.spark.write_engine import SparkWriteClient

    config = new_table_config(
        "t", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    table = HudiTable.create(str(tmp_path / "t"), config)
    settings = HudiSettings.model_validate(
        {"write": {"engine": "spark"}, "services": {"compaction": {"inline": True, "max_delta_commits": 2}}}
    )
    client = SparkWriteClient(table, settings, spark)
    assert isinstance(client._service_runner(), SparkTaskRunner)
    pids: list[int] = []
    monkeypatch.setattr(SparkWriteClient, "_service_runner", lambda self: _pid_runner(spark, pids))

    def frame(rows: pa.Table) -> Any:
        return spark.createDataFrame(rows.to_pandas())

    client.insert(frame(_rows(range(40), 1)))
    result = client.upsert(frame(_rows(range(0, 40, 3), 2)))  # every partition gets a log file

    assert [(r.service, r.executed) for r in result.services] == [("compaction", True)]
    assert not result.post_commit_failures
    assert len(pids) == 4
    assert os.getpid() not in pids
    rows = _snapshot(table)
    assert len(rows) == 40
    assert {r["id"]: r["ts"] for r in rows} == {f"k{i}": 2 if i % 3 == 0 else 1 for i in range(40)}
    assert all(r["_hoodie_file_name"].endswith(f"_{result.services[0].instant}.parquet") for r in rows)
