"""Log compaction (``logcompaction``): a slice's log blocks merged into one new log file whose blocks
carry COMPACTED_BLOCK_TIMES; readers skip the blocks it replaces, so every query (ours, hudi-rs, a
later compaction) still equals the model, and no record is counted twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from hudi_framework.layout.naming import LogFileName
from hudi_framework.log.blocks import DataBlock, DeleteBlock, HeaderKey
from hudi_framework.log.reader import read_log_file
from hudi_framework.services.compaction_plan import decode_compaction_plan
from hudi_framework.timeline.instant import Action, State
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.log_compactor import (
    LOG_COMPACTION_EXECUTOR,
    execute_log_compaction,
    schedule_log_compaction,
)
from tests.acceptance.engines import WriteEngine
from tests.acceptance.layouts import KeyGen, Layout
from tests.acceptance.scenario import Scenario

OPTIONS = {"hoodie.parquet.small.file.limit": "0"}


def _rounds(sc: Scenario, n: int) -> None:
    for i in range(n):
        if i % 3 == 2:
            sc.write_delete(6)
        else:
            sc.write_upsert(updates=30, stale=3, inserts=0, duplicates=2, deletes=4)


@pytest.mark.parametrize("version", [9, 6])
def test_log_compaction_equals_the_model_and_compaction_after_it_too(
    version: int, engine: WriteEngine, tmp_path: Path
) -> None:
    sc = Scenario(
        engine,
        tmp_path / "t",
        Layout(KeyGen.SIMPLE, True),
        version=version,
        table_type="MERGE_ON_READ",
        options=OPTIONS,
        seed=11 + version,
    )
    sc.write_inserts(150, WriteOperation.BULK_INSERT)
    _rounds(sc, 8)
    table = sc.table
    logs_before = {s.file_group_id: list(s.log_files) for s in table.latest_file_slices()}

    planned = schedule_log_compaction(table, blocks_threshold=3)
    assert planned is not None
    timeline = table.reload().timeline
    requested = timeline.get(planned, Action.LOG_COMPACTION)
    assert requested.state is State.REQUESTED
    plan = decode_compaction_plan(table.storage.read(timeline.file_key(requested, State.REQUESTED)))
    assert plan.compactor_class_name == LOG_COMPACTION_EXECUTOR
    assert plan.preserve_hoodie_metadata
    assert plan.operations
    sc.checker().check_latest()  # a pending log compaction changes no query

    result = execute_log_compaction(table, planned, sc.settings)
    assert result.instant.action is Action.DELTA_COMMIT
    assert result.instant.requested_time == planned
    metadata = table.reload().timeline.read_commit_metadata(result.instant)
    assert metadata.operation_type == "LOG_COMPACT"
    sc.record_compaction(result.instant)

    compacted_groups = {op.file_group for op in plan.operations}
    for file_slice in table.latest_file_slices():
        if file_slice.file_group_id not in compacted_groups:
            continue
        old = logs_before[file_slice.file_group_id]
        new = [k for log, k in zip(file_slice.log_files, file_slice.log_file_keys, strict=True) if log not in old]
        assert len(new) == 1, "one new compacted log file per slice"
        name = LogFileName.parse(new[0].rsplit("/", 1)[-1])
        assert name.instant_time == (planned if version >= 8 else file_slice.base_instant_time)
        blocks = list(read_log_file(table.storage, new[0]))
        assert blocks
        assert all(isinstance(b, DataBlock | DeleteBlock) for b in blocks)
        op = next(o for o in plan.operations if o.file_group == file_slice.file_group_id)
        merged = blocks[0].header[HeaderKey.COMPACTED_BLOCK_TIMES].split(",")
        assert merged == sorted(merged)
        assert len(merged) >= 3
        assert {b.header[HeaderKey.COMPACTED_BLOCK_TIMES] for b in blocks} == {",".join(merged)}
        assert all(b.instant_time == planned for b in blocks)
        assert len(op.delta_file_names) >= 3
    # Our reader, hudi-rs and the model at every instant (the log compaction's one included):
    # replaced blocks are skipped, so no record is counted twice.
    sc.checker().check_all(incremental_hudi_rs=False)

    sc.write_upsert(updates=20, stale=0, inserts=5, duplicates=0, deletes=3)
    assert sc.compact() is not None
    sc.checker().check_latest()


def test_nothing_to_log_compact_below_the_threshold(engine: WriteEngine, tmp_path: Path) -> None:
    sc = Scenario(
        engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True), table_type="MERGE_ON_READ", options=OPTIONS, seed=3
    )
    sc.write_inserts(60, WriteOperation.BULK_INSERT)
    _rounds(sc, 2)
    before = sorted(p.name for p in (sc.path / ".hoodie" / "timeline").iterdir())
    assert schedule_log_compaction(sc.table, blocks_threshold=50) is None
    assert sorted(p.name for p in (sc.path / ".hoodie" / "timeline").iterdir()) == before


def test_inline_log_compaction_after_writes(tmp_path: Path) -> None:
    """``hoodie.log.compaction.inline``: after each write, slices with at least the threshold of
    applied log blocks are log-compacted; the table always reads as the writes say (ours and hudi-rs)."""
    import hudi
    import pyarrow as pa

    from hudi_framework.config.settings import HudiSettings
    from hudi_framework.read.reader import read_table
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.table.table_config import new_table_config
    from hudi_framework.write.client import WriteClient

    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], ordering_fields=["ts"]
    )
    table = HudiTable.create(str(tmp_path / "t"), config)
    settings = HudiSettings.from_hoodie_options(
        {"hoodie.log.compaction.inline": "true", "hoodie.log.compaction.blocks.threshold": "3"}, env=False
    )
    client = WriteClient(table, settings)
    client.insert(pa.Table.from_pylist([{"id": f"k{i}", "ts": 0, "v": 0} for i in range(20)]))
    model = {f"k{i}": (0, 0) for i in range(20)}
    for ts in range(1, 8):
        rows = [{"id": f"k{i}", "ts": ts, "v": ts * 10 + i} for i in range(ts, 20, 3)]
        client.upsert(pa.Table.from_pylist(rows))
        model.update({r["id"]: (r["ts"], r["v"]) for r in rows})
        if ts % 3 == 0:
            gone = [f"k{ts}"]
            client.delete(pa.Table.from_pylist([{"id": k, "ts": ts, "v": 0} for k in gone]))
            for k in gone:
                model.pop(k, None)
        ours = read_table(HudiTable.open(str(tmp_path / "t")))
        assert {r["id"]: (r["ts"], r["v"]) for r in ours.to_pylist()} == model
    timeline = HudiTable.open(str(tmp_path / "t")).timeline
    done = [
        i
        for i in timeline.completed()
        if i.action is Action.DELTA_COMMIT and timeline.read_commit_metadata(i).operation_type == "LOG_COMPACT"
    ]
    assert len(done) >= 2, "log compactions ran inline"
    assert not timeline.pending()
    theirs = pa.Table.from_batches(
        hudi.HudiTableBuilder.from_base_uri(str(tmp_path / "t")).build().read(hudi.HudiReadOptions())
    )
    assert {r["id"]: (r["ts"], r["v"]) for r in theirs.to_pylist()} == model


def test_hudi_rs_skips_the_blocks_a_compacted_block_replaces(tmp_path: Path) -> None:
    """hudi-rs 0.5.0 honours COMPACTED_BLOCK_TIMES as we do. The compacted log file is rewritten
    without key ``x``'s update (so the merge of its blocks and the compacted block differ): both
    readers read ``x`` from the base file, neither from the replaced block. (With the built-in
    mergers a compacted block holds exactly the merge of what it replaces, so applying the replaced
    blocks too would give the same rows: only a rewrite like this one tells.)"""
    import hudi
    import pyarrow as pa

    from hudi_framework.log.writer import append_log_file
    from hudi_framework.read.reader import read_table
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.table.table_config import new_table_config
    from hudi_framework.write.client import WriteClient

    base = str(tmp_path / "t")
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], ordering_fields=["ts"]
    )
    table = HudiTable.create(base, config)
    client = WriteClient(table)
    client.insert(pa.Table.from_pylist([{"id": k, "ts": 0} for k in ("a", "x")]))
    client.upsert(pa.Table.from_pylist([{"id": "x", "ts": 1}]))
    client.upsert(pa.Table.from_pylist([{"id": "a", "ts": 2}]))
    planned = schedule_log_compaction(table, blocks_threshold=2)
    assert planned is not None
    result = execute_log_compaction(table, planned)
    (stat,) = result.stats
    (data,) = list(read_log_file(table.storage, stat.path or ""))
    assert isinstance(data, DataBlock)
    kept = data.records.filter(pa.compute.equal(data.records["id"], "a"))
    rewritten = DataBlock(kept, data.header, data.footer, data.block_type, compression=data.compression)
    table.storage.delete(stat.path or "")
    append_log_file(table.storage, stat.path or "", [rewritten])

    ours = read_table(HudiTable.open(base))
    assert sorted(zip(ours["id"].to_pylist(), ours["ts"].to_pylist(), strict=True)) == [("a", 2), ("x", 0)]
    theirs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(base).build().read(hudi.HudiReadOptions()))
    assert sorted(zip(theirs["id"].to_pylist(), theirs["ts"].to_pylist(), strict=True)) == [("a", 2), ("x", 0)]
