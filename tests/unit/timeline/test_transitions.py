from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from hudi_framework.errors import IllegalTransitionError, InstantNotFoundError, TimelineError
from hudi_framework.timeline.avro_container import read_container
from hudi_framework.timeline.instant import Action, Instant, State
from hudi_framework.timeline.instant_time import InstantTimeGenerator
from hudi_framework.timeline.metadata import (
    CommitMetadata,
    ReplaceCommitMetadata,
    WriteStat,
    decode_commit_metadata,
)
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.vocabulary import TimelineTimezone
from hudi_storage_local.backend import LocalStorageBackend

LAYOUTS = [1, 2]


class HookedBackend(LocalStorageBackend):
    """Runs a hook before each put_if_absent, to stage races deterministically."""

    def __init__(self, root: str) -> None:
        super().__init__(root)
        self.before_put: Callable[[str], None] | None = None

    def put_if_absent(self, key: str, data: bytes) -> str:
        hook, self.before_put = self.before_put, None
        if hook is not None:
            hook(key)
        return super().put_if_absent(key, data)


def _writer(root: Path, layout: int, **kwargs: object) -> TimelineWriter:
    return TimelineWriter(HookedBackend(str(root)), layout_version=layout, **kwargs)  # type: ignore[arg-type]


def _names(writer: TimelineWriter, root: Path) -> list[str]:
    directory = root / writer.timeline().directory
    return sorted(p.name for p in directory.iterdir() if p.is_file())


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize(
    ("action", "inflight_name", "completed_action"),
    [
        (Action.COMMIT, "{t}.inflight", Action.COMMIT),
        (Action.DELTA_COMMIT, "{t}.deltacommit.inflight", Action.DELTA_COMMIT),
        (Action.REPLACE_COMMIT, "{t}.replacecommit.inflight", Action.REPLACE_COMMIT),
        (Action.COMPACTION, "{t}.compaction.inflight", Action.COMMIT),
        (Action.LOG_COMPACTION, "{t}.logcompaction.inflight", Action.DELTA_COMMIT),
        (Action.CLEAN, "{t}.clean.inflight", Action.CLEAN),
        (Action.ROLLBACK, "{t}.rollback.inflight", Action.ROLLBACK),
        (Action.RESTORE, "{t}.restore.inflight", Action.RESTORE),
        (Action.INDEXING, "{t}.indexing.inflight", Action.INDEXING),
    ],
)
def test_lifecycle(tmp_path: Path, layout: int, action: Action, inflight_name: str, completed_action: Action) -> None:
    writer = _writer(tmp_path, layout)
    requested = writer.create_requested(action)
    assert requested == Instant(requested.requested_time, action, State.REQUESTED)
    inflight = writer.transition_to_inflight(requested)
    t = requested.requested_time
    assert inflight_name.format(t=t) in _names(writer, tmp_path)
    metadata = CommitMetadata(partition_to_write_stats={"p": [WriteStat(file_id="f1")]}, operation_type="UPSERT")
    done = writer.complete(inflight, metadata)
    assert done.action is completed_action
    assert done.completion_time is not None
    assert done.completion_time >= t
    completed_name = f"{t}.{completed_action}" if layout == 1 else f"{t}_{done.completion_time}.{completed_action}"
    assert completed_name in _names(writer, tmp_path)
    timeline = writer.timeline()
    assert list(timeline) == [done]
    body = timeline.read_bytes(done)
    assert body.startswith(b"{" if layout == 1 else b"Obj\x01")
    assert decode_commit_metadata(body).write_stats()[0].file_id == "f1"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_default_requested_contents(tmp_path: Path, layout: int) -> None:
    writer = _writer(tmp_path, layout)
    commit = writer.create_requested(Action.COMMIT)
    replace = writer.create_requested(Action.REPLACE_COMMIT)
    timeline = writer.timeline()
    assert timeline.read_bytes(commit) == b""
    record = read_container(timeline.read_bytes(replace))
    assert record.record == {
        "operationType": None,
        "clusteringPlan": None,
        "extraMetadata": None,
        "version": None,
    }
    plan = b"plan-bytes"
    clean = writer.create_requested(Action.CLEAN, content=plan)
    assert writer.timeline().read_bytes(clean) == plan


@pytest.mark.parametrize("layout", LAYOUTS)
def test_replacecommit_completes_with_replace_metadata(tmp_path: Path, layout: int) -> None:
    writer = _writer(tmp_path, layout)
    inflight = writer.transition_to_inflight(writer.create_requested(Action.REPLACE_COMMIT))
    done = writer.complete(inflight, CommitMetadata(operation_type="INSERT_OVERWRITE"))
    md = writer.timeline().read_commit_metadata(done)
    assert isinstance(md, ReplaceCommitMetadata)
    assert md.partition_to_replace_file_ids == {}


@pytest.mark.parametrize("layout", LAYOUTS)
def test_clustering(tmp_path: Path, layout: int) -> None:
    writer = _writer(tmp_path, layout)
    requested = writer.create_requested(Action.CLUSTERING, content=b"")
    done = writer.complete(writer.transition_to_inflight(requested), ReplaceCommitMetadata())
    expected = "replacecommit.requested" if layout == 1 else "clustering.requested"
    assert f"{requested.requested_time}.{expected}" in _names(writer, tmp_path)
    assert done.action is Action.REPLACE_COMMIT


@pytest.mark.parametrize("layout", LAYOUTS)
def test_savepoint_starts_inflight(tmp_path: Path, layout: int) -> None:
    writer = _writer(tmp_path, layout)
    with pytest.raises(IllegalTransitionError):
        writer.create_requested(Action.SAVEPOINT)
    with pytest.raises(IllegalTransitionError):
        writer.create_inflight(Action.COMMIT)
    inflight = writer.create_inflight(Action.SAVEPOINT, content=b"x")
    assert inflight.state is State.INFLIGHT
    assert writer.complete(inflight, b"savepoint").action is Action.SAVEPOINT


@pytest.mark.parametrize("layout", LAYOUTS)
def test_illegal_transitions(tmp_path: Path, layout: int) -> None:
    writer = _writer(tmp_path, layout)
    requested = writer.create_requested(Action.DELTA_COMMIT)
    with pytest.raises(IllegalTransitionError, match="requested to completed"):
        writer.complete(requested)
    inflight = writer.transition_to_inflight(requested)
    with pytest.raises(IllegalTransitionError, match="inflight to inflight"):
        writer.transition_to_inflight(requested)
    done = writer.complete(inflight)
    assert writer.timeline().get(inflight.requested_time) == done
    with pytest.raises(IllegalTransitionError, match="completed to completed"):
        writer.complete(inflight)
    with pytest.raises(IllegalTransitionError, match="completed to inflight"):
        writer.transition_to_inflight(requested)
    with pytest.raises(IllegalTransitionError, match="not newer"):
        writer.create_requested(Action.COMMIT, requested.requested_time)
    with pytest.raises(IllegalTransitionError, match="not newer"):
        writer.create_requested(Action.COMMIT, "20000101000000000")
    with pytest.raises(InstantNotFoundError):
        writer.transition_to_inflight(Instant("20990101000000000", Action.COMMIT, State.REQUESTED))
    with pytest.raises(IllegalTransitionError, match="instant completed"):
        writer.delete_instant(done)
    with pytest.raises(ValueError, match="not an instant time"):
        writer.create_requested(Action.COMMIT, "tomorrow")


def test_completion_time_rules(tmp_path: Path) -> None:
    w2 = _writer(tmp_path / "l2", 2)
    inflight = w2.transition_to_inflight(w2.create_requested(Action.COMMIT, "20300101000000000"))
    with pytest.raises(IllegalTransitionError, match="completion"):
        w2.complete(inflight, completion_time="20290101000000000")
    with pytest.raises(ValueError, match="not an instant time"):
        w2.complete(inflight, completion_time="x")
    assert w2.complete(inflight, completion_time="20300101000000000").completion_time == "20300101000000000"
    # The next requested time is above every completion time, and C > T when generated.
    nxt = w2.transition_to_inflight(w2.create_requested(Action.COMMIT))
    assert nxt.requested_time > "20300101000000000"
    assert (w2.complete(nxt).completion_time or "") > nxt.requested_time
    w1 = _writer(tmp_path / "l1", 1)
    inflight1 = w1.transition_to_inflight(w1.create_requested(Action.COMMIT))
    with pytest.raises(ValueError, match="modification time"):
        w1.complete(inflight1, completion_time="20300101000000000")


def test_layout1_completion_time_from_mtime_in_the_timeline_zone(tmp_path: Path) -> None:
    writer = _writer(tmp_path, 1, timezone=TimelineTimezone.UTC)
    done = writer.complete(writer.transition_to_inflight(writer.create_requested(Action.COMMIT)))
    path = tmp_path / ".hoodie" / f"{done.requested_time}.commit"
    mtime = dt.datetime.fromtimestamp(os.stat(path).st_mtime, dt.UTC)
    assert done.completion_time == mtime.strftime("%Y%m%d%H%M%S") + f"{mtime.microsecond // 1000:03d}"
    assert writer.timeline().get(done.requested_time) == done


@pytest.mark.parametrize("layout", LAYOUTS)
def test_delete_instant(tmp_path: Path, layout: int) -> None:
    writer = _writer(tmp_path, layout)
    pending = writer.transition_to_inflight(writer.create_requested(Action.DELTA_COMMIT))
    writer.delete_instant(pending)
    done = writer.complete(writer.transition_to_inflight(writer.create_requested(Action.COMMIT)))
    writer.delete_instant(done, allow_completed=True)
    assert _names(writer, tmp_path) == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_collision_on_the_same_file_retries_with_a_later_time(tmp_path: Path, layout: int) -> None:
    frozen = dt.datetime(2030, 1, 1)
    writer = _writer(tmp_path, layout, generator=InstantTimeGenerator(clock=lambda: frozen))
    backend = writer.timeline().storage
    assert isinstance(backend, HookedBackend)
    # Another process publishes the very file we are about to create.
    backend.before_put = lambda key: LocalStorageBackend(str(tmp_path)).put_if_absent(key, b"")
    mine = writer.create_requested(Action.COMMIT)
    assert mine.requested_time == "20300101000000001"
    assert [i.requested_time for i in writer.timeline()] == ["20300101000000000", "20300101000000001"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_losing_a_race_to_a_newer_or_equal_instant_backs_off(tmp_path: Path, layout: int) -> None:
    frozen = dt.datetime(2030, 1, 1)
    writer = _writer(tmp_path, layout, generator=InstantTimeGenerator(clock=lambda: frozen))
    backend = writer.timeline().storage
    assert isinstance(backend, HookedBackend)
    other = LocalStorageBackend(str(tmp_path))
    prefix = writer.timeline().directory
    # Same time, other action: no file collision, but two instants at one time must not both survive.
    backend.before_put = lambda _key: other.put_if_absent(f"{prefix}/20300101000000000.clean.requested", b"")
    mine = writer.create_requested(Action.COMMIT)
    assert mine.requested_time == "20300101000000001"
    names = _names(writer, tmp_path)
    assert names == ["20300101000000000.clean.requested", "20300101000000001.commit.requested"]
    # With an explicit time there is no retry: the loser raises and leaves nothing behind.
    backend.before_put = lambda _key: other.put_if_absent(f"{prefix}/20300101000000009.clean.requested", b"")
    with pytest.raises(IllegalTransitionError, match="concurrent"):
        writer.create_requested(Action.COMMIT, "20300101000000005")
    assert "20300101000000005.commit.requested" not in _names(writer, tmp_path)


def test_gives_up_after_max_attempts(tmp_path: Path) -> None:
    class AlwaysTaken(HookedBackend):
        def put_if_absent(self, key: str, data: bytes) -> str:
            super().put_if_absent(key, data)
            return super().put_if_absent(key, data)  # second create always collides

    stubborn = TimelineWriter(AlwaysTaken(str(tmp_path)), layout_version=2, max_attempts=2)
    with pytest.raises(TimelineError, match="2 attempts"):
        stubborn.create_requested(Action.COMMIT)


def test_concurrent_completion_in_layout2_keeps_one(tmp_path: Path) -> None:
    writer = _writer(tmp_path, 2)
    inflight = writer.transition_to_inflight(writer.create_requested(Action.COMMIT))
    backend = writer.timeline().storage
    assert isinstance(backend, HookedBackend)
    t = inflight.requested_time
    rival = f".hoodie/timeline/{t}_{t}.commit"
    backend.before_put = lambda _key: LocalStorageBackend(str(tmp_path)).put_if_absent(rival, b"")
    with pytest.raises(IllegalTransitionError, match="completed concurrently"):
        writer.complete(inflight)
    completed = [n for n in _names(writer, tmp_path) if n.endswith(".commit")]
    assert completed == [f"{t}_{t}.commit"]
