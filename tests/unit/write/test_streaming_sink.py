"""The Structured Streaming sink's commit, run in this process (no Spark session): a micro-batch is one
commit carrying Apache Hudi's sink checkpoint, a replayed batch id is a no-op, failures retry or skip
as the options say, and options the sink cannot honour are refused by name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType

from hudi_framework.errors import (
    InstantMetadataError,
    InvalidConfigValueError,
    SchemaMismatchError,
    UnsupportedOptionError,
)
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark import stream_write
from hudi_framework.spark.datasource import HudiDataSource
from hudi_framework.spark.options import SourceOptions
from hudi_framework.spark.stream_write import (
    SINK_CHECKPOINT_KEY,
    HudiStreamWriter,
    SinkOptions,
    committed_batch_id,
)
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

SCHEMA = StructType(
    [
        StructField("id", StringType()),
        StructField("city", StringType()),
        StructField("ts", LongType()),
        StructField("v", DoubleType()),
    ]
)
OPTS = {
    "hoodie.table.name": "t",
    "hoodie.datasource.write.recordkey.field": "id",
    "hoodie.datasource.write.partitionpath.field": "city",
    "hoodie.datasource.write.precombine.field": "ts",
}


def _writer(path: Path, **extra: str) -> HudiStreamWriter:
    return HudiStreamWriter.build(SourceOptions.parse({"path": str(path), **OPTS, **extra}), SCHEMA, False)


def _rows(ids: list[str], ts: int) -> pa.RecordBatch:
    n = len(ids)
    return pa.RecordBatch.from_pydict(
        {"id": ids, "city": ["sf"] * n, "ts": pa.array([ts] * n, pa.int64()), "v": [float(ts)] * n}
    )


def _batch(monkeypatch: pytest.MonkeyPatch, writer: HudiStreamWriter, batch_id: int, rows: pa.RecordBatch) -> None:
    """One micro-batch: a task stages ``rows`` (two tasks' worth), then the driver side commits."""
    monkeypatch.setattr(stream_write, "_task_batch_id", lambda: batch_id)
    messages: list[Any] = [writer.write(iter([rows])), writer.write(iter([]))]
    writer.commit(messages, batch_id)


def _table_rows(path: Path) -> list[tuple[Any, ...]]:
    rows = read_table(HudiTable.open(str(path)), columns=["id", "ts"]).to_pylist()
    return sorted((r["id"], r["ts"]) for r in rows)


def _checkpoints(path: Path) -> list[dict[str, str]]:
    timeline = HudiTable.open(str(path)).timeline
    extras = [timeline.read_commit_metadata(i).extra_metadata or {} for i in timeline.commits_timeline()]
    return [json.loads(e[SINK_CHECKPOINT_KEY]) for e in extras if SINK_CHECKPOINT_KEY in e]


def _staging(path: Path) -> list[Path]:
    temp = path / ".hoodie" / ".temp"
    return [p for p in temp.rglob("*") if p.is_file()] if temp.exists() else []


def test_each_batch_is_one_commit_and_a_replayed_batch_id_is_a_no_op(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t"
    writer = _writer(path)
    _batch(monkeypatch, writer, 0, _rows(["a", "b"], 1))
    _batch(monkeypatch, writer, 1, _rows(["b", "c"], 2))
    # Spark replays batch 1 after a restart (another writer instance, as in a new commit process):
    # the table already holds it, so nothing is written, not even the rows the replay staged.
    _batch(monkeypatch, _writer(path), 1, _rows(["b", "c", "d"], 9))
    _batch(monkeypatch, writer, 0, _rows(["z"], 9))
    assert _checkpoints(path) == [{"default_single_writer": "0"}, {"default_single_writer": "1"}]
    assert _table_rows(path) == [("a", 1), ("b", 2), ("c", 2)]
    assert _staging(path) == []
    _batch(monkeypatch, writer, 2, _rows(["d"], 3))
    assert _table_rows(path) == [("a", 1), ("b", 2), ("c", 2), ("d", 3)]
    assert committed_batch_id(HudiTable.open(str(path)), "default_single_writer") == 2


def test_queries_with_their_own_identifiers_keep_their_own_batch_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t"
    ident = "hoodie.datasource.write.streaming.checkpoint.identifier"
    first, second = _writer(path, **{ident: "orders"}), _writer(path, **{ident: "refunds"})
    _batch(monkeypatch, first, 0, _rows(["a"], 1))
    _batch(monkeypatch, first, 1, _rows(["b"], 1))
    _batch(monkeypatch, second, 0, _rows(["c"], 1))  # not the orders query's batch 0: written
    _batch(monkeypatch, first, 1, _rows(["x"], 1))  # the orders query's replay: skipped
    table = HudiTable.open(str(path))
    assert committed_batch_id(table, "orders") == 1
    assert committed_batch_id(table, "refunds") == 0
    assert committed_batch_id(table, "nobody") is None
    assert _table_rows(path) == [("a", 1), ("b", 1), ("c", 1)]


def test_a_failure_that_may_pass_is_retried_and_the_checkpoint_looked_up_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t"
    writer = _writer(path, **{"hoodie.datasource.write.streaming.retry.interval.ms": "0"})
    real = WriteClient.write
    calls: list[int] = []

    def flaky(self: WriteClient, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise OSError("storage hiccup")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(WriteClient, "write", flaky)
    _batch(monkeypatch, writer, 0, _rows(["a"], 1))
    assert len(calls) == 2
    assert _table_rows(path) == [("a", 1)]


def test_bad_input_fails_at_once_and_ignore_failed_batch_skips_the_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t"
    _batch(monkeypatch, _writer(path), 0, _rows(["a"], 1))
    calls: list[int] = []

    def mismatch(self: WriteClient, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        raise SchemaMismatchError("v", "double cannot be read as string")

    monkeypatch.setattr(WriteClient, "write", mismatch)
    with pytest.raises(SchemaMismatchError):
        _batch(monkeypatch, _writer(path), 1, _rows(["b"], 1))
    assert len(calls) == 1  # a retry cannot fix the input
    skipping = _writer(path, **{"hoodie.datasource.write.streaming.ignore.failed.batch": "true"})
    _batch(monkeypatch, skipping, 1, _rows(["b"], 1))
    assert _table_rows(path) == [("a", 1)]
    assert _staging(path) == []


@pytest.mark.parametrize(
    ("key", "value", "error"),
    [
        ("hoodie.datasource.compaction.async.enable", "true", UnsupportedOptionError),
        ("hoodie.datasource.write.streaming.disable.compaction", "false", UnsupportedOptionError),
        ("hoodie.datasource.write.streaming.retry.count", "0", InvalidConfigValueError),
        ("hoodie.datasource.write.streaming.retry.interval.ms", "soon", InvalidConfigValueError),
        ("hoodie.datasource.write.streaming.ignore.failed.batch", "maybe", InvalidConfigValueError),
        ("hoodie.datasource.write.streaming.checkpoint.identifier", " ", InvalidConfigValueError),
        ("hoodie.datasource.streaming.startOffset", "latest", InvalidConfigValueError),
    ],
)
def test_sink_options_it_cannot_honour_are_refused_by_name(key: str, value: str, error: type[Exception]) -> None:
    options = SourceOptions.parse({"path": "/nowhere", **OPTS, key: value})
    with pytest.raises(error) as caught:
        SinkOptions.parse(options)
    assert key.lower() in str(caught.value).lower()


def test_sink_options_that_act() -> None:
    options = SourceOptions.parse(
        {
            "path": "/nowhere",
            "checkpointLocation": "/ck",
            "hoodie.datasource.write.streaming.checkpoint.identifier": "w1",
            "hoodie.datasource.write.streaming.retry.count": "5",
            "hoodie.datasource.write.streaming.retry.interval.ms": "10",
            "hoodie.datasource.write.streaming.ignore.failed.batch": "true",
            "hoodie.datasource.write.streaming.disable.compaction": "true",
            "hoodie.datasource.compaction.async.enable": "false",
        }
    )
    assert SinkOptions.parse(options) == SinkOptions("w1", 5, 10, True)


def test_batch_reads_and_writes_refuse_streaming_options(tmp_path: Path) -> None:
    source = HudiDataSource({"path": str(tmp_path / "t"), **OPTS, "hoodie.datasource.write.streaming.retry.count": "2"})
    with pytest.raises(InvalidConfigValueError, match=r"retry\.count"):
        source.writer(SCHEMA, False)
    reading = HudiDataSource({"path": str(tmp_path / "t"), "hoodie.datasource.streaming.startOffset": "latest"})
    with pytest.raises(InvalidConfigValueError, match="startoffset"):
        reading.reader(SCHEMA)


@pytest.mark.parametrize("value", ["not json", "[1]", '{"default_single_writer": "x"}'])
def test_a_damaged_checkpoint_is_an_error_naming_the_instant(tmp_path: Path, value: str) -> None:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(str(tmp_path), config))
    rows = pa.Table.from_batches([_rows(["a"], 1)])
    result = client.upsert(rows, extra_metadata={SINK_CHECKPOINT_KEY: value})
    with pytest.raises(InstantMetadataError, match=result.instant.requested_time):
        committed_batch_id(HudiTable.open(str(tmp_path)), "default_single_writer")
