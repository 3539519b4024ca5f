"""Merge-on-read inserts into log files of small file groups, with an index that finds keys in log
files (the record-level index, ``RECORD_INDEX``), on local disk and on S3 (moto):

* new keys land in a log file of an existing small file group (no new base file version), the
  write stat counts them as inserts, and the record index locates them in that file group;
* reads return every row; a later update and delete of those keys reach them (no duplicate);
* the record index built on the table afterwards finds them, and so does the index's file-based
  fallback while the table keeps no record index;
* compaction folds them into the base file;
* hudi-rs (the independent reader) reads the same rows;
* a bloom-index table keeps rewriting the small base file (Apache Hudi's rule for indexes that
  cannot index log files).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.log.blocks import DataBlock
from hudi_framework.log.reader import read_log_file
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place, hudi_rs, ours

RLI = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
    "hoodie.index.type": "RECORD_INDEX",
    "hoodie.parquet.small.file.limit": "10485760",
    "hoodie.copyonwrite.record.size.estimate": "64",
}
BLOOM = {**RLI, "hoodie.metadata.record.index.enable": "false", "hoodie.index.type": "BLOOM"}


def _settings(options: dict[str, str]) -> HudiSettings:
    return HudiSettings.from_hoodie_options(options, env=False)


def _rows(ids: range, city: str, ts: int) -> pa.Table:
    return pa.Table.from_pylist([{"id": f"k{i:03d}", "city": city, "ts": ts, "v": float(i * ts)} for i in ids])


def _create(place: Place) -> HudiTable:
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    return HudiTable.create(place.uri, config, storage_options=place.options)


def _files(table: HudiTable, partition: str) -> tuple[list[BaseFileName], list[tuple[LogFileName, str]]]:
    names = [i.key for i in table.storage.list(partition)]
    bases = [b for k in names if (b := BaseFileName.try_parse(k.rsplit("/", 1)[-1])) is not None]
    logs = [(n, k) for k in names if (n := LogFileName.try_parse(k.rsplit("/", 1)[-1])) is not None]
    return bases, logs


def _log_keys(table: HudiTable, key: str) -> set[str]:
    keys: set[str] = set()
    for block in read_log_file(table.storage, key):
        if isinstance(block, DataBlock) and block.record_keys is not None:
            keys |= {k for k in block.record_keys.to_pylist() if k is not None}
    return keys


def _snapshot(table: HudiTable) -> dict[str, tuple[str, float]]:
    rows = read_table(table).select(["id", "_hoodie_partition_path", "v"]).to_pylist()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate keys"
    return {r["id"]: (r["_hoodie_partition_path"], r["v"]) for r in rows}


def _index(table: HudiTable, keys: list[str]) -> dict[str, tuple[str, str]]:
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    found = mdt.record_index([*keys, "absent"])
    return {r["record_key"]: (r["partition_path"], r["file_id"]) for r in found.to_pylist()}


def test_inserts_go_to_the_log_file_of_a_small_file_group_and_stay_findable(place: Place) -> None:
    table = _create(place)
    WriteClient(table, _settings(RLI)).insert(_rows(range(20), "sf", 1))
    (base,), logs = _files(place.open(), "sf")
    assert not logs
    client = WriteClient(place.open(), _settings(RLI))
    # k020..k029 are new; k000..k004 are updates of the same file group.
    result = client.upsert(pa.concat_tables([_rows(range(20, 30), "sf", 2), _rows(range(5), "sf", 2)]))
    table = place.open()
    bases, logs = _files(table, "sf")
    assert bases == [base], "the small file group got no new base file version"
    (log_name, log_key), = logs  # fmt: skip
    assert log_name.file_id == base.file_id
    assert log_name.instant_time == result.instant.requested_time
    assert _log_keys(table, log_key) == {f"k{i:03d}" for i in [*range(20, 30), *range(5)]}
    (stat,) = result.stats
    assert (stat.num_inserts, stat.num_update_writes, stat.num_writes) == (10, 5, 15)
    expected = {f"k{i:03d}": ("sf", float(i * (2 if i < 5 or i >= 20 else 1))) for i in range(30)}
    assert _snapshot(table) == expected
    where = _index(table, sorted(expected))
    assert where == {k: ("sf", base.file_id) for k in expected}
    assert hudi_rs(place.uri, place.endpoint) == ours(place.uri, place.options)  # the independent reader agrees

    # Later writes find the keys only the log file holds: an update and a delete, no duplicate.
    client = WriteClient(place.open(), _settings(RLI))
    client.upsert(_rows(range(25, 27), "sf", 3))
    client.delete(_rows(range(27, 29), "sf", 4))
    expected.update({f"k{i:03d}": ("sf", float(i * 3)) for i in range(25, 27)})
    for i in range(27, 29):
        expected.pop(f"k{i:03d}")
    table = place.open()
    assert _snapshot(table) == expected
    assert set(_index(table, sorted(expected))) == set(expected)
    assert len(_files(table, "sf")[0]) == 1
    assert hudi_rs(place.uri, place.endpoint) == ours(place.uri, place.options)


@pytest.mark.s3_full  # index and merge rules: the S3 side (log inserts, their reads) is the other tests'
def test_bloom_index_keeps_rewriting_the_small_base_file(place: Place) -> None:
    table = _create(place)
    WriteClient(table, _settings(BLOOM)).insert(_rows(range(20), "sf", 1))
    result = WriteClient(place.open(), _settings(BLOOM)).upsert(_rows(range(20, 30), "sf", 2))
    bases, logs = _files(place.open(), "sf")
    assert not logs
    assert len(bases) == 2
    assert len({b.file_id for b in bases}) == 1
    (stat,) = result.stats
    assert stat.num_inserts == 10
    assert stat.path is not None
    assert ".log." not in stat.path
    assert len(_snapshot(place.open())) == 30


def test_log_inserted_keys_are_found_without_the_record_index_and_when_it_is_built_again(place: Place) -> None:
    table = _create(place)
    WriteClient(table, _settings(RLI)).insert(_rows(range(10), "sf", 1))
    WriteClient(place.open(), _settings(RLI)).upsert(_rows(range(10, 20), "sf", 2))
    assert len(_files(place.open(), "sf")[1]) == 1
    # A writer keeping no record_index drops it: the index falls back to reading the table's files,
    # log files included, so the keys only a log file holds are updated, not inserted again.
    no_map = {**RLI, "hoodie.metadata.record.index.enable": "false"}
    WriteClient(place.open(), _settings(no_map)).upsert(_rows(range(1), "sf", 3))
    assert "record_index" not in place.open().config.metadata_partitions
    WriteClient(place.open(), _settings(no_map)).upsert(
        pa.concat_tables([_rows(range(12, 14), "sf", 3), _rows(range(14, 15), "ny", 3)])
    )
    table = place.open()
    assert "record_index" not in table.config.metadata_partitions
    snapshot = _snapshot(table)
    assert len(snapshot) == 20
    # k014 arrives in ny: the record-level index updates it where it is (update.partition.path false).
    assert snapshot["k012"] == ("sf", 36.0)
    assert snapshot["k014"] == ("sf", 42.0)
    # Built again, the record index reads the latest slices' log files too.
    WriteClient(place.open(), _settings(RLI)).upsert(_rows(range(15, 16), "sf", 4))
    table = place.open()
    (base, *_), _logs = _files(table, "sf")
    where = _index(table, sorted(snapshot))
    assert where == {k: ("sf", base.file_id) for k in snapshot}


def test_compaction_folds_log_inserts_into_the_base_file(place: Place) -> None:
    options = {**RLI, "hoodie.compact.inline": "true", "hoodie.compact.inline.max.delta.commits": "2"}
    table = _create(place)
    WriteClient(table, _settings(options)).insert(_rows(range(10), "sf", 1))
    WriteClient(place.open(), _settings(options)).upsert(_rows(range(10, 20), "sf", 2))
    table = place.open()
    assert table.timeline.completed()[-1].action.value == "commit"  # the compaction
    bases, _logs = _files(table, "sf")
    newest = max(bases, key=lambda b: b.instant_time)
    assert len({b.file_id for b in bases}) == 1
    snapshot = _snapshot(table)
    assert sorted(snapshot) == [f"k{i:03d}" for i in range(20)]
    with table.storage.open_input(f"sf/{newest.name}") as f:
        stored = pq.read_table(f, columns=["_hoodie_record_key"]).column(0)
    assert pc.count_distinct(stored).as_py() == 20


@pytest.mark.s3_full  # index and merge rules: the S3 side (log inserts, their reads) is the other tests'
def test_a_key_only_a_log_file_holds_moves_partition(place: Place) -> None:
    options = {**RLI, "hoodie.record.index.update.partition.path": "true"}
    table = _create(place)
    WriteClient(table, _settings(options)).insert(_rows(range(10), "sf", 1))
    WriteClient(place.open(), _settings(options)).upsert(_rows(range(10, 15), "sf", 2))
    assert len(_files(place.open(), "sf")[1]) == 1
    # k012 and k013 arrive in ny (newer): they move there, deleted from sf's log-only keys.
    WriteClient(place.open(), _settings(options)).upsert(_rows(range(12, 14), "ny", 3))
    snapshot = _snapshot(place.open())
    assert len(snapshot) == 15
    assert snapshot["k012"] == ("ny", 36.0)
    assert snapshot["k013"] == ("ny", 39.0)
    assert snapshot["k011"] == ("sf", 22.0)


@pytest.mark.s3_full  # index and merge rules: the S3 side (log inserts, their reads) is the other tests'
def test_a_key_only_a_log_file_holds_stays_when_its_stored_record_wins(place: Place) -> None:
    options = {**RLI, "hoodie.record.index.update.partition.path": "true"}
    table = _create(place)
    WriteClient(table, _settings(options)).insert(_rows(range(10), "sf", 1))
    WriteClient(place.open(), _settings(options)).upsert(_rows(range(10, 15), "sf", 5))
    WriteClient(place.open(), _settings(options)).upsert(_rows(range(12, 13), "sf", 7))  # a second log file
    # k012 arrives in ny with an older ordering value than its newest stored record (ts 7, in the
    # second log file; the first holds ts 5): the stored record wins, the key stays in sf.
    WriteClient(place.open(), _settings(options)).upsert(_rows(range(12, 13), "ny", 6))
    snapshot = _snapshot(place.open())
    assert len(snapshot) == 15
    assert snapshot["k012"] == ("sf", 84.0)


@pytest.mark.s3_full  # index and merge rules: the S3 side (log inserts, their reads) is the other tests'
def test_insert_overwrite_drops_the_log_inserted_keys_from_the_record_index(place: Place) -> None:
    table = _create(place)
    WriteClient(table, _settings(RLI)).insert(_rows(range(10), "sf", 1))
    WriteClient(place.open(), _settings(RLI)).upsert(_rows(range(10, 15), "sf", 2))
    WriteClient(place.open(), _settings(RLI)).insert_overwrite(_rows(range(100, 103), "sf", 3))
    table = place.open()
    snapshot = _snapshot(table)
    assert sorted(snapshot) == ["k100", "k101", "k102"]
    assert set(_index(table, [f"k{i:03d}" for i in (*range(15), *range(100, 103))])) == set(snapshot)


def test_rolling_back_a_write_with_log_inserts_restores_the_table_and_its_record_index(place: Place) -> None:
    from hudi_framework.write.savepoint import rollback_latest_commit

    table = _create(place)
    WriteClient(table, _settings(RLI)).insert(_rows(range(10), "sf", 1))
    before = _snapshot(place.open())
    WriteClient(place.open(), _settings(RLI)).upsert(_rows(range(8, 14), "sf", 2))
    assert len(_files(place.open(), "sf")[1]) == 1
    rollback_latest_commit(place.open())
    table = place.open()
    assert _files(table, "sf")[1] == []
    assert _snapshot(table) == before
    assert set(_index(table, [f"k{i:03d}" for i in range(14)])) == set(before)
    # The keys are new again: the next upsert inserts them once.
    WriteClient(place.open(), _settings(RLI)).upsert(_rows(range(10, 14), "sf", 3))
    assert len(_snapshot(place.open())) == 14


def test_a_failed_write_with_log_inserts_leaves_the_table_as_it_was(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_framework.write.transaction import WriteTransaction

    table = _create(place)
    WriteClient(table, _settings(RLI)).insert(_rows(range(10), "sf", 1))
    files = sorted(i.key for i in place.open().storage.list("sf"))
    before = _snapshot(place.open())

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("injected: the commit fails after the log file was written")

    monkeypatch.setattr(WriteTransaction, "commit", fail)
    with pytest.raises(RuntimeError, match="injected"):
        WriteClient(place.open(), _settings(RLI)).upsert(_rows(range(8, 14), "sf", 2))
    monkeypatch.undo()
    table = place.open()
    assert sorted(i.key for i in table.storage.list("sf")) == files
    assert _snapshot(table) == before
    assert set(_index(table, [f"k{i:03d}" for i in range(14)])) == set(before)
