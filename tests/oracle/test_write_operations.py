"""Apache Hudi as the oracle for table version 6, the replacing write operations (``insert_overwrite``,
``insert_overwrite_table``, ``delete_partition``), ``bulk_insert`` into a table and ``insert`` with
duplicate keys: each engine writes, both read, and the other engine then writes on top.

Both engines' snapshot reads (and, on merge-on-read tables, read-optimized reads) are compared row for
row after every write, with all five meta columns.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework import HudiTable, read_table
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import META_COMPARED, Tally, compare_reads
from tests.oracle.engines import ENGINES, TableWriter, open_writer, other
from tests.oracle.sequence import DATA_COLUMNS, KEY, SEQUENCE, apache_hudi_options, trip_rows
from tests.oracle.test_cross_engine import _compare_all
from tests.oracle.test_cross_engine import test_apache_hudi_reads_our_tables as apache_hudi_reads_our_tables
from tests.oracle.test_cross_engine import test_we_read_apache_hudi_tables as we_read_apache_hudi_tables

pytestmark = pytest.mark.oracle

TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")
READ_OPTIMIZED = {"hoodie.datasource.query.type": "read_optimized"}
#: Every key ``trip_rows`` puts in partition ``sf`` (``i % 3 == 0``) from 100 on.
SF_ONLY = range(102, 120, 3)


def _our_config(table_type: str, version: int = 9) -> dict[str, Any]:
    return {
        "table_type": table_type, "version": version, "record_key_fields": ["id"],
        "partition_fields": ["city"], "ordering_fields": ["ts"],
    }  # fmt: skip


def _sorted_fully(table: pa.Table) -> pa.Table:
    """Rows in one order whatever order a reader returns them in, duplicate keys included (the
    comparison's stable sort by key keeps it)."""
    return table.sort_by([(c, "ascending") for c in (*DATA_COLUMNS, *META_COMPARED)])


def _compare(
    apache_hudi: ApacheHudi, tally: Tally, path: Path, table_type: str, label: str, expected_keys: list[str]
) -> None:
    """Both engines' snapshot (and read-optimized, on merge-on-read) reads agree; the snapshot holds
    exactly ``expected_keys`` (a key twice where it is stored twice)."""
    table = HudiTable.open(str(path))
    snapshot = read_table(table)
    assert sorted(snapshot[KEY].to_pylist()) == sorted(expected_keys), label
    reads: list[tuple[str, dict[str, str]]] = [("snapshot", {})]
    if table_type == "MERGE_ON_READ":
        reads.append(("read_optimized", READ_OPTIMIZED))
    for name, options in reads:
        ours = snapshot if not options else read_table(table, options=options)
        compare_reads(
            tally, f"{label}: {name}", _sorted_fully(ours), _sorted_fully(apache_hudi.read(path, options)),
            key=KEY, data_columns=DATA_COLUMNS,
        )  # fmt: skip


def _keys(rows: pa.Table) -> list[str]:
    keys: list[str] = rows[KEY].to_pylist()
    return keys


# ---------------------------------------------------------------------------------------- table version 6


@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_we_read_apache_hudi_version_6_tables(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    """Apache Hudi 1.2.0 still writes table version 6 (``hoodie.write.table.version=6``): the v9/v8 case."""
    we_read_apache_hudi_tables(apache_hudi, oracle_tally, tmp_path, table_type, 6)
    assert HudiTable.open(str(tmp_path / "by_apache_hudi")).config.timeline_layout_version == 1


@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_apache_hudi_reads_our_version_6_tables(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    apache_hudi_reads_our_tables(apache_hudi, oracle_tally, tmp_path, table_type, 6)
    assert HudiTable.open(str(tmp_path / "by_hudi_framework")).config.version == 6


@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("writer", ENGINES)
def test_version_6_table_written_by_both(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, writer: str, table_type: str
) -> None:
    """A v6 table one engine inserts into and deletes from, the other upserts on (both upserts)."""
    path = tmp_path / "v6_shared"
    oracle_tally.tables.add(str(path))
    options = apache_hudi_options("v6_shared", table_type, 6)
    create = _our_config(table_type, 6)
    writers = [open_writer(e, apache_hudi, path, options, create=create) for e in (writer, other(writer), writer)]
    label = f"v6 {table_type} by {writer} then {other(writer)}"
    for done, ((operation, rows), engine) in enumerate(zip(SEQUENCE, [*writers, writers[1]], strict=True), start=1):
        engine.write(rows, operation)
        _compare_all(apache_hudi, oracle_tally, path, table_type, label, steps_done=done)
    assert HudiTable.open(str(path)).config.version == 6


# ---------------------------------------------------------------------------------------- replacing writes


def _replace(writer: TableWriter, operation: str) -> list[str]:
    """Run ``operation`` on a table holding SEQUENCE's first two writes; the keys it leaves."""
    before = [f"k{i:03d}" for i in range(50)]
    if operation == "insert_overwrite":  # partition sf only
        rows = trip_rows(SF_ONLY, ts=3)
        writer.write(rows, operation)
        return [k for k in before if int(k[1:]) % 3 != 0] + _keys(rows)
    if operation == "insert_overwrite_table":
        rows = trip_rows(range(100, 106), ts=3)
        writer.write(rows, operation)
        return _keys(rows)
    assert operation == "delete_partition"
    writer.delete_partitions(["s*"])  # a wildcard: sf
    return [k for k in before if int(k[1:]) % 3 != 0]


REPLACE_CASES = [
    pytest.param("insert_overwrite", "MERGE_ON_READ", writer, id=f"insert_overwrite-MERGE_ON_READ-{writer}")
    for writer in ENGINES
] + [
    pytest.param(operation, table_type, writer, id=f"{operation}-{table_type}-{writer}", marks=pytest.mark.oracle_full)
    for operation in ("insert_overwrite", "insert_overwrite_table", "delete_partition")
    for table_type in TABLE_TYPES
    for writer in ENGINES
    if (operation, table_type) != ("insert_overwrite", "MERGE_ON_READ")
]


@pytest.mark.parametrize(("operation", "table_type", "writer"), REPLACE_CASES)
def test_replacing_writes_both_directions(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, operation: str, table_type: str, writer: str
) -> None:
    """One engine inserts, upserts and replaces (a replacecommit); both read the same; then the other
    engine upserts keys of replaced and of kept file groups, and both still read the same."""
    path = tmp_path / operation
    oracle_tally.tables.add(str(path))
    options = apache_hudi_options(operation, table_type, 9)
    first = open_writer(writer, apache_hudi, path, options, create=_our_config(table_type))
    label = f"{writer} {operation} on {table_type}"
    for operation_, rows in SEQUENCE[:2]:
        first.write(rows, operation_)
    keys = _replace(first, operation)
    table = HudiTable.open(str(path))
    assert table.timeline.commits_timeline()[-1].action.value == "replacecommit"
    _compare(apache_hudi, oracle_tally, path, table_type, label, keys)

    # Keys 0-11 over every partition: replaced ones come back as inserts, kept ones are updated.
    upsert = trip_rows(range(12), ts=5)
    open_writer(other(writer), apache_hudi, path, options).write(upsert, "upsert")
    keys = sorted(set(keys) | set(_keys(upsert)))
    _compare(apache_hudi, oracle_tally, path, table_type, f"{label}, then {other(writer)} upsert", keys)


# ---------------------------------------------------------------------------------------- inserts


@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("writer", ENGINES)
def test_bulk_insert_into_an_existing_table(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, writer: str, table_type: str
) -> None:
    path = tmp_path / "bulk_insert"
    oracle_tally.tables.add(str(path))
    options = apache_hudi_options("bulk_insert", table_type, 9)
    first = open_writer(writer, apache_hudi, path, options, create=_our_config(table_type))
    label = f"{writer} bulk_insert into {table_type}"
    first.write(SEQUENCE[0][1], "insert")
    bulk = trip_rows(range(40, 60), ts=2)
    first.write(bulk, "bulk_insert")
    keys = _keys(SEQUENCE[0][1]) + _keys(bulk)
    _compare(apache_hudi, oracle_tally, path, table_type, label, keys)
    upsert = trip_rows(range(30, 50), ts=5)
    open_writer(other(writer), apache_hudi, path, options).write(upsert, "upsert")
    _compare(apache_hudi, oracle_tally, path, table_type, f"{label}, then {other(writer)} upsert", keys)


#: Duplicate handling of ``insert``: the options, and which keys the table then holds.
INSERT_DUPLICATES: dict[str, dict[str, str]] = {
    "default": {},
    "combine_before_insert": {"hoodie.combine.before.insert": "true"},
    "drop_duplicates": {"hoodie.datasource.write.insert.drop.duplicates": "true"},
    "dup_policy_drop": {"hoodie.datasource.insert.dup.policy": "drop"},
}


@pytest.mark.oracle_full
@pytest.mark.parametrize("table_type", TABLE_TYPES)
@pytest.mark.parametrize("writer", ENGINES)
@pytest.mark.parametrize("setting", list(INSERT_DUPLICATES))
def test_insert_with_duplicate_keys(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, setting: str, writer: str, table_type: str
) -> None:
    """``insert`` of a batch repeating some of its own keys and some keys the table holds."""
    path = tmp_path / f"insert_{setting}"
    oracle_tally.tables.add(str(path))
    extra = INSERT_DUPLICATES[setting]
    options = {**apache_hudi_options(path.name, table_type, 9), **extra}
    first = open_writer(writer, apache_hudi, path, options, create=_our_config(table_type), our_options=extra)
    first.write(SEQUENCE[0][1], "insert")
    # k035-k039 are stored, k040-k059 new; k050-k054 twice in the batch (ts 2 and 3).
    batch = pa.concat_tables([trip_rows(range(35, 60), ts=2), trip_rows(range(50, 55), ts=3)])
    first.write(batch, "insert")
    stored = _keys(SEQUENCE[0][1])
    new = [f"k{i:03d}" for i in range(40, 60)]
    expected = {
        "default": stored + _keys(batch),
        "combine_before_insert": stored + [f"k{i:03d}" for i in range(35, 60)],
        "drop_duplicates": stored + new,
        # Stored keys dropped; the batch is not pre-combined.
        "dup_policy_drop": stored + new + [f"k{i:03d}" for i in range(50, 55)],
    }[setting]
    label = f"{writer} insert with duplicates ({setting}) into {table_type}"
    _compare(apache_hudi, oracle_tally, path, table_type, label, expected)
