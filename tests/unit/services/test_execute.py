"""Executing compactions: same snapshot before and after (hudi-rs and our reader), new base files, commit
metadata as Apache Hudi writes it, and a failed run leaves the table as it was."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import CompactionExecutionError, CompactionPlanError
from hudi_framework.read.merged_task import MergedReadTask
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.compactor import execute_compaction, merge_slice
from hudi_framework.write.markers import IOType, create_marker
from hudi_framework.write.service_host import ServiceHost
from hudi_services_compaction import CompactionService
from tests.unit.services.conftest import (
    V6_WITH_LOGS,
    V9_WITH_LOGS,
    CopyTable,
    canonical,
    rs_snapshot,
    without_metadata_table,
)


def _schedule(base: Path) -> tuple[HudiTable, str]:
    table = HudiTable.open(str(base))
    instant = CompactionService().schedule(table)
    assert instant is not None
    return table, instant


def _data_files(base: Path) -> set[str]:
    return {str(p.relative_to(base)) for p in base.rglob("*") if p.is_file() and ".hoodie" not in p.parts}


@pytest.mark.parametrize("fixture_id", [*V6_WITH_LOGS, V9_WITH_LOGS])
def test_compaction_changes_no_query_result(copy_table: CopyTable, fixture_id: str) -> None:
    base = without_metadata_table(copy_table(fixture_id))
    rs_before = rs_snapshot(base)
    ours_before = canonical(read_table(HudiTable.open(str(base))))
    table, instant = _schedule(base)
    assert canonical(read_table(table)) == ours_before  # a pending plan changes nothing either
    result = CompactionService().run(table, instant)
    assert rs_snapshot(base) == rs_before
    assert canonical(read_table(table.reload())) == ours_before
    # Every planned file group now has a base file of the compaction instant and no log files.
    latest = {s.file_group_id: s for s in table.latest_file_slices()}
    for op in result.plan.operations:
        new = latest[op.file_group]
        assert new.base_file is not None
        assert new.base_file.instant_time == instant
        assert not new.has_log_files
        rows = pq.read_table(base / new.base_file_key)  # type: ignore[operator]
        if "_hoodie_file_name" in rows.column_names:
            assert set(rows.column("_hoodie_file_name").to_pylist()) <= {new.base_file_name}


def test_commit_metadata_is_a_compaction(copy_table: CopyTable) -> None:
    base = copy_table(V9_WITH_LOGS)
    table, instant = _schedule(base)
    result = CompactionService().run(table, instant)
    done = table.reload().timeline.get(instant)
    assert done.action is Action.COMMIT
    assert done.state is State.COMPLETED
    assert result.instant == done
    md = table.timeline.read_commit_metadata(done)
    assert md.compacted is True
    assert md.operation_type == "COMPACT"
    assert md.writer_schema is not None
    by_file = {s.file_id: s for s in md.write_stats()}
    for op in result.plan.operations:
        stat = by_file[op.file_id]
        assert stat.prev_commit == op.base_instant_time
        assert stat.prev_base_file == op.data_file_name
        assert stat.total_log_files_compacted == len(op.delta_file_names)
        assert stat.total_log_size_compacted == op.metric("TOTAL_LOG_FILES_SIZE")
        assert stat.path is not None
        assert (base / stat.path).stat().st_size == stat.file_size_in_bytes
        rows = pq.read_metadata(base / stat.path).num_rows
        assert stat.num_writes == rows
        assert stat.total_log_records == 1
        assert stat.total_log_blocks == 1
        assert stat.total_corrupt_log_block == 0
        # The fixture's logs update or delete stored keys: the counts add up to the rows written.
        base_rows = pq.read_metadata(base / op.partition_path / (op.data_file_name or "")).num_rows
        assert stat.num_inserts == 0
        assert stat.num_writes == base_rows - (stat.num_deletes or 0)
        assert (stat.num_update_writes or 0) + (stat.num_deletes or 0) == stat.total_updated_records_compacted
        assert stat.num_updates == 0
    assert sorted((s.num_update_writes, s.num_deletes) for s in by_file.values()) == [(0, 1), (1, 0)]
    # Markers are gone after the commit.
    assert not [p for p in (base / ".hoodie" / ".temp").rglob("*") if p.is_file()]


def test_v6_commit_is_json_without_v8_fields(copy_table: CopyTable) -> None:
    base = copy_table(V6_WITH_LOGS[0])
    table, instant = _schedule(base)
    CompactionService().run(table, instant)
    text = (base / ".hoodie" / f"{instant}.commit").read_text()
    assert '"compacted" : true' in text
    assert '"operationType" : "COMPACT"' in text
    assert "prevBaseFile" not in text
    assert "numUpdates" not in text
    assert (base / ".hoodie" / f"{instant}.compaction.inflight").exists()


def _failing_merge(after: int) -> object:
    calls: list[int] = []

    def merge(storage: StorageBackend, task: MergedReadTask) -> Iterable[pa.RecordBatch]:
        calls.append(1)
        if len(calls) > after:
            raise OSError("disk full")
        return merge_slice(storage, task)

    return merge


@pytest.mark.parametrize(("fixture_id", "fail_after"), [(V6_WITH_LOGS[3], 0), (V9_WITH_LOGS, 1)])
def test_failed_run_is_rolled_back_and_can_run_again(copy_table: CopyTable, fixture_id: str, fail_after: int) -> None:
    base = without_metadata_table(copy_table(fixture_id))
    files_before = _data_files(base)
    rs_before = rs_snapshot(base)
    table, instant = _schedule(base)
    failing = ServiceHost(table, merge=_failing_merge(after=fail_after))  # type: ignore[arg-type]
    with pytest.raises(CompactionExecutionError, match="disk full") as info:
        CompactionService().run(failing, instant)
    assert info.value.instant == instant
    # Nothing the attempt wrote is left, the plan is requested again, readers see the old table.
    assert _data_files(base) == files_before
    pending = table.reload().timeline.get(instant, Action.COMPACTION)
    assert pending.state is State.REQUESTED
    assert not [p for p in (base / ".hoodie" / ".temp").rglob("*") if p.is_file()]
    assert rs_snapshot(base) == rs_before
    CompactionService().run(table, instant)
    assert rs_snapshot(base) == rs_before


def test_crashed_inflight_run_is_rolled_back_first(copy_table: CopyTable) -> None:
    base = copy_table(V6_WITH_LOGS[1])
    table, instant = _schedule(base)
    # A crashed attempt: inflight file, a marker and a partial base file.
    (base / ".hoodie" / f"{instant}.compaction.inflight").write_bytes(b"")
    op_file = f"0712b9f9-d2d5-4cae-bcf4-8fd7146af503-0_9-9-9_{instant}.parquet"
    (base / op_file).write_bytes(b"partial")
    create_marker(table.storage, instant, "", op_file, IOType.MERGE)
    result = execute_compaction(table, instant, HudiSettings())
    assert not (base / op_file).exists()
    assert result.instant.state is State.COMPLETED


def test_only_pending_compactions_run(copy_table: CopyTable) -> None:
    table, instant = _schedule(copy_table(V6_WITH_LOGS[0]))
    service = CompactionService()
    service.execute(table, instant)
    with pytest.raises(CompactionPlanError, match="already completed"):
        service.execute(table, instant)
    with pytest.raises(CompactionPlanError, match="no such compaction"):
        service.execute(table, "29990101000000000")


def test_compaction_carries_the_base_bloom_filter(tmp_path: Path) -> None:
    from hudi_framework.contracts.indexing.footer import read_key_footer
    from hudi_framework.table.table_config import new_table_config
    from hudi_framework.write.client import WriteClient

    config = new_table_config(
        "t", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["p"], ordering_fields=["ts"]
    )
    table = HudiTable.create(str(tmp_path), config)
    settings = HudiSettings.from_hoodie_options({"hoodie.parquet.small.file.limit": "0"}, env=False)

    def batch(ids: Iterable[int], ts: int, deleted: bool = False) -> pa.Table:
        keys = [f"k{i:04d}" for i in ids]
        return pa.table({
            "id": keys, "p": ["a"] * len(keys), "ts": pa.array([ts] * len(keys), pa.int64()),
            "_hoodie_is_deleted": [deleted] * len(keys),
        })  # fmt: skip

    WriteClient(table, settings).bulk_insert(batch(range(100), 1))
    WriteClient(table.reload(), settings).upsert(batch(range(0, 100, 5), 2))  # updates: to the log
    WriteClient(table.reload(), settings).upsert(batch(range(3), 3, deleted=True))  # 3 deletes: to the log
    [logged] = table.reload().latest_file_slices()
    assert logged.has_log_files
    table, instant = _schedule(tmp_path)
    CompactionService().run(table, instant)
    [compacted] = table.reload().latest_file_slices()
    parquet = pq.ParquetFile(tmp_path / compacted.base_file_key)  # type: ignore[operator]
    footer = read_key_footer(parquet.metadata)
    assert parquet.metadata.num_rows == 97
    assert footer.bloom is not None
    assert footer.bloom.keys_added == 100  # carried over (3 stale keys of 97), not rebuilt
    assert footer.bloom.might_contain([f"k{i:04d}" for i in range(3, 100)]).all()
    # Updating every live key adds no row: the index finds each one through the carried filter.
    WriteClient(table.reload(), settings).upsert(batch(range(3, 100), 4))
    assert read_table(table.reload()).num_rows == 97
