"""Merge-on-read planning: which file groups are appended to, which small files are rewritten."""

from __future__ import annotations

import pyarrow as pa

from hudi_framework.layout.file_group import BaseFile, FileGroupId, FileSlice, LogFile
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.planner import SUMMARY_SCHEMA, plan_targets
from hudi_framework.write.sizing import SizingOptions

SIZING = SizingOptions(small_file_limit=1000, max_file_size=10_000, record_size_estimate=10)
T0, T1, PENDING = "20240101000000000", "20240101000000001", "20240101000000005"


def _slice(fid: str, size: int, *, logs: int = 0, partition: str = "p", instant: str = T0) -> FileSlice:
    group = FileGroupId(partition, fid)
    base = BaseFile(BaseFileName(fid, "0-0-0", instant, "parquet"), size)
    log_files = [LogFile(LogFileName(fid, instant, v, "0-0-0"), 10) for v in range(1, logs + 1)]
    return FileSlice.create(group, instant, base, log_files)


def _summary(rows: list[tuple[str, str, str, int]]) -> pa.Table:
    kinds, parts, fids, counts = zip(*rows, strict=True) if rows else ((), (), (), ())
    return pa.table({"kind": kinds, "partition": parts, "file_id": fids, "rows": counts}, schema=SUMMARY_SCHEMA)


def _targets(plan: object) -> dict[str, bool]:
    return {t.file_id: t.append for t in plan.targets}  # type: ignore[attr-defined]


def test_updates_are_appended_unless_the_file_group_is_a_small_file_taking_inserts() -> None:
    slices = [_slice("a-0", 100), _slice("b-0", 500), _slice("c-0", 50, logs=1), _slice("d-0", 5000)]
    summary = _summary([("P", "p", "", 6), ("U", "p", "a-0", 1), ("U", "p", "b-0", 1), ("U", "p", "c-0", 1),
                        ("U", "p", "d-0", 1), ("I", "p", "", 2)])  # fmt: skip
    plan = plan_targets(WriteOperation.UPSERT, summary, slices, sizing=SIZING, record_size=10, merge_on_read=True)
    # a-0: the smallest log-free small file (one candidate by default) takes the inserts and is
    # rewritten; c-0 has log files, so it is no candidate; b-0 is past the candidate limit.
    assert _targets(plan) == {"a-0": False, "b-0": True, "c-0": True, "d-0": True}
    assert [b.file_id for b in plan.buckets] == ["a-0"]
    target = {t.file_id: t for t in plan.targets}["c-0"]
    assert target.slice_instant == T0
    assert target.slice_log_files == (f".c-0_{T0}.log.1_0-0-0",)
    assert target.slice_base_file == f"c-0_0-0-0_{T0}.parquet"


def test_without_inserts_every_existing_file_group_is_appended_to() -> None:
    slices = [_slice("a-0", 100)]
    summary = _summary([("P", "p", "", 1), ("U", "p", "a-0", 1)])
    plan = plan_targets(WriteOperation.UPSERT, summary, slices, sizing=SIZING, record_size=10, merge_on_read=True)
    assert _targets(plan) == {"a-0": True}
    cow = plan_targets(WriteOperation.UPSERT, summary, slices, sizing=SIZING, record_size=10)
    assert _targets(cow) == {"a-0": False}


def test_the_candidate_limit_and_pending_compactions() -> None:
    slices = [_slice("a-0", 100), _slice("b-0", 200), _slice("c-0", 300)]
    # c-0 is under a pending compaction: writers append to the compaction's new slice.
    pending = FileSlice.create(FileGroupId("p", "c-0"), PENDING, None, [])
    writer = [slices[0], slices[1], pending]
    summary = _summary([("P", "p", "", 4), ("U", "p", "c-0", 1), ("I", "p", "", 3)])
    sizing = SizingOptions(1000, 10_000, 10, small_file_group_candidates_limit=5)
    plan = plan_targets(
        WriteOperation.UPSERT, summary, slices, sizing=sizing, record_size=10, merge_on_read=True, writer_slices=writer
    )
    targets = {t.file_id: t for t in plan.targets}
    assert targets["c-0"].append
    assert targets["c-0"].slice_instant == PENDING
    assert targets["c-0"].slice_base_file == ""
    assert [b.file_id for b in plan.buckets] == ["a-0"]  # a-0 has room for all three
    assert not targets["a-0"].append
