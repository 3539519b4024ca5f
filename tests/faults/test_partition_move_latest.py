"""A key moving partition under a global index merges with its LATEST stored record (local disk).

Apache Hudi (``HoodieIndexUtils.mergeForPartitionUpdatesIfNeeded``) merges an incoming record whose
key is stored in another partition with the merged read of the key's file slice (base file and
committed log blocks, ``HoodieMergedReadHandle``), not with the base file's row:

* the stored record wins (a newer one sits in a log file): the key stays, one row;
* the incoming record wins: the key moves, one row, the old partition's copy (log included) is gone;
* the key was deleted in a log file: the incoming record is an insert in its new partition;
* a log block of an uncommitted instant does not count;
* a partial update that moves takes its absent columns from the latest stored record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.client import WriteClient
from hudi_framework.write.moves import tag_for_write
from hudi_framework.write.prepare import prepare_rows

INDEXES = ["GLOBAL_SIMPLE", "GLOBAL_BLOOM", "RECORD_INDEX"]
TABLE_TYPES = ["COPY_ON_WRITE", "MERGE_ON_READ"]


def _options(index: str, **extra: str) -> dict[str, str]:
    return {
        "hoodie.index.type": index,
        "hoodie.simple.index.update.partition.path": "true",
        "hoodie.bloom.index.update.partition.path": "true",
        "hoodie.record.index.update.partition.path": "true",
        **extra,
    }


def _client(tmp_path: Path, index: str, table_type: str, version: int = 9, **extra: str) -> WriteClient:
    config = new_table_config(
        "t", version=version, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(str(tmp_path / "t"), config)
    return WriteClient(table, HudiSettings.from_hoodie_options(_options(index, **extra), env=False))


def _row(key: str, city: str, ts: int, v: str) -> dict[str, Any]:
    return {"id": key, "city": city, "ts": ts, "v": v}


def _rows(*rows: dict[str, Any]) -> pa.Table:
    return pa.Table.from_pylist(list(rows))


def _visible(client: WriteClient) -> list[tuple[Any, ...]]:
    rows = read_table(HudiTable.open(client.table.base_uri)).to_pylist()
    return sorted((r["id"], r["_hoodie_partition_path"], r["city"], r["ts"], r["v"]) for r in rows)


@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("index", INDEXES)
def test_an_older_incoming_record_loses_to_the_latest_stored_one(tmp_path: Path, index: str, table_type: str) -> None:
    client = _client(tmp_path, index, table_type)
    client.insert(_rows(_row("k", "a", 1, "one"), _row("j", "a", 1, "x")))
    client.upsert(_rows(_row("k", "a", 5, "five")))  # a log block of a's file group on MOR
    client.upsert(_rows(_row("k", "b", 3, "three")))
    assert _visible(client) == [("j", "a", "a", 1, "x"), ("k", "a", "a", 5, "five")]


@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("index", INDEXES)
def test_a_newer_incoming_record_moves_the_key_and_removes_the_logged_copy(
    tmp_path: Path, index: str, table_type: str
) -> None:
    client = _client(tmp_path, index, table_type)
    client.insert(_rows(_row("k", "a", 1, "one"), _row("j", "a", 1, "x")))
    client.upsert(_rows(_row("k", "a", 5, "five")))
    client.upsert(_rows(_row("k", "b", 7, "seven")))
    assert _visible(client) == [("j", "a", "a", 1, "x"), ("k", "b", "b", 7, "seven")]
    client.upsert(_rows(_row("k", "a", 6, "six")))  # older than the moved record: stays in b
    assert _visible(client) == [("j", "a", "a", 1, "x"), ("k", "b", "b", 7, "seven")]


@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("index", INDEXES)
def test_a_key_deleted_before_is_inserted_in_the_new_partition(tmp_path: Path, index: str, table_type: str) -> None:
    client = _client(tmp_path, index, table_type)
    client.insert(_rows(_row("k", "a", 4, "four"), _row("j", "a", 1, "x")))
    client.upsert(_rows(_row("k", "a", 5, "five")))
    client.delete(_rows(_row("k", "a", 6, "gone")))
    # Older than the base file's and the deleted record: nothing stored to merge with, so an insert
    # in b (not an update of a's deleted key, which the delete would hide; no resurrection in a).
    client.upsert(_rows(_row("k", "b", 3, "three")))
    assert _visible(client) == [("j", "a", "a", 1, "x"), ("k", "b", "b", 3, "three")]


@pytest.mark.parametrize(
    ("index", "version"), [*((i, 9) for i in INDEXES), ("GLOBAL_SIMPLE", 6), ("GLOBAL_BLOOM", 6)]
)  # the metadata table (record index) is written for versions 8 and 9 only
def test_a_log_block_of_an_uncommitted_instant_does_not_count(tmp_path: Path, index: str, version: int) -> None:
    # Small-file log inserts put j in a log file only (the record index indexes log files); then a
    # write of j with ts=5 leaves its block but never completes (on version 6 the block is appended
    # to the slice's log file, which the file slice keeps). The move of j (ts=3) is merged with the
    # committed j (ts=1), so it moves.
    small = {"hoodie.parquet.small.file.limit": "10485760", "hoodie.copyonwrite.record.size.estimate": "64"}
    if index == "RECORD_INDEX":
        small.update({"hoodie.metadata.enable": "true", "hoodie.metadata.record.index.enable": "true"})
    client = _client(tmp_path, index, "MERGE_ON_READ", version, **small)
    client.insert(_rows(_row("k", "a", 1, "one")))
    client.insert(_rows(_row("j", "a", 1, "x")))
    client.upsert(_rows(_row("j", "a", 5, "five")))
    table = client.table.reload()
    hoodie = Path(table.base_uri.removeprefix("file://")) / ".hoodie"
    last = table.timeline.completed()[-1]
    pattern = f"timeline/{last.requested_time}_*.deltacommit" if version >= 8 else f"{last.requested_time}.deltacommit"
    (completed,) = list(hoodie.glob(pattern))
    completed.unlink()  # the ts=5 write never completed: its block must not count
    table = HudiTable.open(table.base_uri)
    assert last.requested_time not in {i.requested_time for i in table.timeline.completed()}
    from hudi_framework.write.moves import StoredReads

    session = client.session
    rows = prepare_rows(WriteOperation.UPSERT, _rows(_row("j", "b", 3, "three")), table.schema(), session.keygen)
    tagged = tag_for_write(
        rows, table.latest_file_slices(), table.storage, config=table.config, index=session.index,
        merger=session.merger, keygen=session.keygen, stored=StoredReads.of(table),
    )  # fmt: skip
    # ts=3 beats the committed ts=1 (the uncommitted ts=5 does not count): j moves to b.
    assert tagged.column("_hoodie_partition_path").to_pylist() == ["b"]


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_a_moving_partial_update_takes_absent_columns_from_the_latest_record(tmp_path: Path, table_type: str) -> None:
    client = _client(tmp_path, "GLOBAL_SIMPLE", table_type)
    schema = pa.schema([("id", pa.string()), ("city", pa.string()), ("ts", pa.int64()), ("v", pa.string()),
                        ("w", pa.string())])  # fmt: skip
    client.insert(pa.Table.from_pylist([{"id": "k", "city": "a", "ts": 1, "v": "v1", "w": "w1"}], schema=schema))
    client.upsert(pa.Table.from_pylist([{"id": "k", "city": "a", "ts": 5, "v": "v5", "w": "w5"}], schema=schema))
    partial = pa.schema([schema.field("id"), schema.field("city"), schema.field("ts"), schema.field("w")])
    client.upsert(pa.Table.from_pylist([{"id": "k", "city": "b", "ts": 7, "w": "w7"}], schema=partial))
    rows = read_table(HudiTable.open(client.table.base_uri)).to_pylist()
    got = sorted((r["id"], r["_hoodie_partition_path"], r["ts"], r["v"], r["w"]) for r in rows)
    assert got == [("k", "b", 7, "v5", "w7")]


@pytest.mark.spark
@pytest.mark.parametrize("paths", ["narrow", "shuffled"])
def test_spark_settles_moves_against_the_latest_stored_record(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, paths: str
) -> None:
    from hudi_framework.spark import tagging_stage
    from hudi_framework.spark.write_engine import SparkWriteClient

    if paths == "shuffled":  # the settle step of the lookup join, not the pre-combine tasks' tagging
        monkeypatch.setattr(tagging_stage, "NARROW_FILE_OPENS", 0)
    local = _client(tmp_path, "GLOBAL_SIMPLE", "MERGE_ON_READ")
    client = SparkWriteClient(local.table, local.session.settings, spark)
    client.insert(spark.createDataFrame(_rows(_row("k", "a", 1, "one"), _row("j", "a", 1, "x"))))
    client.upsert(spark.createDataFrame(_rows(_row("k", "a", 5, "five"), _row("i", "a", 4, "four"))))
    client.delete(spark.createDataFrame(_rows(_row("i", "a", 6, "gone"))))
    moves = _rows(_row("k", "b", 3, "three"), _row("j", "b", 2, "two"), _row("i", "b", 1, "back"))
    client.upsert(spark.createDataFrame(moves))
    # k stays (ts=5 in a's log wins), j moves (ts=2 beats the base file's ts=1), i was deleted: inserted in b.
    assert _visible(local) == [("i", "b", "b", 1, "back"), ("j", "b", "b", 2, "two"), ("k", "a", "a", 5, "five")]
