"""Cleaning end to end on the local engine: files on disk, reads against hudi-rs and a model.

Each scenario writes commits through the ``WriteClient`` with automatic cleaning (Apache Hudi's
default) and a small retention, then checks which data files remain and that every retained instant
reads the same in our reader, in hudi-rs and in a dictionary model of the expected rows.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import boto3
import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework import table_service_host
from hudi_framework.cli.app import app
from hudi_framework.config import HudiSettings
from hudi_framework.errors import LockAcquireTimeoutError
from hudi_framework.layout.naming import BaseFileName, LogFileName, parse_data_file_name
from hudi_framework.lock import open_table_lock
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.testing import DUMMY_AWS_ENV
from hudi_framework.timeline.clean_metadata import decode_clean_metadata
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.client import WriteClient
from hudi_framework.write.markers import IOType, create_marker
from hudi_framework.write.savepoint import create_savepoint, restore_to_savepoint
from hudi_framework.write.transaction import timeline_writer
from hudi_services_cleaning import CleanService, CleanServiceOptions
from hudi_services_compaction import CompactionService
from tests.acceptance.oracle import canonical, hudi_rs_read

COLUMNS = ["id", "city", "ts", "v"]
Model = dict[str, dict[str, object]]


def _create(tmp_path: Path, table_type: str, version: int) -> HudiTable:
    config = new_table_config(
        "t", table_type=table_type, version=version, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return HudiTable.create(str(tmp_path / f"t_{table_type}_{version}"), config)


def _settings(**clean: object) -> HudiSettings:
    return HudiSettings(services={"clean": clean})  # type: ignore[arg-type]


class Writer:
    """Writes numbered upsert batches and keeps the expected rows as of each instant."""

    def __init__(self, table: HudiTable, settings: HudiSettings) -> None:
        self.table = table
        self.client = WriteClient(table, settings)
        self.rows: Model = {}
        self.as_of: dict[str, Model] = {}

    def upsert(self, step: int) -> str:
        # Two keys updated every time (one per partition), one new key per step.
        ids = ["k0", "k1", f"n{step}"]
        batch = {"id": ids, "city": ["sf", "ny", "sf" if step % 2 else "ny"], "ts": [step] * 3, "v": [step * 1.5] * 3}
        result = self.client.upsert(pa.table(batch))
        for i, key in enumerate(ids):
            self.rows[key] = {c: batch[c][i] for c in COLUMNS}
        instant = result.instant.requested_time
        self.as_of[instant] = {k: dict(r) for k, r in self.rows.items()}
        return instant


def _expected(model: Model) -> list[str]:
    return canonical(pa.Table.from_pylist(list(model.values())).select(COLUMNS))


def _check_read(table: HudiTable, model: Model, as_of: str | None = None) -> None:
    path = table.base_uri
    ours = read_table(HudiTable.open(path), as_of=as_of)
    theirs = hudi_rs_read(path, as_of=as_of)
    assert canonical(ours) == canonical(theirs), f"ours vs hudi-rs as of {as_of}"
    assert canonical(ours.select(COLUMNS)) == _expected(model), f"ours vs model as of {as_of}"


def _data_files(table: HudiTable) -> set[str]:
    return {
        info.key
        for info in table.storage.list("", recursive=True)
        if not info.key.startswith(".hoodie") and parse_data_file_name(info.name) is not None
    }


def _cleans(table: HudiTable) -> list[str]:
    return [i.requested_time for i in table.reload().timeline.completed({Action.CLEAN})]


@pytest.mark.parametrize(
    ("table_type", "version"),
    [("COPY_ON_WRITE", 9), ("COPY_ON_WRITE", 6), ("MERGE_ON_READ", 9), ("MERGE_ON_READ", 8), ("MERGE_ON_READ", 6)],
)
def test_keep_latest_commits_after_every_commit(tmp_path: Path, table_type: str, version: int) -> None:
    mor = table_type == "MERGE_ON_READ"
    # Merge-on-read compacts every two delta commits, so file groups get new slices (with log files).
    compaction = {"inline": True, "max_delta_commits": 2} if mor else {}
    settings = HudiSettings(services={"clean": {"commits_retained": 3}, "compaction": compaction})  # type: ignore[arg-type]
    table = _create(tmp_path, table_type, version)
    writer = Writer(table, settings)
    instants = [writer.upsert(step) for step in range(8)]
    cleans = _cleans(table)
    if not mor:
        assert len(cleans) == 4  # one per commit from the fifth on (the fourth only retains)
    timeline = table.reload().timeline
    metadata = [decode_clean_metadata(timeline.read_bytes(timeline.get(c, Action.CLEAN))) for c in cleans]
    retained = metadata[-1].earliest_commit_to_retain
    commits = [i.requested_time for i in timeline.commits_timeline()]
    assert retained == commits[-3]
    assert metadata[-1].last_completed_commit == commits[-1]
    # Every retained write instant, and the snapshot, read the same in both readers and the model.
    for instant in instants:
        if instant >= retained:
            _check_read(table, writer.as_of[instant], instant)
    _check_read(table, writer.rows)
    # On disk, each file group keeps at most one slice older than the retained history.
    for group in table.file_system_view().all_file_groups(include_replaced=True):
        assert sum(1 for s in group.slices if s.base_instant_time < retained) <= 1, group.id
    deleted = [n for m in metadata for p in m.partitions.values() for n in p.success_delete_files]
    assert not any(table.storage.exists(f"{p}/{n}") for m in metadata for p in m.partitions for n in deleted)
    if mor:
        assert any(LogFileName.try_parse(n) for n in deleted)  # log files go with their slice
    uncleaned = HudiSettings(services={"clean": {"automatic": False}, "compaction": compaction})  # type: ignore[arg-type]
    assert len(_data_files(table)) + len(deleted) == _files_written(tmp_path, table_type, version, uncleaned)


def _files_written(tmp_path: Path, table_type: str, version: int, settings: HudiSettings) -> int:
    table = _create(tmp_path / "uncleaned", table_type, version)
    writer = Writer(table, settings)
    for step in range(8):
        writer.upsert(step)
    assert _cleans(table) == []
    return len(_data_files(table))


def test_keep_latest_file_versions_on_disk(tmp_path: Path) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE", 9)
    writer = Writer(table, _settings(policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=2))
    for step in range(6):
        writer.upsert(step)
    versions: dict[str, int] = {}
    for key in _data_files(table):
        parsed = parse_data_file_name(key.rsplit("/", 1)[-1])
        assert parsed is not None
        versions[parsed.file_id] = versions.get(parsed.file_id, 0) + 1
    assert max(versions.values()) == 2
    _check_read(table, writer.rows)


def test_savepointed_instant_survives_cleaning_and_restore_works(tmp_path: Path) -> None:
    table = _create(tmp_path, "MERGE_ON_READ", 9)
    writer = Writer(table, _settings(commits_retained=2))
    instants = [writer.upsert(step) for step in range(3)]
    saved = instants[1]
    create_savepoint(table.reload(), saved, user="test")
    instants += [writer.upsert(step) for step in range(3, 14)]
    timeline = table.reload().timeline
    last = decode_clean_metadata(timeline.read_bytes(timeline.completed({Action.CLEAN})[-1]))
    assert last.earliest_commit_to_retain > instants[10]  # cleaned far beyond the savepoint
    _check_read(table, writer.as_of[saved], saved)  # far older than the retained history
    _check_read(table, writer.as_of[instants[-2]], instants[-2])
    restore = restore_to_savepoint(table.reload(), saved)
    assert restore.rolled_back[-1] == instants[2]
    _check_read(table, writer.as_of[saved])


@pytest.mark.parametrize("version", [9, 6])
def test_pending_compaction_slices_are_kept(tmp_path: Path, version: int) -> None:
    table = _create(tmp_path, "MERGE_ON_READ", version)
    settings = _settings(commits_retained=1)
    writer = Writer(table, settings)
    for step in range(3):
        writer.upsert(step)
    compaction = CompactionService()
    pending = compaction.schedule(table.reload())
    assert pending is not None
    plan_files = set()
    for op in table.reload().timeline.pending_compaction_plans().values():
        for o in op["operations"]:
            names = [*(o["deltaFilePaths"] or []), *([o["dataFilePath"]] if o["dataFilePath"] else [])]
            plan_files |= {f"{o['partitionPath']}/{n}" for n in names}
    assert plan_files
    if version >= 8:
        for step in range(3, 7):  # v6 writes may not run while a compaction is pending in this suite's model
            writer.upsert(step)
    CleanService(CleanServiceOptions(**settings.services.clean.service_options())).run(table, force=True)
    assert plan_files <= _data_files(table)  # the compaction's input survived every clean
    compaction.execute(table.reload(), pending)
    _check_read(table, writer.rows)


def test_lazy_expired_failed_write_is_rolled_back_by_a_clean(tmp_path: Path) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE", 9)

    def lazy(heartbeat_ms: int) -> HudiSettings:
        return HudiSettings(
            write={
                "failed_writes_policy": "LAZY",
                "heartbeat_interval_ms": heartbeat_ms,
                "heartbeat_tolerable_misses": 1,
            },
            services={"clean": {"automatic": False, "commits_retained": 1}},
        )  # type: ignore[arg-type]

    # The writers tolerate a minute without heartbeat, so they leave the failed write alone.
    writer = Writer(table, lazy(60_000))
    for step in range(3):
        writer.upsert(step)
    # A writer that died after its data file: requested + inflight instant, marker and file, no heartbeat.
    tl = timeline_writer(table.storage, table.config)
    failed = tl.transition_to_inflight(tl.create_requested(Action.COMMIT))
    name = BaseFileName("dead0000-0000-0000-0000-000000000000-0", "0-0-0", failed.requested_time).name
    create_marker(table.storage, failed.requested_time, "sf", name, IOType.CREATE)
    orphan = f"sf/{name}"
    table.storage.write(orphan, b"partial")
    for step in range(3, 6):
        writer.upsert(step)
    assert failed.requested_time in {i.requested_time for i in table.reload().timeline.pending()}
    # While it is pending, the retained history cannot start after it: nothing newer may be cleaned.
    cleaner = CleanService(CleanServiceOptions(**lazy(50).services.clean.service_options()))
    time.sleep(0.2)  # no heartbeat file: judged by its requested time, expired after 50 ms
    results = cleaner.run(table_service_host(table.reload(), lazy(50)), force=True)
    timeline = table.reload().timeline
    assert failed.requested_time not in {i.requested_time for i in timeline.instants}
    assert not table.storage.exists(orphan)
    assert not table.storage.list(f".hoodie/.temp/{failed.requested_time}", recursive=True)
    (rollback,) = timeline.completed({Action.ROLLBACK})
    assert rollback.requested_time > failed.requested_time
    (result,) = results
    assert result.plan.earliest_instant_to_retain is not None
    assert result.plan.earliest_instant_to_retain.timestamp > failed.requested_time
    assert result.deleted > 0
    _check_read(table, writer.rows)


def test_clean_completes_under_the_table_lock(tmp_path: Path) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE", 9)
    occ = HudiSettings(
        write={"concurrency_mode": "optimistic_concurrency_control"},
        lock={"wait_time_ms": 50, "num_retries": 0, "retry_wait_time_ms": 10, "max_retry_wait_time_ms": 10},
        services={"clean": {"automatic": False, "commits_retained": 1}},
    )  # type: ignore[arg-type]
    writer = Writer(table, occ)
    for step in range(4):
        writer.upsert(step)
    service = CleanService(CleanServiceOptions(**occ.services.clean.service_options()))
    host = table_service_host(table.reload(), occ)
    instant = service.schedule(host)
    assert instant is not None
    holder = open_table_lock(table.registry, occ.lock, base_path=table.base_uri, table_name="t", storage=table.storage)
    assert holder.try_lock(0)
    try:
        with pytest.raises(LockAcquireTimeoutError):
            service.execute(host, instant)
        assert table.reload().timeline.get(instant, Action.CLEAN).state is State.INFLIGHT
    finally:
        holder.unlock()
    service.execute(host, instant)  # the files are gone already; deleting again is harmless
    assert table.reload().timeline.get(instant, Action.CLEAN).is_completed
    _check_read(table, writer.rows)


def test_cli_clean_run_and_show(tmp_path: Path) -> None:
    table = _create(tmp_path, "MERGE_ON_READ", 9)
    writer = Writer(table, _settings(automatic=False))
    for step in range(5):
        writer.upsert(step)
    before = _data_files(table)
    runner = CliRunner()
    result = runner.invoke(app, ["clean", "run", table.base_uri, "-o", "hoodie.cleaner.commits.retained=2"])
    assert result.exit_code == 0, result.output
    assert "cleans run" in result.output
    (instant,) = _cleans(table)
    shown = runner.invoke(app, ["clean", "show", table.base_uri, "--instant", instant, "--json"])
    assert shown.exit_code == 0, shown.output
    assert f'"instant": "{instant}"' in shown.output
    gone = before - _data_files(table)
    assert gone
    assert all(f'"{key.rsplit("/", 1)[-1]}"' in shown.output for key in gone)
    _check_read(table, writer.rows)


@pytest.mark.s3
def test_cleaning_on_s3(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in DUMMY_AWS_ENV.items():
        monkeypatch.setenv(name, value)
    bucket = f"hudi-clean-{uuid.uuid4().hex[:10]}"
    boto3.session.Session().client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=bucket)
    options = {"endpoint_url": endpoint, "region": "us-east-1", "addressing_style": "path"}
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    table = HudiTable.create(f"s3://{bucket}/t", config, storage_options=options)
    writer = Writer(table, _settings(commits_retained=2))
    instants = [writer.upsert(step) for step in range(6)]
    cleans = _cleans(table)
    assert len(cleans) == 3
    timeline = table.timeline
    deleted = {
        f"{p.partition_path}/{n}"
        for c in cleans
        for p in decode_clean_metadata(timeline.read_bytes(timeline.get(c, Action.CLEAN))).partitions.values()
        for n in p.success_delete_files
    }
    assert deleted
    assert not deleted & _data_files(table)
    for instant in instants[-2:]:
        ours = read_table(HudiTable.open(table.base_uri, storage_options=options), as_of=instant)
        assert canonical(ours.select(COLUMNS)) == _expected(writer.as_of[instant])
