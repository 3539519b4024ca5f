from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest

from hudi_framework.errors import InstantMetadataError, InstantNotFoundError
from hudi_framework.timeline.avro_container import AvroSchemaName, write_container
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.metadata import (
    CommitMetadata,
    ReplaceCommitMetadata,
    WriteStat,
    commit_metadata_to_avro,
    commit_metadata_to_json,
)
from hudi_framework.timeline.timeline import Timeline, timeline_dir
from hudi_framework.vocabulary import TimelineTimezone
from hudi_storage_local.backend import LocalStorageBackend

T1, T2, T3, T4, T5, T6 = (f"2024010100000{i}000" for i in range(1, 7))


def _put(root: Path, layout: int, name: str, data: bytes = b"", mtime: dt.datetime | None = None) -> None:
    path = root / timeline_dir(layout) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if mtime is not None:
        os.utime(path, (mtime.timestamp(), mtime.timestamp()))


def _clustering_request() -> bytes:
    plan = {"inputGroups": [], "strategy": None, "extraMetadata": None, "version": 1}
    record = {"operationType": "CLUSTER", "clusteringPlan": plan, "extraMetadata": None, "version": 1}
    return write_container(AvroSchemaName.REQUESTED_REPLACE_METADATA, record)


def _compaction_plan() -> bytes:
    return write_container(AvroSchemaName.COMPACTION_PLAN, {"operations": [], "version": 2})


def test_timeline_dir() -> None:
    assert timeline_dir(1) == ".hoodie"
    assert timeline_dir(2) == ".hoodie/timeline"
    assert timeline_dir(2, "tl/") == ".hoodie/tl"


@pytest.fixture
def layout2(tmp_path: Path) -> Timeline:
    put = lambda name, data=b"": _put(tmp_path, 2, name, data)  # noqa: E731
    put(f"{T1}.commit.requested")
    put(f"{T1}.inflight")
    put(f"{T1}_{T2}.commit", commit_metadata_to_avro(CommitMetadata(operation_type="INSERT")))
    put(f"{T2}.replacecommit.requested", write_container(AvroSchemaName.REQUESTED_REPLACE_METADATA, {}))
    put(f"{T2}.replacecommit.inflight")
    replace = ReplaceCommitMetadata(partition_to_replace_file_ids={"p": ["f1", "f2"], "": ["f3"]})
    put(f"{T2}_{T3}.replacecommit", commit_metadata_to_avro(replace))
    put(f"{T3}.compaction.requested", _compaction_plan())
    put(f"{T3}.compaction.inflight")
    put(f"{T4}.clustering.requested", _clustering_request())
    put(f"{T5}.compaction.requested", _compaction_plan())
    put(f"{T5}.compaction.inflight")
    put(f"{T5}_{T6}.commit", commit_metadata_to_avro(CommitMetadata(compacted=True, operation_type="COMPACT")))
    put(f"{T6}.deltacommit.requested")
    put("._junk.commit")
    put("hoodie.properties")
    (tmp_path / ".hoodie" / "timeline" / "history").mkdir()
    return Timeline.load(LocalStorageBackend(str(tmp_path)), layout_version=2)


def test_latest_state_per_instant(layout2: Timeline) -> None:
    assert [str(i) for i in layout2] == [
        f"[{T1} -> {T2}] commit.completed",
        f"[{T2} -> {T3}] replacecommit.completed",
        f"[{T3}] compaction.inflight",
        f"[{T4}] clustering.requested",
        f"[{T5} -> {T6}] commit.completed",
        f"[{T6}] deltacommit.requested",
    ]
    assert len(layout2) == 6
    assert layout2.directory == ".hoodie/timeline"
    assert layout2.last_requested_time() == T6
    assert layout2.last_completion_time() == T6


def test_filters(layout2: Timeline) -> None:
    assert [i.requested_time for i in layout2.completed()] == [T1, T2, T5]
    assert [i.requested_time for i in layout2.completed({Action.COMMIT})] == [T1, T5]
    assert [i.requested_time for i in layout2.completed(as_of=T4)] == [T1, T2]
    assert [i.requested_time for i in layout2.pending()] == [T3, T4, T6]
    assert [i.requested_time for i in layout2.pending({Action.COMPACTION})] == [T3]
    assert [i.requested_time for i in layout2.by_action(Action.COMMIT)] == [T1, T3, T5]
    assert [i.requested_time for i in layout2.commits_timeline()] == [T1, T2, T5]
    assert [i.requested_time for i in layout2.commits_timeline(include_pending=True)] == [
        T1,
        T2,
        T3,
        T4,
        T5,
        T6,
    ]
    latest = layout2.latest_completed_commit()
    assert latest is not None
    assert latest.requested_time == T5
    assert layout2.latest_completed_commit(as_of=T1) == layout2.get(T1)


def test_get(layout2: Timeline) -> None:
    assert layout2.get(T3).action is Action.COMPACTION
    assert layout2.get(T3, Action.COMMIT) == layout2.get(T3, Action.COMPACTION)
    with pytest.raises(InstantNotFoundError):
        layout2.get("20990101000000000")
    with pytest.raises(InstantNotFoundError):
        layout2.get(T1, Action.CLEAN)


def test_contents(layout2: Timeline) -> None:
    commit = layout2.get(T1)
    assert layout2.read_commit_metadata(commit).operation_type == "INSERT"
    assert layout2.file_key(commit, State.REQUESTED) == f".hoodie/timeline/{T1}.commit.requested"
    assert layout2.read_bytes(commit, State.REQUESTED) == b""
    assert layout2.read_avro(commit, State.INFLIGHT) is None
    replace = layout2.read_commit_metadata(layout2.get(T2))
    assert isinstance(replace, ReplaceCommitMetadata)
    assert layout2.read_commit_metadata(layout2.get(T6)) == CommitMetadata()
    with pytest.raises(InstantMetadataError):
        layout2.read_commit_metadata(layout2.get(T4))
    with pytest.raises(InstantNotFoundError):
        layout2.file_key(commit, State.INFLIGHT.__class__("inflight")) and layout2.file_key(
            layout2.get(T4), State.INFLIGHT
        )
    with pytest.raises(InstantNotFoundError):
        layout2.read_bytes(Instant("20990101000000000", Action.COMMIT, State.COMPLETED))


def test_replaced_file_groups(layout2: Timeline) -> None:
    replace = layout2.get(T2)
    assert layout2.replaced_file_groups() == {("p", "f1"): replace, ("p", "f2"): replace, ("", "f3"): replace}
    assert layout2.replaced_file_groups(as_of=T1) == {}
    assert layout2.replaced_file_groups() == layout2.replaced_file_groups()  # memoised path


def test_written_files_read_each_commit_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stat = WriteStat(file_id="f1", path="p/f1_0-0-0_x.parquet", partition_path="p")
    written = CommitMetadata(partition_to_write_stats={"p": [stat]})
    _put(tmp_path, 2, f"{T1}_{T2}.commit", commit_metadata_to_avro(written))
    _put(tmp_path, 2, f"{T3}_{T4}.deltacommit", b"")
    storage = LocalStorageBackend(str(tmp_path))
    reads: list[list[str]] = []
    original = storage.read_many
    monkeypatch.setattr(storage, "read_many", lambda keys: reads.append(list(keys)) or original(keys))
    timeline = Timeline.load(storage, layout_version=2)
    commits = timeline.commits_timeline()
    assert timeline.written_files(commits) == {commits[0]: (("p", "f1_0-0-0_x.parquet"),), commits[1]: ()}
    assert timeline.written_files(commits[:1]) == {commits[0]: (("p", "f1_0-0-0_x.parquet"),)}
    # A reloaded timeline keeps what an earlier snapshot read; only new completions are read.
    _put(tmp_path, 2, f"{T5}_{T6}.commit", commit_metadata_to_avro(CommitMetadata()))
    reloaded = timeline.reload()
    assert set(reloaded.written_files(reloaded.commits_timeline())) == set(reloaded.commits_timeline())
    assert [len(keys) for keys in reads] == [2, 1]
    with pytest.raises(InstantMetadataError, match="not a completed write"):
        Timeline.load(storage, layout_version=2).written_files([Instant(T5, Action.CLEAN, State.COMPLETED, T6)])


def test_pending_plans(layout2: Timeline) -> None:
    assert list(layout2.pending_compaction_plans()) == [layout2.get(T3)]
    assert layout2.pending_compaction_plans()[layout2.get(T3)]["version"] == 2
    assert layout2.pending_log_compaction_plans() == {}
    plans = layout2.pending_clustering_plans()
    assert list(plans) == [layout2.get(T4)]
    assert plans[layout2.get(T4)]["inputGroups"] == []


def test_reload_sees_new_files(layout2: Timeline, tmp_path: Path) -> None:
    _put(tmp_path, 2, f"{T6}.deltacommit.inflight")
    assert layout2.get(T6).state is State.REQUESTED
    assert layout2.reload().get(T6).state is State.INFLIGHT


def test_layout1_completion_time_is_the_completed_file_mtime(tmp_path: Path) -> None:
    mtime = dt.datetime(2024, 1, 1, 0, 0, 7, 123000, tzinfo=dt.UTC)
    _put(tmp_path, 1, f"{T1}.commit.requested")
    _put(tmp_path, 1, f"{T1}.inflight", commit_metadata_to_json(CommitMetadata()))
    _put(tmp_path, 1, f"{T1}.commit", commit_metadata_to_json(CommitMetadata(operation_type="UPSERT")), mtime)
    _put(tmp_path, 1, f"{T2}.replacecommit.requested", _clustering_request())
    _put(tmp_path, 1, f"{T2}.replacecommit.inflight")
    _put(
        tmp_path,
        1,
        f"{T3}.replacecommit.requested",
        write_container(AvroSchemaName.REQUESTED_REPLACE_METADATA, {}),
    )
    _put(tmp_path, 1, f"{T4}.savepoint.inflight")
    _put(tmp_path, 1, "hoodie.properties")
    (tmp_path / ".hoodie" / "archived").mkdir()
    tl = Timeline.load(LocalStorageBackend(str(tmp_path)), layout_version=1, timezone=TimelineTimezone.UTC)
    assert tl.directory == ".hoodie"
    assert tl.get(T1).completion_time == "20240101000007123"
    assert tl.read_commit_metadata(tl.get(T1)).operation_type == "UPSERT"
    # v6 clustering is a replacecommit whose requested file holds a clustering plan.
    assert list(tl.pending_clustering_plans()) == [tl.get(T2)]
    assert tl.get(T4) == Instant(T4, Action.SAVEPOINT, State.INFLIGHT)


def test_legacy_and_duplicate_completed_files_in_layout2(tmp_path: Path) -> None:
    mtime = dt.datetime(2024, 1, 1, 0, 0, 9, tzinfo=dt.UTC)
    _put(tmp_path, 2, f"{T1}.commit", commit_metadata_to_json(CommitMetadata()), mtime)  # legacy name
    _put(tmp_path, 2, f"{T2}_{T4}.commit")
    _put(tmp_path, 2, f"{T2}_{T3}.commit")  # a racing writer's leftover: the earliest completion stays
    tl = Timeline.load(LocalStorageBackend(str(tmp_path)), layout_version=2, timezone=TimelineTimezone.UTC)
    assert tl.get(T1).completion_time == "20240101000009000"
    assert tl.get(T2).completion_time == T3
    assert tl.read_commit_metadata(tl.get(T1)) == CommitMetadata()


def test_empty_and_missing_timelines(tmp_path: Path) -> None:
    tl = Timeline.load(LocalStorageBackend(str(tmp_path)), layout_version=2, timeline_path="elsewhere")
    assert len(tl) == 0
    assert tl.last_requested_time() is None
    assert tl.latest_completed_commit() is None
    assert tl.replaced_file_groups() == {}
    assert tl.timeline_path == "elsewhere"
    assert tl.layout_version == 2
    assert tl.timezone is TimelineTimezone.LOCAL
    assert isinstance(tl.storage, LocalStorageBackend)
