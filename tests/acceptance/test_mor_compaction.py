"""Merge-on-read tables through interleaved upserts, deletes, inline and async compactions, on every
engine: at every instant (compactions included) hudi-rs, our reader and the model agree on the
snapshot and time travel, our reader and the model on incremental windows, so compaction changes no
query result."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from hudi_framework import open_table_service, table_service_host
from hudi_framework.layout.naming import LogFileName
from hudi_framework.timeline.instant import Action
from hudi_framework.vocabulary import WriteOperation
from tests.acceptance.engines import WriteEngine
from tests.acceptance.layouts import KeyGen, Layout
from tests.acceptance.scenario import Scenario

INLINE = {
    "hoodie.compact.inline": "true",
    "hoodie.compact.inline.max.delta.commits": "3",
    # No small files: inserts open new file groups, so updates always go to log files (with small
    # files, a file group taking inserts is rewritten with its updates instead, as Apache Hudi does).
    "hoodie.parquet.small.file.limit": "0",
}


@pytest.mark.parametrize(
    ("layout", "version"),
    [
        pytest.param(Layout(KeyGen.SIMPLE, True), 9, id="simple-v9"),
        pytest.param(Layout(KeyGen.COMPLEX, True), 8, id="complex-v8"),
        pytest.param(Layout(KeyGen.NON_PARTITION, False), 6, id="nonpart-v6"),
    ],
)
def test_interleaved_writes_with_inline_and_async_compaction(
    layout: Layout, version: int, engine: WriteEngine, tmp_path: Path
) -> None:
    sc = Scenario(
        engine,
        tmp_path / "t",
        layout,
        version=version,
        table_type="MERGE_ON_READ",
        options=INLINE,
        seed=zlib.crc32(f"{layout}-{version}".encode()),
    )
    sc.write_inserts(120, WriteOperation.BULK_INSERT)
    sc.write_upsert(updates=30, stale=0, inserts=10, duplicates=4, deletes=6)
    sc.write_delete(8)  # the third delta commit: compaction runs inline after it
    inline = [i for i in sc.instants if i.action is Action.COMMIT]
    assert len(inline) == 1

    sc.write_upsert(updates=25, stale=0, inserts=5, duplicates=2, deletes=4)
    assert sc.compact() is not None  # async: scheduled and executed as its own job
    sc.write_upsert(updates=20, stale=0, inserts=5, duplicates=2, deletes=4)
    sc.write(WriteOperation.UPSERT)

    table = sc.table
    compactions = [i for i in table.timeline.commits_timeline() if i.action is Action.COMMIT]
    assert len(compactions) == 2
    for instant in compactions:
        metadata = table.timeline.read_commit_metadata(instant)
        assert metadata.compacted
        assert metadata.operation_type == "COMPACT"
    # The latest slices after the last compaction still carry the later writes' log files.
    assert any(s.has_log_files for s in table.latest_file_slices())
    # hudi-rs 0.5.0 answers a merge-on-read incremental window from whole file slices: it returns
    # records of earlier delta commits whose file group the window touched. Windows are checked
    # against the model (Apache Hudi's semantics) instead; snapshots and time travel against both.
    sc.checker().check_all(incremental_hudi_rs=False)


def test_writes_and_reads_while_a_compaction_is_pending(engine: WriteEngine, tmp_path: Path) -> None:
    """Writers append to the slice the pending compaction opens; readers merge across it (the old
    slice's base and logs with the new slice's logs) until the compaction completes."""
    options = {k: v for k, v in INLINE.items() if k != "hoodie.compact.inline"}
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True), table_type="MERGE_ON_READ", options=options)
    sc.write_inserts(80, WriteOperation.BULK_INSERT)
    sc.write_upsert(updates=20, stale=0, inserts=0, duplicates=2, deletes=4)
    table = sc.table
    service, host = open_table_service(table, sc.settings, "compaction")
    planned = service.schedule(host)
    assert planned is not None

    sc.write_upsert(updates=20, stale=0, inserts=0, duplicates=2, deletes=4)
    table = sc.table
    new_logs = [
        LogFileName.parse(name) for s in table.file_system_view().latest_file_slices() for name in s.log_file_names
    ]
    # The merged view holds the logs from before the plan and the new ones (v9: named by their own
    # delta commit, after the compaction's instant).
    assert {log.instant_time for log in new_logs} == {sc.instants[1].requested_time, sc.instants[2].requested_time}
    assert sc.instants[2].requested_time > planned
    sc.checker().check_all(incremental_hudi_rs=False)

    service.execute(table_service_host(table.reload(), sc.settings), planned)
    done = next(i for i in sc.table.timeline.commits_timeline() if i.requested_time == planned)
    sc.record_compaction(done)
    assert sc.instants[2] == done  # between the two upserts, by requested time
    sc.write_upsert(updates=10, stale=0, inserts=0, duplicates=0, deletes=2)
    # The compaction completed after a later delta commit, so completion-time windows no longer map
    # onto the model's steps; snapshots and time travel to every instant still must agree.
    checker = sc.checker()
    checker.check_timeline()
    checker.check_snapshots()
