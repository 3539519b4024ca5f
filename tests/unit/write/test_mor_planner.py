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


def test_an_index_that_finds_keys_in_log_files_takes_inserts_into_log_files() -> None:
    # Sizes as Parquet: a-0 100 + 0.35 x 10 x 2 logs = 107; b-0 9000 + 0.35 x 3 x 1000 = 10050 (full);
    # c-0 is under a pending compaction; d-0 has log files and takes inserts all the same.
    slices = [_slice("a-0", 100, logs=2), _slice("b-0", 9000), _slice("c-0", 50), _slice("d-0", 300, logs=1)]
    big = [LogFile(LogFileName("b-0", T0, v, "0-0-0"), 1000) for v in (1, 2, 3)]
    slices[1] = FileSlice.create(FileGroupId("p", "b-0"), T0, slices[1].base_file, big)
    pending = FileSlice.create(FileGroupId("p", "c-0"), PENDING, None, [])
    writer = [slices[0], slices[1], pending, slices[3]]
    summary = _summary([("P", "p", "", 1500), ("U", "p", "d-0", 1), ("I", "p", "", 1499)])
    plan = plan_targets(
        WriteOperation.UPSERT, summary, slices, sizing=SIZING, record_size=10, merge_on_read=True,
        writer_slices=writer, log_inserts=True,
    )  # fmt: skip
    # Under the max file size (10,000), smallest first: a-0 takes (10000 - 107) // 10 = 989, d-0
    # (10000 - 303) // 10 = 969 of the rest: 510; both appended to, none rewritten.
    assert [(b.file_id, b.capacity, b.is_new) for b in plan.buckets] == [("a-0", 989, False), ("d-0", 510, False)]
    assert _targets(plan) == {"d-0": True, "a-0": True}
    assert plan.log_inserts
    # The same write with an index that cannot index log files: a-0 and d-0 have logs, b-0 is past the
    # small file limit, c-0 is pending: new file groups (1,000 records each), and no inserts into logs.
    plain = plan_targets(
        WriteOperation.UPSERT, summary, slices, sizing=SIZING, record_size=10, merge_on_read=True, writer_slices=writer
    )
    assert [(b.capacity, b.is_new) for b in plain.buckets] == [(1000, True), (499, True)]
    assert not plain.log_inserts


def test_routing_marks_the_inserts_of_a_plan_with_log_inserts() -> None:
    from hudi_framework.write.planner import INSERTED, apply_routing, route_rows

    slices = [_slice("a-0", 100)]
    rows = pa.table(
        {
            "_hoodie_record_key": ["k1", "k2", "k3"],
            "_hoodie_partition_path": ["p", "p", "p"],
            "_hoodie_location_partition": [None, "p", None],
            "_hoodie_location_file_id": [None, "a-0", None],
            "_hoodie_location_instant": [None, T0, None],
        }
    )
    summary = _summary([("P", "p", "", 3), ("U", "p", "a-0", 1), ("I", "p", "", 2)])
    plan = plan_targets(
        WriteOperation.UPSERT, summary, slices, sizing=SIZING, record_size=10, merge_on_read=True, log_inserts=True
    )
    routed = apply_routing(rows, route_rows(rows, plan))
    assert routed.column(INSERTED).to_pylist() == [True, False, True]
    assert set(routed.column("_hoodie_target").to_pylist()) == {0}


def test_the_log_to_parquet_ratio_option_sizes_slices_with_log_files() -> None:
    from hudi_framework.config import HudiSettings

    settings = HudiSettings.from_hoodie_options({"hoodie.logfile.to.parquet.compression.ratio": "1.0"}, env=False)
    assert settings.write.log_to_parquet_compression_ratio == 1.0
    slices = [_slice("a-0", 100, logs=2)]  # two 10-byte log files
    summary = _summary([("P", "p", "", 5000), ("I", "p", "", 5000)])
    for ratio, room in ((0.35, (10_000 - 107) // 10), (1.0, (10_000 - 120) // 10)):
        sizing = SizingOptions(1000, 10_000, 10, log_to_parquet_ratio=ratio)
        plan = plan_targets(
            WriteOperation.UPSERT, summary, slices, sizing=sizing, record_size=10, merge_on_read=True, log_inserts=True
        )
        assert plan.buckets[0].file_id == "a-0"
        assert plan.buckets[0].capacity == room
