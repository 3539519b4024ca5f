"""Nothing leaks: after a writer is SIGKILLed anywhere in a write and the table recovers (the next
writer rolls the dead write back), the table holds no stray object (:mod:`tests.faults.stray`):
no temporary file of a half-written object, no marker, no empty marker directory, no heartbeat,
no orphan data file. A commit leaves no marker directory either, and a sweep never takes the
temporary files of a writer that is still alive.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.layout.naming import BaseFileName
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import WRITE_ACTIONS, Action
from hudi_framework.write.client import WriteClient
from hudi_framework.write.markers import IOType, create_marker
from tests.faults.campaign.inventory import stray_objects
from tests.faults.kill_writer import run_operation
from tests.faults.processes import kill_writer
from tests.faults.s3_faults import new_bucket, s3_options
from tests.faults.tables import START_ROWS, create_start_table, start_table_copies
from tests.faults.test_killed_writer import _hudi_rs, _ours

Rows = list[tuple[str, str, int]]

START: Rows = START_ROWS
#: The write that is killed: updates in both partitions, an insert, and a new partition.
KILLED: list[dict[str, object]] = [
    {"id": "a", "city": "sf", "ts": 2}, {"id": "c", "city": "sf", "ts": 2},
    {"id": "x", "city": "ny", "ts": 2}, {"id": "n", "city": "la", "ts": 2},
]  # fmt: skip
#: What the recovering write changes.
RECOVERY = [{"id": "b", "city": "sf", "ts": 3}]
RECOVERED: Rows = [("a", "sf", 1), ("b", "sf", 3), ("x", "ny", 1), ("y", "ny", 1)]

#: Where a writer dies: park points of :mod:`tests.faults.park`.
WRITE_POINTS = {
    "requested instant": r"tmp:\.requested$",
    "heartbeat": r"tmp:/\.heartbeat/",
    "inflight instant": r"tmp:\.inflight$",
    "marker": r"tmp:\.marker\.",
    "half a base file": r"stream:\.parquet$",
    "whole base file": r"tmp:\.parquet$",
    "log file": r"tmp:/\.[^/]*\.log\.\d+_[^/]*$",
    "partition metadata": r"tmp:/la/\.hoodie_partition_metadata",
    "completed instant": r"tmp:\.(commit|deltacommit)$",
}
MERGE_ON_READ_ONLY = {"log file"}
COPY_ON_WRITE_ONLY = {"half a base file", "whole base file"}  # merge-on-read updates append to logs


def _trials() -> list[tuple[str, str, int]]:
    out = []
    for name in WRITE_POINTS:
        layouts = [("COPY_ON_WRITE", 9), ("MERGE_ON_READ", 6)]
        if name in MERGE_ON_READ_ONLY:
            layouts = [("MERGE_ON_READ", 6), ("MERGE_ON_READ", 9)]
        elif name in COPY_ON_WRITE_ONLY:
            layouts = [("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 9)]
        out += [(name, table_type, version) for table_type, version in layouts]
    return out


def _settled(table: HudiTable) -> None:
    timeline = table.reload().timeline
    assert not timeline.pending(), timeline.pending()
    assert stray_objects(table) == []


@pytest.fixture(scope="module")
def make_table(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path, str, int], HudiTable]:
    return start_table_copies(tmp_path_factory)


@pytest.mark.parametrize(("table_type", "version"), [("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 9), ("MERGE_ON_READ", 6)])
def test_a_commit_leaves_nothing_behind(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable], table_type: str, version: int
) -> None:
    table = make_table(tmp_path / "t", table_type, version)
    WriteClient(table).upsert(pa.Table.from_pylist(KILLED))
    _settled(table)
    assert list((tmp_path / "t" / ".hoodie" / ".temp").iterdir()) == [], "no marker directory"


@pytest.mark.matrix  # each value of each parameter by default, every combination with HUDI_TEST_SLOW=1
@pytest.mark.parametrize(("point", "table_type", "version"), _trials())
def test_a_writer_killed_anywhere_leaves_nothing_after_recovery(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable], point: str, table_type: str, version: int
) -> None:
    path = tmp_path / "t"
    table = make_table(path, table_type, version)
    kill_writer(str(path), "park", tmp_path, KILLED, park=WRITE_POINTS[point])
    assert stray_objects(table), "the kill left something to clean up"
    assert _ours(path) == _hudi_rs(path) == START, "readers see the table as before"
    WriteClient(HudiTable.open(str(path))).upsert(pa.Table.from_pylist(RECOVERY))
    _settled(table)
    assert _ours(path) == _hudi_rs(path) == RECOVERED
    rollbacks = table.timeline.by_action(Action.ROLLBACK)
    assert all(i.is_completed for i in rollbacks)
    assert len(rollbacks) <= 1


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_a_partition_directory_a_killed_writer_never_filled_goes(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable], table_type: str
) -> None:
    """Killed between creating a new partition's directory and the first file in it (its marker
    written): the rollback finds no file to delete there, and still takes the directory."""
    path = tmp_path / "t"
    table = make_table(path, table_type, 9)
    kill_writer(str(path), "park", tmp_path, KILLED, park=WRITE_POINTS["inflight instant"])
    (dead,) = table.reload().timeline.pending()
    never_written = BaseFileName(f"{uuid.uuid4()}-0", "0-1-2", dead.requested_time).name
    create_marker(table.storage, dead.requested_time, "sea/wa", never_written, IOType.CREATE)
    (path / "sea" / "wa").mkdir(parents=True)
    WriteClient(HudiTable.open(str(path))).upsert(pa.Table.from_pylist(RECOVERY))
    _settled(table)
    assert not (path / "sea").exists()
    assert _ours(path) == _hudi_rs(path) == RECOVERED


def test_a_writer_killed_after_its_commit_leaves_nothing_after_recovery(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable]
) -> None:
    path = tmp_path / "t"
    table = make_table(path, "MERGE_ON_READ", 9)
    kill_writer(str(path), "after", tmp_path, KILLED)
    WriteClient(HudiTable.open(str(path))).upsert(pa.Table.from_pylist(RECOVERY))
    _settled(table)
    assert table.timeline.by_action(Action.ROLLBACK) == []
    assert _ours(path) == [
        ("a", "sf", 2),
        ("b", "sf", 3),
        ("c", "sf", 2),
        ("n", "la", 2),
        ("x", "ny", 2),
        ("y", "ny", 1),
    ]


def test_a_live_writers_temporary_files_are_left_alone(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable]
) -> None:
    """LAZY: another writer's start (and its sweep) runs while a writer is half-way through a base
    file; the half-written file stays until that writer is dead and rolled back."""
    path = tmp_path / "t"
    table = make_table(path, "COPY_ON_WRITE", 9)
    lazy = {"hoodie.cleaner.policy.failed.writes": "LAZY", "hoodie.client.heartbeat.interval_in_ms": "200"}
    settings = HudiSettings.from_hoodie_options(lazy)
    seen: list[list[str]] = []

    def other_writer_runs() -> None:
        time.sleep(0.6)  # the parked writer keeps beating; other writers must leave it alone
        WriteClient(HudiTable.open(str(path)), settings).upsert(
            pa.Table.from_pylist([{"id": "y", "city": "ny", "ts": 5}])
        )
        seen.append([w.target for w in table.storage.list_incomplete("sf")])

    rows = [{"id": "a", "city": "sf", "ts": 2}]
    kill_writer(
        str(path), "park", tmp_path, rows, lazy, park=r"stream:/sf/[^/]*\.parquet$", while_parked=other_writer_runs
    )
    assert len(seen) == 1
    assert len(seen[0]) == 1, "the parked writer's half-written base file is still there"
    time.sleep(1.0)  # the dead writer's heartbeat expires
    WriteClient(HudiTable.open(str(path)), settings).upsert(pa.Table.from_pylist(RECOVERY))
    _settled(table)
    assert _ours(path) == [("a", "sf", 1), ("b", "sf", 3), ("x", "ny", 1), ("y", "ny", 5)]


@pytest.mark.s3
@pytest.mark.parametrize("park", [r"s3:PutObject:\.parquet$", r"s3:PutObject:\.marker\.", r"s3:PutObject:\.commit$"])
def test_a_writer_killed_on_s3_leaves_nothing_after_recovery(
    tmp_path: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch, park: str
) -> None:
    uri = f"s3://{new_bucket(endpoint, monkeypatch)}/t"
    options = s3_options(endpoint)
    table = create_start_table(uri, "COPY_ON_WRITE", 9, options)
    env = {"HUDI_FAULT_STORAGE_OPTIONS": json.dumps(options)}
    kill_writer(uri, "park", tmp_path, KILLED, env=env, park=park)
    WriteClient(HudiTable.open(uri, storage_options=options)).upsert(pa.Table.from_pylist(RECOVERY))
    _settled(table)


@pytest.mark.parametrize(
    ("park", "policy"),
    [
        ("after", "EAGER"),  # a completed write's markers and heartbeat
        (WRITE_POINTS["requested instant"], "EAGER"),  # a half-written instant file
        (WRITE_POINTS["half a base file"], "LAZY"),  # LAZY cleans roll failed writes back too
    ],
)
def test_a_clean_removes_what_a_killed_writer_left(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable], park: str, policy: str
) -> None:
    path = tmp_path / "t"
    table = make_table(path, "COPY_ON_WRITE", 9)
    options = {"hoodie.cleaner.policy.failed.writes": policy, "hoodie.client.heartbeat.interval_in_ms": "100"}
    if park == "after":
        kill_writer(str(path), "after", tmp_path, KILLED, options)
    else:
        kill_writer(str(path), "park", tmp_path, KILLED, options, park=park)
    assert stray_objects(table)
    time.sleep(0.5)  # LAZY: the dead writer's heartbeat expires
    settings = HudiSettings.from_hoodie_options(options)
    cleaner, host = open_table_service(table, settings, "clean")
    cleaner.run(host, force=True)  # type: ignore[attr-defined]
    timeline = table.reload().timeline
    assert not timeline.pending(WRITE_ACTIONS)
    assert stray_objects(table) == []


@pytest.mark.parametrize(
    ("operation", "park"),
    [
        ("compact", r"stream:\.parquet$"),  # half a compacted base file
        ("compact", r"tmp:[0-9]\.commit$"),  # the compaction's completed instant file
        ("clean", r"tmp:[0-9]\.clean$"),  # the clean's completed instant file
    ],
)
def test_a_killed_table_service_leaves_nothing_once_run_again(
    tmp_path: Path, make_table: Callable[[Path, str, int], HudiTable], operation: str, park: str
) -> None:
    path = tmp_path / "t"
    table = make_table(path, "MERGE_ON_READ", 9)
    options = {"hoodie.cleaner.commits.retained": "1"}
    settings = HudiSettings.from_hoodie_options(options)
    client = WriteClient(table, HudiSettings.from_hoodie_options({**options, "hoodie.clean.automatic": "false"}))
    client.upsert(pa.Table.from_pylist([{"id": "a", "city": "sf", "ts": 2}]))  # a log file to compact
    if operation == "clean":
        service, host = open_table_service(table, settings, "compaction")
        service.execute(host, service.schedule(host))  # type: ignore[arg-type]
        client.upsert(pa.Table.from_pylist([{"id": "x", "city": "ny", "ts": 2}]))  # the old slices go out of reach
    kill_writer(str(path), "park", tmp_path, [], options, operation=operation, park=park)
    assert stray_objects(table) or table.reload().timeline.pending()
    expected = [("a", "sf", 2), ("b", "sf", 1), ("x", "ny", 2 if operation == "clean" else 1), ("y", "ny", 1)]
    assert _ours(path) == _hudi_rs(path) == expected
    run_operation(HudiTable.open(str(path)), settings, operation, [])  # the recovery: run it again
    assert not table.reload().timeline.pending()
    assert stray_objects(table) == []
    assert _ours(path) == _hudi_rs(path) == expected
