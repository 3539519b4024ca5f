"""Compaction and cleaning through the service task runners: the same files, rows and write stats in
process and in the local engine's process pool (local disk and moto S3); a clean's per-partition
deletes likewise; a task's failure and a
killed worker fail the compaction typed and leave the table as it was."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.contracts.task_runner import InProcessRunner, ServiceTaskRunner
from hudi_framework.errors import (
    CompactionCorruptLogError,
    CompactionExecutionError,
    ServiceTaskError,
    ServiceWorkerLostError,
)
from hudi_framework.read.merged_task import MergedReadTask
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, State
from hudi_framework.timeline.metadata import WriteStat
from hudi_framework.write import cleaner
from hudi_framework.write.cleaner import execute_clean
from hudi_framework.write.client import WriteClient
from hudi_framework.write.compactor import CompactionResult, execute_compaction, merge_slice
from hudi_framework.write.service_host import ServiceHost
from hudi_framework.write.task_pool import LocalTaskRunner, ProcessPoolRunner
from hudi_services_cleaning import CleanService
from hudi_services_cleaning.options import CleanServiceOptions
from hudi_services_compaction import CompactionService
from tests.faults.s3_faults import Place, admin_client

CITIES = ("sf", "ny", "la", "sea")
ROOT = Path(__file__).resolve().parents[2]


def _rows(ids: Iterable[int], ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": f"k{i}", "city": CITIES[i % 4], "ts": ts, "v": i * ts} for i in ids])


def _scheduled_table(place: Place) -> tuple[HudiTable, str]:
    """A merge-on-read table, four file groups each with two log files, and a scheduled compaction."""
    config = new_table_config(
        "t", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    client = WriteClient(table)
    client.insert(_rows(range(40), 1))
    client.upsert(_rows(range(0, 40, 2), 2))
    client.upsert(_rows(range(0, 40, 3), 3))
    instant = CompactionService().schedule(ServiceHost(table))
    assert instant is not None
    return table, instant


def _copy(place: Place, to: str) -> Place:
    """A copy of the table at ``place`` (same instants, same files)."""
    if place.endpoint is None:
        shutil.copytree(place.uri, to)
        return Place(to, None)
    client = admin_client(place.endpoint)
    bucket, _, prefix = place.uri.removeprefix("s3://").partition("/")
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/")
    for page in pages:
        for item in page.get("Contents", []):
            key = item["Key"]
            client.copy_object(Bucket=bucket, Key=f"copy/{key}", CopySource={"Bucket": bucket, "Key": key})
    return Place(f"s3://{bucket}/copy/{prefix}", place.endpoint)


def _data_files(table: HudiTable) -> list[str]:
    keys = (i.key for i in table.storage.list("", recursive=True))
    return sorted(k for k in keys if not k.startswith(".hoodie") and not k.rpartition("/")[2].startswith("."))


def _snapshot(table: HudiTable) -> list[dict[str, Any]]:
    rows = read_table(table.reload()).to_pylist()
    return sorted(rows, key=lambda r: r["id"])


def _comparable(stat: WriteStat) -> dict[str, Any]:
    """A write stat without its timings."""
    return stat.model_dump(exclude={"runtime_stats", "total_log_read_time_ms"})


def _run(place: Place, runner: ServiceTaskRunner, instant: str) -> tuple[CompactionResult, HudiTable]:
    table = place.open()
    return execute_compaction(table, instant, runner=runner), table


def test_pool_and_in_process_compactions_are_identical(place: Place, tmp_path: Path) -> None:
    table, instant = _scheduled_table(place)
    before = _snapshot(table)
    other = _copy(place, str(tmp_path / "copy"))

    local, local_table = _run(place, InProcessRunner(), instant)
    pooled, pooled_table = _run(other, ProcessPoolRunner(2), instant)

    assert len(local.stats) == len(pooled.stats) == 4
    assert [_comparable(s) for s in pooled.stats] == [_comparable(s) for s in local.stats]
    assert _data_files(pooled_table) == _data_files(local_table)
    assert _snapshot(pooled_table) == _snapshot(local_table)
    # Compaction moves the rows into new base files (``_hoodie_file_name``), nothing else changes.
    assert [{**r, "_hoodie_file_name": None} for r in _snapshot(local_table)] == [
        {**r, "_hoodie_file_name": None} for r in before
    ]
    for t in (local_table, pooled_table):
        assert t.reload().timeline.get(instant, Action.COMMIT).is_completed
        assert not [i.key for i in t.storage.list(".hoodie/.temp", recursive=True)]


def _failing_merge(storage: StorageBackend, task: MergedReadTask) -> Iterable[pa.RecordBatch]:
    """Fails the slice of partition ``la`` (module-level: the pool pickles it by reference)."""
    if task.partition_path == "la":
        raise OSError("disk full")
    return merge_slice(storage, task)


def _corrupt_merge(storage: StorageBackend, task: MergedReadTask) -> Iterable[pa.RecordBatch]:
    raise CompactionCorruptLogError("t", "fg", path="p", offset=7, instant_time="1", reason="bad", corrupt_blocks=1)


def _killing_merge(storage: StorageBackend, task: MergedReadTask) -> Iterable[pa.RecordBatch]:
    os.kill(os.getpid(), signal.SIGKILL)
    return merge_slice(storage, task)


def _assert_unchanged(table: HudiTable, instant: str, files: list[str], rows: list[dict[str, Any]]) -> None:
    assert table.reload().timeline.get(instant, Action.COMPACTION).state is State.REQUESTED
    assert _data_files(table) == files
    assert _snapshot(table) == rows


@pytest.mark.s3_full  # the pool's workers reaching S3: the compaction test's S3 case
def test_pool_task_failure_is_typed_and_rolled_back(place: Place) -> None:
    table, instant = _scheduled_table(place)
    files, rows = _data_files(table), _snapshot(table)
    with pytest.raises(CompactionExecutionError, match="disk full") as info:
        execute_compaction(table, instant, merge=_failing_merge, runner=ProcessPoolRunner(2))
    assert info.value.file_group.startswith("la/")
    assert isinstance(info.value.__cause__, ServiceTaskError)
    _assert_unchanged(table, instant, files, rows)
    # The plan runs again.
    execute_compaction(table, instant, runner=ProcessPoolRunner(2))
    assert [r | {"_hoodie_file_name": None} for r in _snapshot(table)] == [
        r | {"_hoodie_file_name": None} for r in rows
    ]


@pytest.mark.parametrize(
    ("merge", "raised", "cause"),
    [
        # A task's own error keeps its class and attributes across the process boundary.
        (_corrupt_merge, CompactionCorruptLogError, None),
        # A worker killed mid-task: the pool breaks, the compaction fails typed.
        (_killing_merge, CompactionExecutionError, ServiceWorkerLostError),
    ],
)
def test_pool_failures_are_typed_and_rolled_back(
    tmp_path: Path, merge: Any, raised: type[Exception], cause: type[Exception] | None
) -> None:
    table, instant = _scheduled_table(Place(str(tmp_path / "t"), None))
    files, rows = _data_files(table), _snapshot(table)
    with pytest.raises(raised) as info:
        execute_compaction(table, instant, merge=merge, runner=ProcessPoolRunner(2))
    if cause is None:
        assert getattr(info.value, "offset", None) == 7
    else:
        assert isinstance(info.value.__cause__, cause)
    _assert_unchanged(table, instant, files, rows)


def test_local_runner_uses_the_pool_only_for_big_enough_plans() -> None:
    default = LocalTaskRunner(HudiSettings().services.execution)
    assert isinstance(default.chosen(1, 10**12), InProcessRunner)
    assert isinstance(default.chosen(8, 1024), InProcessRunner)
    one = LocalTaskRunner(
        HudiSettings.model_validate({"services": {"execution": {"local_workers": 1}}}).services.execution
    )
    assert isinstance(one.chosen(8, 10**12), InProcessRunner)
    eager = HudiSettings.model_validate({"services": {"execution": {"local_workers": 3, "local_min_bytes": 0}}})
    chosen = LocalTaskRunner(eager.services.execution).chosen(8, 0)
    assert isinstance(chosen, ProcessPoolRunner)
    assert chosen.workers == 3
    assert LocalTaskRunner(eager.services.execution).chosen(2, None).workers == 2  # type: ignore[attr-defined]


def test_settings_route_a_compaction_to_the_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``services.execution`` acts end to end: with ``local_min_bytes = 0`` the tasks leave the process."""
    place = Place(str(tmp_path / "t"), None)
    table, instant = _scheduled_table(place)
    used: list[str] = []
    real_map = ProcessPoolRunner.map

    def spy(self: ProcessPoolRunner, *args: Any, **kwargs: Any) -> Any:
        used.append(f"pool:{self.workers}")
        return real_map(self, *args, **kwargs)

    monkeypatch.setattr(ProcessPoolRunner, "map", spy)
    settings = HudiSettings.model_validate({"services": {"execution": {"local_workers": 2, "local_min_bytes": 0}}})
    ServiceHost(table, settings).execute_compaction(instant)
    assert used == ["pool:2"]
    assert table.reload().timeline.get(instant, Action.COMMIT).is_completed


def _cleanable_table(place: Place) -> tuple[HudiTable, str]:
    """A copy-on-write table, four file groups with three versions each, and a scheduled clean
    retaining one commit (the oldest version of each group goes)."""
    config = new_table_config(
        "t", table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    settings = HudiSettings.model_validate({"services": {"clean": {"automatic": False}}})
    client = WriteClient(table, settings)
    for ts in (1, 2, 3):
        client.upsert(_rows(range(40), ts))
    instant = CleanService(CleanServiceOptions(commits_retained=1)).schedule(ServiceHost(table, settings))
    assert instant is not None
    return table, instant


@pytest.mark.s3_full  # the pool's workers reaching S3: the compaction test's S3 case
def test_pool_and_in_process_cleans_are_identical(
    place: Place, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, instant = _cleanable_table(place)
    other = _copy(place, str(tmp_path / "copy"))
    rows = _snapshot(table)
    local = execute_clean(table, instant, runner=InProcessRunner())
    partitions: list[str] = []
    monkeypatch.setattr(cleaner, "CLEAN_TASKS_MIN_FILES", 0)  # this small plan leaves the process too
    monkeypatch.setattr(ProcessPoolRunner, "map", _spied_map(partitions))
    pooled_table = other.open()
    pooled = execute_clean(pooled_table, instant, runner=ProcessPoolRunner(2))

    assert sorted(partitions) == sorted(CITIES)
    assert local.deleted == pooled.deleted == 4  # the oldest version of each file group
    assert pooled.metadata.partitions == local.metadata.partitions
    assert _data_files(pooled_table) == _data_files(table)
    assert _snapshot(pooled_table) == _snapshot(table) == rows


def _spied_map(partitions: list[str]) -> Any:
    real_map = ProcessPoolRunner.map

    def spy(self: ProcessPoolRunner, fn: Any, tasks: Any, **kwargs: Any) -> Any:
        partitions.extend(t.partition for t in tasks)
        return real_map(self, fn, tasks, **kwargs)

    return spy


def _note_pid_and_sleep(directory: str) -> None:
    """A pool task that records its worker's pid, then outlives any test."""
    (Path(directory) / str(os.getpid())).touch()
    time.sleep(300)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
def test_pool_workers_exit_when_the_job_is_killed(tmp_path: Path) -> None:
    script = (
        "from tests.faults.test_service_runners import _note_pid_and_sleep\n"
        "from hudi_framework.write.task_pool import ProcessPoolRunner\n"
        f"ProcessPoolRunner(2).map(_note_pid_and_sleep, [{str(tmp_path)!r}] * 2)\n"
    )
    job = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
    try:
        deadline = time.monotonic() + 120
        while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        workers = [int(p.name) for p in tmp_path.iterdir()]
        assert len(workers) == 2, "the pool's tasks did not start"
    finally:
        job.kill()  # kill -9 of the job
        job.wait()
    deadline = time.monotonic() + 20
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not [pid for pid in workers if _alive(pid)], "pool workers outlived their killed job"
