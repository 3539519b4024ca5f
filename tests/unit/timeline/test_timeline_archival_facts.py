"""What archival and the views ask of the active timeline: where it starts (its first write) and
each instant's state files."""

from __future__ import annotations

from pathlib import Path

from hudi_framework.timeline.archived_timeline import timeline_start
from hudi_framework.timeline.instant import Action, State
from hudi_framework.timeline.timeline import Timeline
from hudi_storage_local.backend import LocalStorageBackend

T1, T2, T3 = "20261128100000001", "20261128100000002", "20261128100000003"


def _timeline(tmp_path: Path, names: list[str]) -> Timeline:
    directory = tmp_path / ".hoodie" / "timeline"
    directory.mkdir(parents=True)
    for name in names:
        (directory / name).write_bytes(b"")
    return Timeline.load(LocalStorageBackend(str(tmp_path)), layout_version=2)


def test_start_is_the_first_write_pending_or_completed(tmp_path: Path) -> None:
    timeline = _timeline(tmp_path, [f"{T2}.commit.requested", f"{T1}.clean.requested", f"{T3}.inflight"])
    assert timeline_start(timeline) == T2  # a clean wrote no data file


def test_an_empty_timeline_has_no_start(tmp_path: Path) -> None:
    assert timeline_start(_timeline(tmp_path, [])) is None


def test_state_files_of_a_compaction_completed_as_commit(tmp_path: Path) -> None:
    names = [f"{T1}.compaction.requested", f"{T1}.compaction.inflight", f"{T1}_{T2}.commit", f"{T3}.clean.requested"]
    timeline = _timeline(tmp_path, names)
    files = timeline.state_files(timeline.get(T1, Action.COMMIT))
    assert {state: key.rsplit("/", 1)[-1] for state, key in files.items()} == {
        State.REQUESTED: f"{T1}.compaction.requested",
        State.INFLIGHT: f"{T1}.compaction.inflight",
        State.COMPLETED: f"{T1}_{T2}.commit",
    }
    assert list(timeline.state_files(timeline.get(T3))) == [State.REQUESTED]
