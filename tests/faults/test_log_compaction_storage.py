"""Log rollover and log compaction on local disk and on S3 (moto): rolled-over appends and compacted
slices read as written (ours and hudi-rs), and a log compaction that fails part-way leaves the table
reading exactly as before, with none of its log files left."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import CompactionExecutionError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write import log_compactor
from hudi_framework.write.client import WriteClient
from hudi_framework.write.log_compactor import execute_log_compaction, schedule_log_compaction
from tests.faults.s3_faults import Place, expected, snapshot

SETTINGS = HudiSettings.from_hoodie_options({"hoodie.logfile.max.size": "1500"}, env=False)


def _rows(ids: range, ts: int) -> pa.Table:
    return pa.Table.from_pylist(
        [{"id": f"k{i:03d}", "city": "sf" if i % 2 else "ny", "ts": ts, "note": "x" * 40} for i in ids]
    )


def _table(place: Place) -> tuple[HudiTable, dict[str, tuple[str, str, int]]]:
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    client = WriteClient(table, SETTINGS)
    client.insert(_rows(range(60), 1))
    model = {f"k{i:03d}": (f"k{i:03d}", "sf" if i % 2 else "ny", 1) for i in range(60)}
    for ts, ids in [(2, range(0, 40)), (3, range(20, 60)), (4, range(10, 30))]:
        client.upsert(_rows(ids, ts))
        model.update({f"k{i:03d}": (f"k{i:03d}", "sf" if i % 2 else "ny", ts) for i in ids})
    client.delete(_rows(range(50, 55), 5))
    for i in range(50, 55):
        model.pop(f"k{i:03d}")
    return place.open(), model


def _data_files(table: HudiTable) -> set[str]:
    return {k for s in table.latest_file_slices() for k in s.log_file_keys}


def test_rolled_over_and_log_compacted_slices_read_as_written(place: Place) -> None:
    table, model = _table(place)
    want = expected(list(model.values()))
    assert snapshot(place.uri, place.endpoint, place.options) == want
    delta = table.timeline.read_commit_metadata(table.timeline.commits_timeline()[1])
    assert len(delta.write_stats()) > 2, "the upsert's appends rolled over"
    planned = schedule_log_compaction(table, blocks_threshold=3)
    assert planned is not None
    result = execute_log_compaction(table, planned, SETTINGS)
    assert result.stats
    assert snapshot(place.uri, place.endpoint, place.options) == want


def test_a_failed_log_compaction_leaves_the_table_as_it_was(place: Place, monkeypatch: pytest.MonkeyPatch) -> None:
    table, model = _table(place)
    want = expected(list(model.values()))
    files_before = _data_files(table)
    planned = schedule_log_compaction(table, blocks_threshold=3)
    assert planned is not None
    real: Callable[..., Any] = log_compactor.write_log_parts
    calls: list[int] = []

    def flaky(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise OSError("injected failure writing a compacted log file")
        return real(*args, **kwargs)

    monkeypatch.setattr(log_compactor, "write_log_parts", flaky)
    with pytest.raises(CompactionExecutionError, match="injected failure"):
        execute_log_compaction(table, planned, SETTINGS)
    table = place.open()
    assert table.timeline.get(planned, Action.LOG_COMPACTION).state is State.REQUESTED
    assert _data_files(table) == files_before, "the first slice's compacted log file was deleted"
    assert snapshot(place.uri, place.endpoint, place.options) == want

    monkeypatch.setattr(log_compactor, "write_log_parts", real)
    execute_log_compaction(table, planned, SETTINGS)  # the plan runs again
    assert snapshot(place.uri, place.endpoint, place.options) == want
