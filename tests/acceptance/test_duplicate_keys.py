"""Duplicate record keys, on every engine: ``insert`` and ``bulk_insert`` keep them, and tables that hold
them read, update, delete and compact as Apache Hudi 1.1+ does.

The reference semantics, from Apache Hudi's sources:

* Writes. ``BaseWriteHelper.write`` de-duplicates incoming records only when the operation's
  ``hoodie.combine.before.*`` option is on (``insert``, ``insert_overwrite``: ``combine.before.insert``;
  ``bulk_insert``: ``HoodieDatasetBulkInsertHelper.prepareForBulkInsert`` / ``BulkInsertHelper``, same
  option). New file groups take every record (``HoodieCreateHandle``); an insert routed to a small
  file is concatenated after the stored rows (``HoodieMergeHandleFactory.getMergeHandleClassesWrite``
  picks ``HoodieConcatHandle`` while ``hoodie.merge.allow.duplicate.on.inserts``, default true).
* Reads and merges. ``HoodieFileGroupReader`` with ``KeyBasedFileGroupRecordBuffer``: log records are
  combined per key as they are read (``processNextDataRecord`` -> ``deltaMerge``); the base file is then
  iterated in order and ``hasNextBaseRecord`` takes the key's log record with ``records.remove(key)``,
  so the FIRST stored row of a key is merged with it and later stored rows of the key pass through
  unmerged (``FileGroupRecordBuffer.hasNextBaseRecord(baseRecord, null)``). Compaction
  (``hoodie.compact.merge.handle.class``) and, since 1.1.0, copy-on-write upserts and deletes
  (``hoodie.write.merge.handle.class`` = ``FileGroupReaderBasedMergeHandle``, which feeds the incoming
  records through ``StreamingFileGroupRecordBufferLoader`` into the same buffer) merge the same way.
* Tagging. ``HoodieBloomIndex.tagLocationBacktoRecords`` / ``HoodieSimpleIndex`` left-outer-join the
  incoming records with every (key, location) found: a key stored in two file groups is updated or
  deleted in both.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi_framework import open_table_service
from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import DuplicateKeyError, InvalidConfigValueError
from hudi_framework.index.tagging import tag_locations
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Instant
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.prepare import prepare_rows
from hudi_framework.write.session import WriteSession
from tests.acceptance.engines import Step, WriteEngine
from tests.acceptance.oracle import hudi_rs_read
from tests.fixture_tables import all_fixture_tables

COW, MOR = "COPY_ON_WRITE", "MERGE_ON_READ"
SCHEMA = pa.schema([pa.field("id", pa.string()), pa.field("val", pa.string()), pa.field("ts", pa.int64())])
#: Small bloom filters (the suite's usual), and no small files: every insert opens a new file group and
#: every merge-on-read update goes to a log file.
NO_SMALL_FILES = {"hoodie.index.bloom.num_entries": "500", "hoodie.parquet.small.file.limit": "0"}
Row = tuple[str, str, int]


def _batch(*rows: Row) -> pa.Table:
    return pa.table({"id": [r[0] for r in rows], "val": [r[1] for r in rows], "ts": [r[2] for r in rows]}, SCHEMA)


def _create(path: Path, table_type: str, *, version: int = 9) -> HudiTable:
    config = new_table_config(
        "dups", table_type=table_type, version=version, record_key_fields=["id"], ordering_fields=["ts"]
    )
    return HudiTable.create(str(path), config)


def _settings(options: Mapping[str, str] | None = None) -> HudiSettings:
    return HudiSettings.from_hoodie_options({**NO_SMALL_FILES, **(options or {})}, env=False)


def _rows(table: pa.Table) -> list[Row]:
    picked = table.select(["id", "val", "ts"]).to_pylist()
    return sorted((r["id"], r["val"], r["ts"]) for r in picked)


def _write(engine: WriteEngine, table: HudiTable, op: WriteOperation, data: pa.Table, **options: str) -> Instant:
    engine.run(table, _settings(options), Step(op, data))
    return table.reload().timeline.commits_timeline()[-1]


def _file_groups(table: HudiTable) -> set[str]:
    return {s.file_id for s in table.reload().latest_file_slices()}


# --------------------------------------------------------------------------- writes keep duplicates
@pytest.mark.parametrize("table_type", [COW, MOR])
@pytest.mark.parametrize(
    "op", [WriteOperation.INSERT, WriteOperation.BULK_INSERT, WriteOperation.INSERT_OVERWRITE], ids=str
)
def test_insert_keeps_every_incoming_row(
    engine: WriteEngine, tmp_path: Path, op: WriteOperation, table_type: str
) -> None:
    """``hoodie.combine.before.insert=false`` (the default): a batch holding key ``a`` twice writes both."""
    table = _create(tmp_path / "t", table_type)
    batch = _batch(("a", "a-1", 1), ("a", "a-2", 2), ("b", "b-1", 1), ("a", "a-3", 1))
    _write(engine, table, op, batch)
    expected = sorted([("a", "a-1", 1), ("a", "a-2", 2), ("a", "a-3", 1), ("b", "b-1", 1)])
    assert _rows(read_table(table.reload())) == expected
    assert _rows(read_table(table, query_type="read_optimized")) == expected
    assert _rows(hudi_rs_read(str(tmp_path / "t"))) == expected


@pytest.mark.parametrize("table_type", [COW, MOR])
@pytest.mark.parametrize("op", [WriteOperation.INSERT, WriteOperation.BULK_INSERT], ids=str)
def test_combine_before_insert_pre_combines(
    engine: WriteEngine, tmp_path: Path, op: WriteOperation, table_type: str
) -> None:
    """``hoodie.combine.before.insert=true``: one row per key, the greatest ordering value (ties: the later)."""
    table = _create(tmp_path / "t", table_type)
    batch = _batch(("a", "a-1", 1), ("a", "a-2", 2), ("b", "b-1", 1), ("b", "b-2", 1))
    _write(engine, table, op, batch, **{"hoodie.combine.before.insert": "true"})
    assert _rows(read_table(table.reload())) == [("a", "a-2", 2), ("b", "b-2", 1)]


@pytest.mark.parametrize("table_type", [COW, MOR])
def test_insert_into_a_small_file_keeps_stored_keys(engine: WriteEngine, tmp_path: Path, table_type: str) -> None:
    """An insert routed to a small file group is appended after its rows (``HoodieConcatHandle``), even
    for keys it already holds; with ``hoodie.merge.allow.duplicate.on.inserts=false`` it is merged
    like an upsert instead (incoming duplicates combined, the first stored copy merged)."""
    small = {"hoodie.parquet.small.file.limit": "104857600"}
    table = _create(tmp_path / "t", table_type)
    _write(engine, table, WriteOperation.INSERT, _batch(("a", "a-1", 1), ("b", "b-1", 1)), **small)
    (group,) = _file_groups(table)
    _write(engine, table, WriteOperation.INSERT, _batch(("a", "a-2", 2), ("a", "a-3", 3)), **small)
    assert _file_groups(table) == {group}
    assert _rows(read_table(table.reload())) == [("a", "a-1", 1), ("a", "a-2", 2), ("a", "a-3", 3), ("b", "b-1", 1)]

    no_dups = {**small, "hoodie.merge.allow.duplicate.on.inserts": "false"}
    _write(engine, table, WriteOperation.INSERT, _batch(("b", "b-2", 2), ("b", "b-3", 3), ("c", "c-1", 1)), **no_dups)
    assert _file_groups(table) == {group}
    expected = [("a", "a-1", 1), ("a", "a-2", 2), ("a", "a-3", 3), ("b", "b-3", 3), ("c", "c-1", 1)]
    assert _rows(read_table(table.reload())) == expected
    assert _rows(hudi_rs_read(str(tmp_path / "t"))) == expected


# --------------------------------------------------------------------------- insert duplicate policies
@pytest.mark.parametrize(
    ("options", "expected"),
    [
        pytest.param(
            {}, [("a", "a-1", 1), ("a", "a-2", 2), ("b", "b-1", 1), ("b", "b-2", 2), ("c", "c-1", 1)], id="none"
        ),
        pytest.param(
            {"hoodie.datasource.insert.dup.policy": "drop"},
            [("a", "a-1", 1), ("b", "b-1", 1), ("b", "b-2", 2), ("c", "c-1", 1)],
            id="policy-drop",
        ),
        pytest.param(
            {"hoodie.datasource.write.insert.drop.duplicates": "true"},
            [("a", "a-1", 1), ("b", "b-2", 2), ("c", "c-1", 1)],
            id="drop-duplicates",
        ),
    ],
)
def test_insert_dup_policy(engine: WriteEngine, tmp_path: Path, options: dict[str, str], expected: list[Row]) -> None:
    """``hoodie.datasource.insert.dup.policy`` (``DataSourceUtils.handleDuplicates``): ``drop`` leaves out
    incoming records whose key the table holds, and keeps duplicates within the batch; the older
    ``insert.drop.duplicates=true`` drops the same and, as ``DataSourceUtils.createHoodieConfig`` turns
    ``combine.before.insert`` on with it, pre-combines the batch."""
    table = _create(tmp_path / "t", COW)
    _write(engine, table, WriteOperation.INSERT, _batch(("a", "a-1", 1)))
    _write(engine, table, WriteOperation.INSERT, _batch(("a", "a-2", 2), ("c", "c-1", 1)), **options)
    _write(engine, table, WriteOperation.INSERT, _batch(("b", "b-1", 1), ("b", "b-2", 2)), **options)
    assert _rows(read_table(table.reload())) == expected


def test_insert_dup_policy_fail(engine: WriteEngine, tmp_path: Path) -> None:
    """``fail``: an insert of a stored key raises (Java ``HoodieDuplicateKeyException``); nothing is written."""
    table = _create(tmp_path / "t", MOR)
    _write(engine, table, WriteOperation.INSERT, _batch(("a", "a-1", 1)))
    before = table.reload().timeline.commits_timeline()
    fail = {"hoodie.datasource.insert.dup.policy": "fail"}
    with pytest.raises(DuplicateKeyError, match="'a'"):
        _write(engine, table, WriteOperation.INSERT, _batch(("c", "c-1", 1), ("a", "a-2", 2)), **fail)
    assert table.reload().timeline.commits_timeline() == before
    assert _rows(read_table(table)) == [("a", "a-1", 1)]
    _write(engine, table, WriteOperation.INSERT, _batch(("c", "c-1", 1), ("c", "c-2", 2)), **fail)
    assert _rows(read_table(table.reload())) == [("a", "a-1", 1), ("c", "c-1", 1), ("c", "c-2", 2)]


@pytest.mark.parametrize(
    "option",
    [
        ("hoodie.datasource.write.insert.drop.duplicates", "true"),
        ("hoodie.datasource.insert.dup.policy", "drop"),
        ("hoodie.datasource.insert.dup.policy", "fail"),
    ],
    ids=lambda o: f"{o[0]}={o[1]}",
)
def test_bulk_insert_rejects_dropping_duplicates(engine: WriteEngine, tmp_path: Path, option: tuple[str, str]) -> None:
    """Apache Hudi's bulk insert refuses ``insert.drop.duplicates`` ("not supported yet") and ignores the
    dup policy; here both are refused, naming the option, before anything is written."""
    table = _create(tmp_path / "t", COW)
    with pytest.raises(InvalidConfigValueError, match=option[0].replace(".", r"\.")):
        _write(engine, table, WriteOperation.BULK_INSERT, _batch(("a", "a-1", 1)), **dict([option]))
    assert table.reload().timeline.commits_timeline() == []


# --------------------------------------------------------------------------- tables holding duplicates
#: c1 inserts (k1 twice, k2 three times, k3 once, k5 twice, in one file group), c2 upserts k1 and k5
#: (older than k5's first copy), c3 deletes k2, c4 upserts k3 twice in one batch without pre-combining
#: (the log block holds both) and inserts k4.
C1 = (("k1", "k1-a", 100), ("k1", "k1-b", 100), ("k2", "k2-a", 100), ("k2", "k2-b", 100), ("k2", "k2-c", 100),
      ("k3", "k3-a", 100), ("k5", "k5-a", 300), ("k5", "k5-b", 50))  # fmt: skip
C2 = (("k1", "k1-new", 200), ("k5", "k5-new", 200))
C3 = (("k2", "k2-gone", 300),)
C4 = (("k3", "k3-x", 300), ("k3", "k3-y", 250), ("k4", "k4-a", 100))
#: The snapshot after each write: the first stored copy of a key takes its update or delete
#: (``records.remove(key)``), the other copies pass through (k5: the update loses to the first copy
#: by event time and never meets the second); log duplicates combine (k3: ts 300 wins).
K5 = [("k5", "k5-a", 300), ("k5", "k5-b", 50)]
AFTER = [
    sorted(C1),
    sorted([("k1", "k1-new", 200), ("k1", "k1-b", 100), *C1[2:]]),
    sorted(
        [("k1", "k1-new", 200), ("k1", "k1-b", 100), ("k2", "k2-b", 100), ("k2", "k2-c", 100), ("k3", "k3-a", 100), *K5]
    ),
    sorted(
        [
            ("k1", "k1-new", 200),
            ("k1", "k1-b", 100),
            ("k2", "k2-b", 100),
            ("k2", "k2-c", 100),
            ("k3", "k3-x", 300),
            ("k4", "k4-a", 100),
            *K5,
        ]
    ),
]


def _write_duplicate_history(engine: WriteEngine, table: HudiTable) -> list[Instant]:
    return [
        _write(engine, table, WriteOperation.INSERT, _batch(*C1)),
        _write(engine, table, WriteOperation.UPSERT, _batch(*C2)),
        _write(engine, table, WriteOperation.DELETE, _batch(*C3)),
        _write(engine, table, WriteOperation.UPSERT, _batch(*C4), **{"hoodie.combine.before.upsert": "false"}),
    ]


def _bound(table: HudiTable, instant: Instant) -> str:
    return instant.completion_time or instant.requested_time if table.config.version >= 8 else instant.requested_time


def _check_history(table: HudiTable, instants: list[Instant]) -> None:
    assert _rows(read_table(table)) == AFTER[-1]
    # One row per batch: a key's later copies come in later batches than the one its log record met.
    assert _rows(read_table(table, batch_size=1)) == AFTER[-1]
    # A spilled merge partitions the base file by key hash: each partition keeps file order.
    assert _rows(read_table(table, merge_max_memory_bytes=1)) == AFTER[-1]
    for step, instant in enumerate(instants):
        assert _rows(read_table(table, as_of=instant.requested_time)) == AFTER[step], f"as of step {step}"
    # Incremental windows: the rows of the window's snapshot written in the window.
    windows = {
        (None, 3): AFTER[-1],
        (0, 1): [("k1", "k1-new", 200)],
        (1, 2): [],
        (2, 3): [("k3", "k3-x", 300), ("k4", "k4-a", 100)],
    }
    for (after, until), expected in windows.items():
        begin = None if after is None else _bound(table, instants[after])
        got = read_table(table, query_type="incremental", begin=begin, end=_bound(table, instants[until]))
        assert _rows(got) == expected, f"incremental ({after}, {until}]"


@pytest.mark.parametrize("version", [9, 6])
def test_copy_on_write_table_with_duplicate_keys(engine: WriteEngine, tmp_path: Path, version: int) -> None:
    """Upsert and delete of a key stored twice in a file group touch its first copy only
    (``FileGroupReaderBasedMergeHandle``, Apache Hudi 1.1+); the others are copied as they are."""
    table = _create(tmp_path / "t", COW, version=version)
    instants = _write_duplicate_history(engine, table)
    table = table.reload()
    _check_history(table, instants)
    assert _rows(hudi_rs_read(str(tmp_path / "t"))) == AFTER[-1]


@pytest.mark.parametrize("version", [9, 8, 6])
def test_merge_on_read_table_with_duplicate_keys(engine: WriteEngine, tmp_path: Path, version: int) -> None:
    """Merged reads (snapshot, time travel, incremental, spilled) take the log record of a key into its
    first stored copy only; read-optimized reads return every stored row; compaction writes the
    merged snapshot, duplicates included."""
    table = _create(tmp_path / "t", MOR, version=version)
    instants = _write_duplicate_history(engine, table)
    table = table.reload()
    assert any(s.log_files for s in table.latest_file_slices())
    _check_history(table, instants)
    base_rows = sorted([*C1, ("k4", "k4-a", 100)])
    assert _rows(read_table(table, query_type="read_optimized")) == base_rows

    service, host = open_table_service(table, _settings(), "compaction")
    planned = service.schedule(host)
    assert planned is not None
    service.execute(host, planned)
    table = table.reload()
    assert not any(s.log_files for s in table.latest_file_slices())
    assert _rows(read_table(table)) == AFTER[-1]
    assert _rows(read_table(table, query_type="read_optimized")) == AFTER[-1]
    assert _rows(hudi_rs_read(str(tmp_path / "t"))) == AFTER[-1]


@pytest.mark.parametrize("table_type", [COW, MOR])
def test_key_in_two_file_groups_is_updated_and_deleted_in_both(
    engine: WriteEngine, tmp_path: Path, table_type: str
) -> None:
    """The index tags an incoming record with every file group holding its key (Java's left outer join
    of records with found locations), so both copies are updated, then both deleted."""
    table = _create(tmp_path / "t", table_type)
    _write(engine, table, WriteOperation.INSERT, _batch(("a", "a-1", 1), ("b", "b-1", 1)))
    _write(engine, table, WriteOperation.INSERT, _batch(("a", "a-2", 1)))
    assert len(_file_groups(table)) == 2
    _write(engine, table, WriteOperation.UPSERT, _batch(("a", "a-new", 5)))
    assert _rows(read_table(table.reload())) == [("a", "a-new", 5), ("a", "a-new", 5), ("b", "b-1", 1)]
    _write(engine, table, WriteOperation.DELETE, pa.table({"id": ["a"]}))
    assert _rows(read_table(table.reload())) == [("b", "b-1", 1)]
    assert _rows(hudi_rs_read(str(tmp_path / "t"))) == [("b", "b-1", 1)]


def test_index_tags_a_record_with_every_file_group_of_its_key(tmp_path: Path) -> None:
    """``tag_locations``: one row per (incoming record, file group holding its key)."""
    table = _create(tmp_path / "t", COW)
    for data in (_batch(("a", "a-1", 1), ("b", "b-1", 1)), _batch(("a", "a-2", 1))):
        _write_local(table, WriteOperation.INSERT, data)
    table = table.reload()
    session = WriteSession(table, _settings())
    rows = prepare_rows(WriteOperation.UPSERT, _batch(("a", "x", 2), ("b", "y", 2), ("c", "z", 2)), table.schema(),
                        session.keygen)  # fmt: skip
    tagged = tag_locations(session.index, rows, table.latest_file_slices(), table.storage)
    located = sorted(zip(tagged.column("id").to_pylist(), tagged.column("_hoodie_location_file_id").to_pylist(),
                         strict=True), key=lambda p: (p[0], p[1] or ""))  # fmt: skip
    groups = sorted(_file_groups(table))
    a_groups = sorted(f for k, f in located if k == "a")
    assert a_groups == groups
    assert [k for k, _ in located] == ["a", "a", "b", "c"]
    assert dict((k, f) for k, f in located if k != "a")["c"] is None


def _write_local(table: HudiTable, op: WriteOperation, data: pa.Table) -> None:
    from hudi_framework.write.client import WriteClient

    WriteClient(table.reload(), _settings()).write(data, op)


# --------------------------------------------------------------------------- the Spark data source
@pytest.mark.spark
@pytest.mark.parametrize("op", ["insert", "bulk_insert"])
def test_spark_datasource_insert_keeps_duplicates(spark: Any, tmp_path: Path, op: str) -> None:
    """``df.write.format("hudi")``: the same rule (``hoodie.combine.before.insert`` decides)."""
    options = {
        "hoodie.table.name": "dups",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.datasource.write.operation": op,
        "hoodie.datasource.write.table.type": MOR,
        **NO_SMALL_FILES,
    }
    batch = _batch(("a", "a-1", 1), ("a", "a-2", 2), ("b", "b-1", 1))
    kept = tmp_path / "kept"
    spark.createDataFrame(batch).coalesce(1).write.format("hudi").options(**options).mode("append").save(str(kept))
    assert _rows(read_table(HudiTable.open(str(kept)))) == sorted(_rows(batch))
    combined = tmp_path / "combined"
    spark.createDataFrame(batch).coalesce(1).write.format("hudi").options(
        **options, **{"hoodie.combine.before.insert": "true"}
    ).mode("append").save(str(combined))
    assert _rows(read_table(HudiTable.open(str(combined)))) == [("a", "a-2", 2), ("b", "b-1", 1)]


# --------------------------------------------------------------------------- a table Apache Hudi wrote
#: Merge-on-read, written by Apache Hudi 1.1.1 with two ``INSERT INTO`` of ``TXN-002`` and no small
#: files: the key is in two file groups, and Spark's read (``gold_data``) returns both rows.
JAVA_DUPLICATES = "mor/avro/v9_nonpartitioned_rollback"


def test_apache_hudi_table_with_a_key_in_two_file_groups(
    engine: WriteEngine, tmp_path: Path, extract_fixture: Any
) -> None:
    """Reads return both stored rows, as Spark did; an upsert of the key then goes to the log of both
    file groups, merges into both rows, and survives compaction; a delete removes both."""
    (fixture,) = [f for f in all_fixture_tables() if f.id == JAVA_DUPLICATES]
    base, gold = extract_fixture(fixture)
    assert gold is not None
    path = tmp_path / fixture.name
    shutil.copytree(base, path)
    table = HudiTable.open(str(path))
    gold_rows = pa.concat_tables([pq.read_table(f) for f in sorted(gold.glob("*.parquet"))])

    def txn_002(rows: pa.Table) -> list[tuple[str, int, str]]:
        picked = rows.filter(pc.equal(rows.column("txn_id"), "TXN-002"))
        return sorted(zip(picked["_hoodie_file_name"].to_pylist(), picked["txn_ts"].to_pylist(),
                          picked["txn_type"].to_pylist(), strict=True))  # fmt: skip

    stored = read_table(table)
    assert len({f for f, _, _ in txn_002(stored)}) == 2
    assert txn_002(stored) == txn_002(gold_rows)

    data = stored.filter(pc.equal(stored.column("txn_id"), "TXN-002")).slice(0, 1)
    data = data.drop_columns([c for c in data.column_names if c.startswith("_hoodie_")])
    newer = data.set_column(data.schema.get_field_index("txn_ts"), "txn_ts", pa.array([1700900000002], pa.int64()))
    newer = newer.set_column(newer.schema.get_field_index("txn_type"), "txn_type", pa.array(["refund"]))
    engine.run(table, _settings(), Step(WriteOperation.UPSERT, newer))
    table = table.reload()
    assert sum(1 for s in table.latest_file_slices() if s.log_files) == 2
    updated = read_table(table)
    assert [(ts, kind) for _, ts, kind in txn_002(updated)] == [(1700900000002, "refund")] * 2
    assert updated.num_rows == stored.num_rows

    service, host = open_table_service(table, _settings(), "compaction")
    planned = service.schedule(host)
    assert planned is not None
    service.execute(host, planned)
    compacted = read_table(table.reload(), query_type="read_optimized")
    assert [(ts, kind) for _, ts, kind in txn_002(compacted)] == [(1700900000002, "refund")] * 2

    engine.run(table, _settings(), Step(WriteOperation.DELETE, newer.select(["txn_id"])))
    assert txn_002(read_table(table.reload())) == []
    assert txn_002(hudi_rs_read(str(path))) == []
