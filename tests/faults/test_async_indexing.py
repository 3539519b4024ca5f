"""Apache Hudi's asynchronous ``indexing`` action (``hudi-fw index build|schedule|run``) on local disk
and on S3 (moto): writers commit while the record index is built (one started before the plan and
completing after it, one during the build), the table lock is not held while building, readers
never use the partition being built, and afterwards the index locates every key as a synchronous
build does. A killed indexer leaves the table readable and writable; ``index run`` completes it."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.config import HudiSettings
from hudi_framework.errors import IndexingError, MetadataTableUnusableError
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.records import TABLE_METADATA_PARTITIONS_INFLIGHT_KEY
from hudi_framework.metadata_writer.file_groups import partition_dir
from hudi_framework.metadata_writer.indexing import (
    execute_indexing,
    pending_index_plans,
    schedule_indexing,
)
from hudi_framework.metadata_writer.initialize import set_partition_state
from hudi_framework.metadata_writer.options import MetadataWriteOptions
from hudi_framework.metadata_writer.record_index_partition import RecordIndexBuilder
from hudi_framework.metadata_writer.writer import prepare_metadata_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.write import transaction
from hudi_framework.write.client import WriteClient
from tests.faults.processes import ROOT
from tests.faults.s3_faults import Place, hudi_rs, ours
from tests.faults.test_record_index_storage import _index_matches

OCC_MDT = {
    "hoodie.metadata.enable": "true",
    "hoodie.write.concurrency.mode": "optimistic_concurrency_control",
}
RLI_OPTIONS = MetadataWriteOptions(enable=True, partitions={"record_index": True})


def _settings(options: dict[str, str]) -> HudiSettings:
    return HudiSettings.from_hoodie_options(options, env=False)


def _rows(ids: range, city: str, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": f"k{i:03d}", "city": city, "ts": ts} for i in ids])


def _create(place: Place, table_type: str, options: dict[str, str] | None = None) -> None:
    config = new_table_config(
        "t", version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    client = WriteClient(table, _settings({**OCC_MDT, **(options or {})}))
    client.insert(pa.concat_tables([_rows(range(40), "sf", 1), _rows(range(40, 60), "ny", 1)]))
    client.upsert(_rows(range(10), "sf", 2))


def _lock(place: Place) -> Callable[[], Any]:
    """The table lock every writer of these tests takes (the in-process provider)."""

    @contextmanager
    def held() -> Iterator[object]:
        from hudi_framework.lock.guard import table_lock

        table = place.open()
        provider = table.components.table_lock(
            base_path=table.base_uri, table_name=table.config.name, storage=table.storage
        )
        with table_lock(provider, table=table.base_uri) as lock:
            yield lock

    return held


def index_locations(table: HudiTable, gone: list[str]) -> dict[str, tuple[str, str]]:
    """The record index holds exactly the snapshot's keys, each at its partition and file group
    (key -> (partition, file id)), and none of the keys ``gone``."""
    where = _index_matches(table)
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    assert mdt.record_index(gone).num_rows == 0
    return where


def _in_thread(work: Callable[[], None]) -> threading.Thread:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as e:  # reported by the caller's join
            errors.append(e)

    thread = threading.Thread(target=run, name="writer")
    thread.errors = errors  # type: ignore[attr-defined]
    thread.start()
    return thread


def _joined(thread: threading.Thread) -> None:
    thread.join(60)
    assert not thread.is_alive(), "the writer waited for the indexer (the lock was held while building)"
    assert not thread.errors, thread.errors  # type: ignore[attr-defined]


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_writers_commit_while_the_record_index_is_built(
    place: Place, table_type: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _create(place, table_type)
    writer = WriteClient(place.open(), _settings(OCC_MDT))  # keeps the MDT, not asked for the record index

    # Writer A writes its files before the plan and completes during the build.
    parked, resume = threading.Event(), threading.Event()
    real = transaction.file_groups_of_write

    def park_writer_a(*args: Any, **kwargs: Any) -> Any:
        if threading.current_thread().name == "writer" and not resume.is_set():
            parked.set()
            assert resume.wait(60)
        return real(*args, **kwargs)

    monkeypatch.setattr(transaction, "file_groups_of_write", park_writer_a)
    batch_a = pa.concat_tables([_rows(range(5, 15), "sf", 3), _rows(range(60, 70), "ny", 3)])
    a = _in_thread(lambda: writer.upsert(batch_a))
    assert parked.wait(60)

    plan = schedule_indexing(place.open().storage, "record_index", RLI_OPTIONS, _lock(place))
    assert plan is not None
    table = place.open()
    assert table.properties[TABLE_METADATA_PARTITIONS_INFLIGHT_KEY] == "record_index"
    assert "record_index" not in table.config.metadata_partitions
    (pending,) = table.timeline.pending({Action.INDEXING})
    assert pending.state is State.REQUESTED
    assert pending.requested_time == plan.instant_time
    infos = read_container(table.storage.read(table.timeline.file_key(pending))).record["indexPartitionInfos"]
    assert [(i["metadataPartitionPath"], i["indexUptoInstant"]) for i in infos] == [
        ("record_index", table.timeline.completed()[-1].requested_time)
    ]

    # Readers never use the partition being built.
    mdt = MetadataTable.open(place.open().storage, place.open().properties)
    assert mdt is not None
    with pytest.raises(MetadataTableUnusableError):
        mdt.record_index(["k000"])

    # While the index is built (no lock held): writer A completes (its files are not in the base,
    # its table config predates the plan), then writer B deletes and inserts keys.
    def during(step: str) -> None:
        assert step == "built"
        resume.set()
        _joined(a)

        def write_b() -> None:
            writer.delete(_rows(range(0, 3), "sf", 4))
            writer.upsert(pa.concat_tables([_rows(range(8, 12), "sf", 4), _rows(range(70, 75), "ny", 4)]))

        _joined(_in_thread(write_b))

    execute_indexing(place.open().storage, plan, RLI_OPTIONS, _lock(place), step=during)
    table = place.open()
    assert "record_index" in table.config.metadata_partitions
    assert table.properties.get(TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, "") == ""
    assert not table.timeline.pending({Action.INDEXING})
    done = table.timeline.get(plan.instant_time, Action.INDEXING)
    assert done.is_completed
    deleted = ["k000", "k001", "k002", "absent"]
    index_locations(table, deleted)

    # Writers asked for it keep it in step afterwards (one that is not drops it, as Apache Hudi's do).
    writer = WriteClient(place.open(), _settings({**OCC_MDT, "hoodie.metadata.record.index.enable": "true"}))
    writer.upsert(pa.concat_tables([_rows(range(3, 6), "sf", 5), _rows(range(75, 80), "ny", 5)]))
    after = index_locations(place.open(), deleted)
    assert len(after) == 77
    assert ours(place.uri, place.options) == hudi_rs(place.uri, place.endpoint)


NO_STATS = {"hoodie.metadata.index.column.stats.enable": "false"}
ENABLES = {
    "column_stats": "hoodie.metadata.index.column.stats.enable",
    "bloom_filters": "hoodie.metadata.index.bloom.filter.enable",
}


def _content(base: str, partition: str) -> list[Any]:
    """An MDT partition's merged content as readers get it."""
    table = HudiTable.open(base)
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    if partition == "bloom_filters":
        files = [(s.partition_path, s.base_file_name) for s in table.latest_file_slices() if s.base_file_name]
        found = mdt.bloom_filters(files)
        assert set(found) == set(files)
        return sorted((k, f.serialize()) for k, f in found.items())
    if partition == "column_stats":
        stats = mdt.column_stats()
        assert stats.num_rows
        return sorted(stats.to_pylist(), key=repr)
    # Apache Hudi merges a partition's statistics by adding counts: a partition built at another
    # moment has other counts (as in Apache Hudi), the same bounds.
    stats = mdt.partition_stats().select(["partition_path", "column_name", "min_value", "max_value", "is_deleted"])
    assert stats.num_rows
    return sorted(stats.to_pylist(), key=repr)


def _synchronous_copy(place: Place, tmp_path: Path, partitions: list[str]) -> str:
    """A copy of the table whose ``partitions`` are dropped and built again synchronously."""
    copy = tmp_path / "copy"
    shutil.copytree(place.uri, copy)
    table = HudiTable.open(str(copy))
    for partition in partitions:
        set_partition_state(table.storage, partition, enabled=False)
        for info in table.storage.list(partition_dir(partition), recursive=True):
            table.storage.delete(info.key)
    table = table.reload()
    options = MetadataWriteOptions(enable=True, partitions=dict.fromkeys(partitions, True))
    prepare_metadata_table(table.storage, table.config, lambda: table.timeline, options)
    return str(copy)


@pytest.mark.parametrize("partitions", [["column_stats"], ["bloom_filters"], ["column_stats", "partition_stats"]])
def test_other_indexes_built_asynchronously_equal_a_synchronous_build(tmp_path: Path, partitions: list[str]) -> None:
    place = Place(str(tmp_path / "t"), None)
    _create(place, "MERGE_ON_READ", NO_STATS)
    batch = iter(range(2, 100))
    for partition in partitions:
        # Writers keep what is built (a writer not asked for an index drops it) and log to what is being built.
        done = place.open().config.metadata_partitions
        enabled = {ENABLES[p]: "true" for p in done if p in ENABLES}
        writer = WriteClient(place.open(), _settings({**OCC_MDT, **NO_STATS, **enabled}))
        options = MetadataWriteOptions(enable=True, partitions=dict.fromkeys(partitions, True))
        plan = schedule_indexing(place.open().storage, partition, options, _lock(place))
        assert plan is not None
        ts = next(batch)
        writer.upsert(
            pa.concat_tables([_rows(range(ts, ts + 8), "sf", ts), _rows(range(100 + ts, 104 + ts), "la", ts)])
        )

        def during(step: str, ts: int = next(batch), writer: WriteClient = writer) -> None:
            def write() -> None:
                writer.delete(_rows(range(ts + 20, ts + 22), "sf", ts))
                writer.upsert(_rows(range(50, 56), "ny", ts))

            _joined(_in_thread(write))

        execute_indexing(place.open().storage, plan, options, _lock(place), step=during)
        assert partition in place.open().config.metadata_partitions
    copy = _synchronous_copy(place, tmp_path, partitions)
    for partition in partitions:
        ours_, sync = _content(place.uri, partition), _content(copy, partition)
        assert ours_ == sync, partition


def test_index_build_command_and_bad_input(tmp_path: Path) -> None:
    place = Place(str(tmp_path / "t"), None)
    _create(place, "MERGE_ON_READ")
    runner = CliRunner()
    unknown = runner.invoke(app, ["index", "build", place.uri, "--type", "secondary_index"])
    assert unknown.exit_code == 2
    assert "secondary_index" in unknown.output
    missing = runner.invoke(app, ["index", "run", place.uri, "--instant", "20990101000000000"])
    assert missing.exit_code == 2
    assert runner.invoke(app, ["index", "run", place.uri]).output.strip() == "no pending indexing instant"

    scheduled = runner.invoke(app, ["index", "schedule", place.uri, "--type", "record_index"])
    assert scheduled.exit_code == 0, scheduled.output
    (plan,) = pending_index_plans(place.open().timeline)
    again = runner.invoke(app, ["index", "schedule", place.uri])  # the pending plan, not a second one
    assert plan.instant_time in again.output
    ran = runner.invoke(app, ["index", "run", place.uri])
    assert ran.exit_code == 0, ran.output
    assert "record_index built" in ran.output
    assert len(index_locations(place.open(), ["absent"])) == 60
    built = runner.invoke(app, ["index", "build", place.uri])
    assert "already built" in built.output


def test_a_table_without_writes_has_nothing_to_index(tmp_path: Path) -> None:
    config = new_table_config("t", version=9, table_type="COPY_ON_WRITE", record_key_fields=["id"])
    table = HudiTable.create(str(tmp_path / "t"), config)
    place = Place(str(tmp_path / "t"), None)
    with pytest.raises(IndexingError, match="no completed write"):
        schedule_indexing(table.storage, "record_index", RLI_OPTIONS, _lock(place))
    assert not place.open().timeline.instants


def test_killed_indexer_leaves_the_table_usable_and_a_rerun_completes(tmp_path: Path) -> None:
    import json
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.faults.park import PARK_ENV

    place = Place(str(tmp_path / "t"), None)
    _create(place, "MERGE_ON_READ")
    before = ours(place.uri)
    ready = tmp_path / "ready"
    env = {
        **os.environ,
        PARK_ENV: r"tmp:metadata/record_index/record-index-\d{4}-0_[^/]*\.hfile$",
        "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    code = (
        "import sys; from pathlib import Path; from tests.faults.park import install, PARK_ENV; import os;"
        "install(os.environ[PARK_ENV], Path(sys.argv[1]));"
        "from hudi_framework.cli.app import app; app(['index', 'build', sys.argv[2]])"
    )
    proc = subprocess.Popen([sys.executable, "-c", code, str(ready), place.uri], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while not ready.exists():
            assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
            assert time.monotonic() < deadline, "the indexer never reached the park point"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    table = place.open()
    (plan,) = pending_index_plans(table.timeline)
    assert table.properties[TABLE_METADATA_PARTITIONS_INFLIGHT_KEY] == "record_index"
    assert "record_index" not in table.config.metadata_partitions
    # Readers see the table as before; writers go on (and log to the partition being built).
    assert ours(place.uri) == hudi_rs(place.uri) == before
    writer = WriteClient(place.open(), _settings(OCC_MDT))  # not asked for the record index
    writer.upsert(pa.concat_tables([_rows(range(0, 4), "sf", 7), _rows(range(90, 95), "la", 7)]))
    writer.delete(_rows(range(20, 22), "sf", 8))
    ran = CliRunner().invoke(app, ["index", "run", place.uri])
    assert ran.exit_code == 0, ran.output
    table = place.open()
    assert not table.timeline.pending({Action.INDEXING})
    assert table.timeline.get(plan.instant_time, Action.INDEXING).is_completed
    assert len(index_locations(table, ["k020", "k021"])) == 63
    assert json.dumps(ours(place.uri)) == json.dumps(hudi_rs(place.uri))


def test_a_failed_build_is_rolled_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    place = Place(str(tmp_path / "t"), None)
    _create(place, "COPY_ON_WRITE")
    before = ours(place.uri)
    plan = schedule_indexing(place.open().storage, "record_index", RLI_OPTIONS, _lock(place))
    assert plan is not None

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OSError("disk full")

    monkeypatch.setattr(RecordIndexBuilder, "init_records", broken)
    with pytest.raises(IndexingError, match="disk full"):
        execute_indexing(place.open().storage, plan, RLI_OPTIONS, _lock(place))
    table = place.open()
    assert table.properties.get(TABLE_METADATA_PARTITIONS_INFLIGHT_KEY, "") == ""
    assert "record_index" not in table.config.metadata_partitions
    assert not [i for i in table.timeline.instants if i.requested_time == plan.instant_time]
    assert not table.storage.list(partition_dir("record_index"), recursive=True)
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    assert plan.instant_time not in {i.requested_time for i in mdt.timeline.instants}
    assert ours(place.uri) == hudi_rs(place.uri) == before


def _stale_plan(table: HudiTable) -> Instant:
    """A plan as an indexer killed inside the schedule leaves it: the partition not listed inflight."""
    writer = TimelineWriter(table.storage, layout_version=2, timeline_path=table.config.timeline_path)
    info = {"version": 1, "metadataPartitionPath": "record_index", "indexUptoInstant": "0", "extraMetadata": {}}
    plan = write_container(AvroSchemaName.INDEX_PLAN, {"version": 1, "indexPartitionInfos": [info]})
    return writer.create_requested(Action.INDEXING, content=plan)


def test_a_plan_killed_while_being_scheduled_is_scheduled_again(tmp_path: Path) -> None:
    place = Place(str(tmp_path / "t"), None)
    _create(place, "COPY_ON_WRITE")
    _stale_plan(place.open())
    (plan,) = pending_index_plans(place.open().timeline)
    with pytest.raises(IndexingError, match="never fully scheduled"):
        execute_indexing(place.open().storage, plan, RLI_OPTIONS, _lock(place))
    (left,) = place.open().timeline.pending({Action.INDEXING})  # left as it is
    assert left.requested_time == plan.instant_time
    built = CliRunner().invoke(app, ["index", "build", place.uri])
    assert built.exit_code == 0, built.output
    timeline = place.open().timeline
    assert plan.instant_time not in {i.requested_time for i in timeline.instants}
    (done,) = timeline.completed({Action.INDEXING})
    assert done.requested_time > plan.instant_time
    assert len(index_locations(place.open(), ["absent"])) == 60
