"""Apache Hudi writes a table with its metadata table (files, column stats, bloom filters, record index); our MDT
reader agrees with the data files, and reads planned from the MDT agree with Apache Hudi's read.

* ``files``: equal to the committed files on storage (:func:`validate_files`), in sync;
* ``column_stats``: every Parquet base file's value count, null count, min and max per column equal
  its footer's;
* ``bloom_filters``: every base file's filter holds the keys of the file;
* ``record_index``: every key Apache Hudi reads is indexed in the file group that holds it, and the
  deleted keys are not indexed;
* our snapshot, planned from the MDT without listing a data partition, equals Apache Hudi's read.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.stat_values import stat_values
from hudi_framework.metadata.validate import check_in_sync, validate_files
from hudi_storage_local.backend import LocalStorageBackend
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, EXPECTED_TS, KEY, SEQUENCE, apache_hudi_options

pytestmark = pytest.mark.oracle

MDT_OPTIONS = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
    "hoodie.metadata.index.bloom.filter.enable": "true",
}
TABLE_TYPES = ("MERGE_ON_READ", pytest.param("COPY_ON_WRITE", marks=pytest.mark.oracle_full))
#: Columns whose Parquet statistics compare as plain values.
STAT_COLUMNS = ("id", "city", "ts", "fare", "name", "qty")


def _file_group(file_name: str) -> str:
    """The file group id in a ``_hoodie_file_name`` (a base file name, or the id alone for log rows)."""
    return file_name.lstrip(".").split("_", 1)[0]


def _check_column_stats(base: Path, mdt: MetadataTable) -> int:
    stats = mdt.column_stats(STAT_COLUMNS)
    checked = 0
    for row in stats.filter(pc.ends_with(stats.column("file_name"), ".parquet")).to_pylist():
        path = base / row["partition_path"] / row["file_name"]
        if not path.exists():
            continue
        footer = pq.ParquetFile(path).metadata
        index = [footer.schema.column(j).path for j in range(footer.num_columns)].index(row["column_name"])
        chunks = [footer.row_group(g).column(index) for g in range(footer.num_row_groups)]
        assert row["value_count"] == sum(c.num_values for c in chunks), row
        assert row["null_count"] == sum(c.statistics.null_count for c in chunks), row
        values = pq.read_table(path, columns=[row["column_name"]]).column(0)
        bounds = pc.min_max(values)
        one = pa.table({"min": pa.array([row["min_value"]]), "max": pa.array([row["max_value"]])})
        assert stat_values(one.column("min"))[0].as_py() == bounds["min"].as_py(), row
        assert stat_values(one.column("max"))[0].as_py() == bounds["max"].as_py(), row
        checked += 1
    return checked


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_our_mdt_reader_agrees_with_apache_hudis_table(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    path = tmp_path / f"mdt_{table_type.lower()}"
    oracle_tally.tables.add(str(path))
    options = {**apache_hudi_options(path.name, table_type, 9), **MDT_OPTIONS}
    for operation, rows in SEQUENCE:
        apache_hudi.write(path, rows, options, operation)

    table = HudiTable.open(str(path))
    assert {"files", "column_stats", "record_index"} <= set(
        table.properties["hoodie.table.metadata.partitions"].split(",")
    )
    storage = LocalStorageBackend(str(path))
    mdt = MetadataTable.open(storage, table.properties)
    assert mdt is not None
    check_in_sync(mdt, table.timeline)
    report = validate_files(storage, table.timeline, table.properties)
    assert report.ok, report

    # Our snapshot, planned from the MDT (no data partition listed), against Apache Hudi's read.
    listed: list[str] = []
    original = table._storage.list

    def counting(prefix: str = "", *, recursive: bool = False) -> list:  # type: ignore[type-arg]
        listed.append(prefix)
        return original(prefix, recursive=recursive)

    table._storage.list = counting  # type: ignore[method-assign]
    ours = read_table(table)
    assert [p for p in listed if not p.startswith(".hoodie")] == []
    theirs = apache_hudi.read(path)
    compare_reads(
        oracle_tally, f"{table_type} read planned from the MDT", ours, theirs, key=KEY, data_columns=DATA_COLUMNS
    )
    assert dict(zip(ours["id"].to_pylist(), ours["ts"].to_pylist(), strict=True)) == EXPECTED_TS

    assert _check_column_stats(path, mdt) > 0

    # bloom_filters: each base file's filter holds every key the file holds.
    blooms = 0
    for file_slice in table.latest_file_slices():
        if file_slice.base_file_key is None or file_slice.base_file_name is None:
            continue
        bloom = mdt.bloom_filter(file_slice.partition_path, file_slice.base_file_name)
        assert bloom is not None, file_slice.base_file_key
        file_keys = pq.read_table(path / file_slice.base_file_key, columns=["_hoodie_record_key"]).column(0)
        assert bloom.might_contain(file_keys).all()
        blooms += 1
    assert blooms > 0

    keys = theirs.column(KEY).combine_chunks()
    deleted = pa.array([f"k{i:03d}" for i in range(20, 28)])
    located = mdt.record_index(pa.concat_arrays([keys, deleted]))
    assert sorted(located.column("record_key").to_pylist()) == sorted(keys.to_pylist())
    where = dict(zip(located.column("record_key").to_pylist(), located.column("file_id").to_pylist(), strict=True))
    partition = dict(
        zip(located.column("record_key").to_pylist(), located.column("partition_path").to_pylist(), strict=True)
    )
    for key, name, city in zip(
        keys.to_pylist(),
        theirs.column("_hoodie_file_name").to_pylist(),
        theirs.column("_hoodie_partition_path").to_pylist(),
        strict=True,
    ):
        assert where[key] == _file_group(name), (key, name)
        assert partition[key] == city
