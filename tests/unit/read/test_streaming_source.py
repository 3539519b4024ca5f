"""The Structured Streaming source's offsets and micro-batches, run in this process (no Spark session):
offsets are completion times (v8+) or requested times bounded by pending writes (v6), each window
reads the records changed in it once, and the options of Apache Hudi's source act."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.errors import InvalidConfigValueError
from hudi_framework.read.schema import read_schema
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.datasource import _spark_schema
from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.stream_read import INIT_OFFSET, HudiStreamReader, latest_offset
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient


def _rows(ids: list[str], ts: int) -> pa.Table:
    n = len(ids)
    return pa.table({"id": ids, "ts": pa.array([ts] * n, pa.int64()), "v": [float(ts)] * n})


def _table(path: Path, *, version: int = 8, table_type: str = "COPY_ON_WRITE") -> WriteClient:
    config = new_table_config(
        "t", table_type=table_type, version=version, record_key_fields=["id"], ordering_fields=["ts"]
    )
    return WriteClient(HudiTable.create(str(path), config))


def _reader(path: Path, **options: str) -> HudiStreamReader:
    parsed = SourceOptions.parse({"path": str(path), **options}, read=True)
    schema = _spark_schema(read_schema(HudiTable.open(str(path))))
    return HudiStreamReader.build(parsed, schema, None)


def _micro_batch(reader: HudiStreamReader, start: dict[str, str]) -> tuple[dict[str, str], list[tuple[Any, ...]]]:
    """One micro-batch as Spark runs it: the latest offset, then each partition read."""
    end = reader.latestOffset(start, None)  # type: ignore[arg-type]
    rows = [
        (r["id"], r["ts"])
        for part in reader.partitions(start, end)
        for batch in reader.read(part)
        for r in pa.Table.from_batches([batch]).to_pylist()
    ]
    return end, sorted(rows)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_each_micro_batch_reads_the_changes_since_the_last_offset_once(tmp_path: Path, table_type: str) -> None:
    client = _table(tmp_path, table_type=table_type)
    client.upsert(_rows(["a", "b"], 1))
    reader = _reader(tmp_path)
    start = reader.initialOffset()
    assert start == {"commitTime": INIT_OFFSET}
    start, rows = _micro_batch(reader, start)
    assert rows == [("a", 1), ("b", 1)]
    assert start == {"commitTime": client.table.reload().timeline.last_completion_time()}
    assert _micro_batch(reader, start) == (start, [])  # nothing new: the offset stays
    client.upsert(_rows(["b", "c"], 2))
    client.upsert(_rows(["c"], 3))
    # A restart (a new reader, the offset from the query's checkpoint) goes on from there.
    start, rows = _micro_batch(_reader(tmp_path), start)
    assert rows == [("b", 2), ("c", 3)]  # each changed record once, in its state at the window's end


def test_start_offset_latest_skips_the_history_and_available_now_stops_at_the_start_time(tmp_path: Path) -> None:
    client = _table(tmp_path)
    client.upsert(_rows(["a"], 1))
    reader = _reader(tmp_path, **{"hoodie.datasource.streaming.startOffset": "latest"})
    start = reader.initialOffset()
    reader.prepareForTriggerAvailableNow()
    client.upsert(_rows(["b"], 2))
    assert _micro_batch(reader, start) == (start, [])  # a was before the start, b after the target
    assert _micro_batch(_reader(tmp_path), start)[1] == [("b", 2)]


def test_start_offset_at_a_time_is_exclusive(tmp_path: Path) -> None:
    client = _table(tmp_path)
    client.upsert(_rows(["a"], 1))
    first = client.table.reload().timeline.last_completion_time()
    assert first is not None
    client.upsert(_rows(["b"], 2))
    reader = _reader(tmp_path, **{"hoodie.datasource.streaming.startOffset": first})
    start = reader.initialOffset()
    assert start == {"commitTime": first}
    assert _micro_batch(reader, start)[1] == [("b", 2)]


def test_v6_offsets_are_requested_times_and_stop_before_a_pending_write(tmp_path: Path) -> None:
    client = _table(tmp_path, version=6)
    done = client.upsert(_rows(["a"], 1)).instant.requested_time
    later = client.upsert(_rows(["b"], 2)).instant.requested_time
    assert latest_offset(HudiTable.open(str(tmp_path))) == later
    # A write requested between the two is still pending (another writer): a requested-time window
    # past it would skip its records once it completes.
    pending = str(int(done) + 1)
    assert done < pending < later
    (tmp_path / ".hoodie" / f"{pending}.commit.requested").write_bytes(b"")
    assert latest_offset(HudiTable.open(str(tmp_path))) == done


def test_an_empty_table_has_the_initial_offset(tmp_path: Path) -> None:
    _table(tmp_path)
    assert latest_offset(HudiTable.open(str(tmp_path))) == INIT_OFFSET


@pytest.mark.parametrize(
    "options",
    [
        {"hoodie.datasource.read.begin.instanttime": "001"},
        {"as.of.instant": "001"},
        {"hoodie.datasource.query.type": "snapshot"},
        {"hoodie.datasource.streaming.startOffset": ""},
        {"hoodie.datasource.write.streaming.retry.count": "2"},
    ],
    ids=["begin", "as-of", "snapshot", "empty-start", "sink-option"],
)
def test_options_a_stream_cannot_honour_are_refused_by_name(tmp_path: Path, options: dict[str, str]) -> None:
    _table(tmp_path).upsert(_rows(["a"], 1))
    with pytest.raises(InvalidConfigValueError) as caught:
        _reader(tmp_path, **options)
    assert next(iter(options)).lower() in str(caught.value).lower()
