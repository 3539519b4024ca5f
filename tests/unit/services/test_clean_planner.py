"""The cleaner's plan per policy on hand-built timelines: which files are deleted and which are kept.

Tables are built file by file: instant files through the timeline writer and empty data files with
Hudi names, since planning only lists files and reads plans, savepoints and replace metadata.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

import pytest

from hudi_framework.config.services import CleanSettings
from hudi_framework.layout.file_group import FileGroupId
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.layout.partition_metadata import write_partition_metadata
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clean_plan import SAVEPOINTED_TIMESTAMPS, decode_cleaner_plan, encode_cleaner_plan
from hudi_framework.services.compaction_plan import CompactionOperation, CompactionPlan, encode_compaction_plan
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.timeline.instant_time import parse_instant_time
from hudi_framework.timeline.metadata import ReplaceCommitMetadata
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.write.savepoint import create_savepoint, delete_savepoint
from hudi_framework.write.transaction import timeline_writer
from hudi_services_cleaning import build_clean_plan, schedule_clean

FG_A = "aaaaaaaa-0000-0000-0000-000000000000-0"
FG_B = "bbbbbbbb-0000-0000-0000-000000000000-0"


def t(hour: int) -> str:
    """Instant time at ``hour`` o'clock on 2026-01-01."""
    return f"20260101{hour:02d}0000000"


def done(hour: int) -> str:
    """Completion time of the instant of ``hour``: half an hour later."""
    return f"20260101{hour:02d}3000000"


class Builder:
    """Writes instants and empty data files of a hand-made table."""

    def __init__(self, root: Path, *, table_type: str = "COPY_ON_WRITE", version: int = 9) -> None:
        config = new_table_config(
            "t", table_type=table_type, version=version, record_key_fields=["id"], partition_fields=["p"]
        )
        self.root = root / "t"
        self.table = HudiTable.create(str(self.root), config)
        self.writer: TimelineWriter = timeline_writer(self.table.storage, self.table.config)

    def base(self, hour: int, fid: str = FG_A, partition: str = "p1") -> str:
        name = BaseFileName(fid, "0-0-0", t(hour)).name
        self._touch(partition, name)
        return f"{partition}/{name}"

    def log(self, hour: int, fid: str = FG_A, partition: str = "p1", *, version: int = 1) -> str:
        name = LogFileName(fid, t(hour), version).name
        self._touch(partition, name)
        return f"{partition}/{name}"

    def _touch(self, partition: str, name: str) -> None:
        if not (self.root / partition).exists():
            write_partition_metadata(self.table.storage, partition, t(0))  # partitions are found by it
        (self.root / partition / name).write_bytes(b"")

    def commit(self, hour: int, action: Action = Action.COMMIT, *, complete: bool = True) -> None:
        requested = self.writer.create_requested(action, t(hour))
        if complete:
            self.writer.complete(self.writer.transition_to_inflight(requested), completion_time=self._done(hour))

    def _done(self, hour: int) -> str | None:
        return done(hour) if self.table.config.timeline_layout_version != 1 else None

    def replace(self, hour: int, replaced: dict[str, list[str]]) -> None:
        requested = self.writer.create_requested(Action.REPLACE_COMMIT, t(hour))
        inflight = self.writer.transition_to_inflight(requested)
        metadata = ReplaceCommitMetadata(
            partition_to_write_stats={}, compacted=False, operation_type="INSERT_OVERWRITE",
            partition_to_replace_file_ids=replaced,
        )  # fmt: skip
        self.writer.complete(inflight, metadata, completion_time=self._done(hour))

    def pending_compaction(self, hour: int, base_hour: int, fid: str = FG_A, partition: str = "p1") -> None:
        op = CompactionOperation(FileGroupId(partition, fid), t(base_hour), ())
        self.writer.create_requested(Action.COMPACTION, t(hour), encode_compaction_plan(CompactionPlan((op,))))

    def planned(self, **settings: object) -> set[str]:
        plan = build_clean_plan(self.table.reload(), CleanSettings(**settings))  # type: ignore[arg-type]
        return set(plan.keys)


def _cow_updates(b: Builder, hours: Iterable[int]) -> dict[int, str]:
    files = {}
    for hour in hours:
        files[hour] = b.base(hour)
        b.commit(hour)
    return files


def test_keep_latest_commits_keeps_retained_slices_and_the_one_serving_the_earliest(tmp_path: Path) -> None:
    b = Builder(tmp_path)
    files = _cow_updates(b, range(1, 6))
    # Two commits retained: the earliest retained is 4, the slice of 3 serves queries as of 4.
    assert b.planned(commits_retained=2) == {files[1], files[2]}
    assert b.planned(commits_retained=4) == set()
    assert b.planned(commits_retained=5) == set()  # not more commits than retained: nothing to clean


def test_keep_latest_commits_never_passes_a_pending_write(tmp_path: Path) -> None:
    b = Builder(tmp_path)
    files = {h: b.base(h) for h in (1, 2, 3)}
    for h in (1, 2, 3):
        b.commit(h)
    b.commit(4, complete=False)  # an inflight write: the retained history may not start after it
    for h in (5, 6):
        files[h] = b.base(h)
        b.commit(h)
    # One commit retained would be 6; the pending write at 4 caps it at 3 (served by itself), 2 serves 3.
    assert b.planned(commits_retained=1) == {files[1]}


def test_keep_latest_file_versions(tmp_path: Path) -> None:
    b = Builder(tmp_path)
    files = _cow_updates(b, range(1, 6))
    other = b.base(3, FG_B, "p2")
    assert b.planned(policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=2) == {files[1], files[2], files[3]}
    assert b.planned(policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=1) == {files[h] for h in range(1, 5)}
    assert other not in b.planned(policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=1)


def test_keep_latest_by_hours(tmp_path: Path) -> None:
    b = Builder(tmp_path)
    files = _cow_updates(b, range(1, 6))
    now = parse_instant_time(t(5)).astimezone()  # the timeline's LOCAL time zone
    plan = build_clean_plan(
        b.table.reload(),
        CleanSettings(policy="KEEP_LATEST_BY_HOURS", hours_retained=2),
        now=now,  # type: ignore[arg-type]
    )
    assert plan.earliest_instant_to_retain is not None
    assert plan.earliest_instant_to_retain.timestamp == t(3)
    assert set(plan.keys) == {files[1]}  # 2 serves queries as of 3
    later = build_clean_plan(
        b.table, CleanSettings(policy="KEEP_LATEST_BY_HOURS", hours_retained=2),  # type: ignore[arg-type]
        now=now + dt.timedelta(hours=10),
    )  # fmt: skip
    assert later.earliest_instant_to_retain is None  # every commit is older: nothing to retain from
    assert later.file_count == 0


def test_savepointed_slices_are_kept_by_every_policy(tmp_path: Path) -> None:
    b = Builder(tmp_path)
    files = _cow_updates(b, range(1, 6))
    create_savepoint(b.table.reload(), t(2), user="test")
    assert b.planned(commits_retained=1) == {files[1], files[3]}
    assert b.planned(policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=1) == {files[1], files[3], files[4]}
    plan = build_clean_plan(b.table.reload(), CleanSettings(commits_retained=1))
    assert plan.extra_metadata == {SAVEPOINTED_TIMESTAMPS: t(2)}
    delete_savepoint(b.table, t(2))  # once the savepoint is gone, its files may go too
    assert b.planned(commits_retained=1) == {files[1], files[2], files[3]}


def test_pending_compaction_slices_are_never_cleaned(tmp_path: Path) -> None:
    b = Builder(tmp_path, table_type="MERGE_ON_READ")
    files = {1: [b.base(1)]}
    b.commit(1, Action.DELTA_COMMIT)
    for h in (2, 3):  # delta commits with log files of their own (v9)
        files[h] = [b.log(h)]
        b.commit(h, Action.DELTA_COMMIT)
    b.commit(4)  # a compaction that completed: new base file at 4
    files[4] = [b.base(4)]
    files[5] = [b.log(5)]
    b.commit(5, Action.DELTA_COMMIT)
    b.pending_compaction(6, base_hour=4)  # compacts the slice of 4 (base 4 + log 5)
    files[7] = [b.log(7)]
    b.commit(7, Action.DELTA_COMMIT)
    deleted = b.planned(policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=1)
    assert deleted == {*files[1], *files[2], *files[3]}  # the slice of 1 with its log files
    assert not deleted & {*files[4], *files[5], *files[7]}  # the compaction's input and the newest slice
    # One commit retained would be 7; the pending compaction at 6 caps it at 5, whose slice (4) it reads.
    assert b.planned(commits_retained=1) == deleted
    assert b.planned(commits_retained=3) == set()  # retained from 4: the slice of 1 serves queries as of 4


def test_replaced_file_groups_go_after_the_retained_history(tmp_path: Path) -> None:
    b = Builder(tmp_path)
    a1 = b.base(1)
    b.commit(1)
    a2 = b.base(2)
    b.commit(2)
    replacing = b.base(3, FG_B)
    b.replace(3, {"p1": [FG_A]})
    later = []
    for h in (4, 5):
        later.append(b.base(h, FG_B))
        b.commit(h)
    # Replaced at 3, before the earliest retained commit (5): the whole group goes, savepoints aside.
    assert b.planned(commits_retained=1) == {a1, a2, replacing}
    assert b.planned(commits_retained=3) == set()  # replaced at 3: not before the earliest retained (3)
    assert b.planned(policy="KEEP_LATEST_FILE_VERSIONS", file_versions_retained=3) == {a1, a2}


def test_merge_on_read_logs_go_with_their_slice_v6(tmp_path: Path) -> None:
    b = Builder(tmp_path, table_type="MERGE_ON_READ", version=6)
    base1 = b.base(1)
    b.commit(1, Action.DELTA_COMMIT)
    logs = [b.log(1, version=v) for v in (1, 2)]  # v6 logs name their slice's base instant
    b.commit(2, Action.DELTA_COMMIT)
    b.commit(3, Action.DELTA_COMMIT)
    for h in (4, 5, 6):
        b.base(h)
        b.commit(h)
    assert b.planned(commits_retained=1) == {base1, *logs, f"p1/{BaseFileName(FG_A, '0-0-0', t(4)).name}"}


@pytest.mark.parametrize("version", [6, 9])
def test_schedule_writes_a_plan_that_decodes_to_the_same_files(tmp_path: Path, version: int) -> None:
    b = Builder(tmp_path, version=version)
    files = _cow_updates(b, range(1, 6))
    instant = schedule_clean(b.table, CleanSettings(commits_retained=2))
    assert instant is not None
    timeline = b.table.reload().timeline
    requested = timeline.get(instant, Action.CLEAN)
    plan = decode_cleaner_plan(timeline.read_bytes(requested), path="requested")
    assert set(plan.keys) == {files[1], files[2]}
    assert plan.version == 2
    assert plan.policy == "KEEP_LATEST_COMMITS"
    assert plan.earliest_instant_to_retain is not None
    assert (plan.earliest_instant_to_retain.timestamp, plan.earliest_instant_to_retain.action) == (t(4), "commit")
    assert plan.last_completed_commit == t(5)
    assert all(f.file_path.endswith(f.key) for infos in plan.files.values() for f in infos)
    assert decode_cleaner_plan(encode_cleaner_plan(plan)) == plan
    assert schedule_clean(b.table, CleanSettings(commits_retained=5)) is None  # nothing to delete, nothing written
