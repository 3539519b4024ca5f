"""Clustering through the service task runners: one task per input group, the same rows and write
stats (file ids aside: each run draws new ones) in process, in the local engine's process pool and in
Spark executors (other processes than the driver); a retried group rewrites its own files; a
failing group fails the clustering typed and
leaves the table as it was."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pytest

from hudi_framework import open_table_service
from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.task_runner import InProcessRunner, ServiceTaskRunner
from hudi_framework.errors import ClusteringExecutionError, ServiceTaskError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, State
from hudi_framework.timeline.metadata import WriteStat
from hudi_framework.write import clusterer
from hudi_framework.write.client import WriteClient
from hudi_framework.write.clusterer import ClusteringResult, ClusteringTask, execute_clustering
from hudi_framework.write.task_pool import ProcessPoolRunner
from tests.faults.campaign.inventory import stray_objects

T = TypeVar("T")
R = TypeVar("R")
CITIES = ("sf", "ny", "la")
SMALL_WRITES = HudiSettings.from_hoodie_options({"hoodie.parquet.small.file.limit": "0"})


def _scheduled(path: Path) -> tuple[HudiTable, str]:
    """Three partitions of four small file groups each (one group per partition), a clustering
    scheduled that sorts by ``ts``."""
    config = new_table_config(
        "t", table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    table = HudiTable.create(str(path), config)
    client = WriteClient(table, SMALL_WRITES)
    for n in range(4):
        rows = [{"id": f"k{n}-{i}", "city": CITIES[i % 3], "ts": 100 - n * 10 - i, "v": float(i)} for i in range(9)]
        client.insert(pa.Table.from_pylist(rows))
    settings = HudiSettings.from_hoodie_options({"hoodie.clustering.plan.strategy.sort.columns": "ts"})
    service, host = open_table_service(table, settings, "clustering")
    instant = service.schedule(host)
    assert instant is not None
    return table, instant


def _rows(table: HudiTable) -> list[dict[str, Any]]:
    rows = read_table(table.reload()).drop_columns(["_hoodie_file_name"]).to_pylist()
    return sorted(rows, key=lambda r: r["id"])


def _comparable(stat: WriteStat) -> dict[str, Any]:
    """A write stat without its timings, the names drawn at random and the sizes they change (a
    file id's bytes compress differently)."""
    return stat.model_dump(exclude={"runtime_stats", "file_id", "path", "total_write_bytes", "file_size_in_bytes"})


def _run(table: HudiTable, instant: str, runner: ServiceTaskRunner) -> ClusteringResult:
    return execute_clustering(table, instant, runner=runner)


def _sorted_stats(result: ClusteringResult) -> list[dict[str, Any]]:
    return sorted((_comparable(s) for s in result.stats), key=lambda s: str(s["partition_path"]))


def test_pool_and_in_process_clusterings_are_identical(tmp_path: Path) -> None:
    table, instant = _scheduled(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    other = HudiTable.open(str(tmp_path / "b"))
    before = _rows(table)

    local = _run(table, instant, InProcessRunner())
    pooled = _run(other, instant, ProcessPoolRunner(2))

    assert len(local.stats) == len(pooled.stats) == 3  # one new file group per partition
    assert _sorted_stats(pooled) == _sorted_stats(local)
    assert _rows(other) == _rows(table) == before
    for t in (table, other):
        assert t.reload().timeline.get(instant, Action.REPLACE_COMMIT).is_completed
        assert len(t.latest_file_slices()) == 3


def _failing_group(task: ClusteringTask) -> list[WriteStat]:
    if task.group.partition_path == "la":
        raise OSError("disk full")
    return clusterer.cluster_group(task.group, task.job)


def test_a_failing_group_fails_the_clustering_typed_and_leaves_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, instant = _scheduled(tmp_path / "t")
    before, slices = _rows(table), sorted(s.file_id for s in table.latest_file_slices())
    monkeypatch.setattr(clusterer, "run_clustering_task", _failing_group)
    with pytest.raises(ClusteringExecutionError, match="disk full") as info:
        _run(table, instant, InProcessRunner())
    assert isinstance(info.value.__cause__, ServiceTaskError)
    assert table.reload().timeline.get(instant, Action.REPLACE_COMMIT).state is State.REQUESTED
    assert sorted(s.file_id for s in table.latest_file_slices()) == slices
    assert _rows(table) == before


class _RetryingRunner(InProcessRunner):
    """Runs every task twice, as Spark does when it retries a lost executor's task."""

    def map(self, fn: Callable[[T], R], tasks: Sequence[T], **kwargs: Any) -> list[R]:
        super().map(fn, tasks, **kwargs)
        return super().map(fn, tasks, **kwargs)


def test_a_retried_group_rewrites_the_same_files(tmp_path: Path) -> None:
    table, instant = _scheduled(tmp_path / "t")
    before = _rows(table)
    result = _run(table, instant, _RetryingRunner())
    assert len(result.stats) == 3
    assert stray_objects(table.reload()) == [], "the first attempt's files are the second's"
    assert _rows(table) == before


def _with_pid(fn: Callable[[T], R], task: T) -> tuple[int, R]:
    return os.getpid(), fn(task)


@pytest.mark.spark
def test_spark_clustering_runs_its_groups_in_executors(spark: Any, tmp_path: Path) -> None:
    from hudi_framework.spark.service_runner import SparkTaskRunner

    pids: list[int] = []

    class Recording(SparkTaskRunner):
        def map(self, fn: Callable[[T], R], tasks: Sequence[T], **kwargs: Any) -> list[R]:
            out = super().map(partial(_with_pid, fn), tasks, **kwargs)
            pids.extend(pid for pid, _ in out)
            return [result for _, result in out]

    table, instant = _scheduled(tmp_path / "a")
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    local = _run(HudiTable.open(str(tmp_path / "b")), instant, InProcessRunner())
    on_spark = _run(table, instant, Recording(spark))

    assert len(pids) == 3, "one task per group"
    assert os.getpid() not in pids, "a group ran in the driver process"
    assert _sorted_stats(on_spark) == _sorted_stats(local)
    assert _rows(table) == _rows(HudiTable.open(str(tmp_path / "b")))
