"""Writers with ``hoodie.metadata.index.bloom.filter.enable=true`` keep the metadata table's
``bloom_filters`` partition in step: one record per base file holding its footer's filter, built at
its own init instant on an existing table, tombstones when a clean deletes files, dropped when
disabled; the bloom index with ``hoodie.bloom.index.use.metadata=true`` tags from it without
opening a data file for keys the filters rule out, on local disk and on S3.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.contracts.indexing.footer import BLOOM_FILTER_KEY
from hudi_framework.index.tagging import tag_locations
from hudi_framework.log.blocks import HeaderKey, HFileBlock
from hudi_framework.log.hfile_records import HFileRecordDecoder
from hudi_framework.log.reader import read_log_bytes
from hudi_framework.metadata.index_source import metadata_index_source
from hudi_framework.metadata.reader import MetadataTable, record_index_file_group
from hudi_framework.metadata.validate import check_in_sync
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from hudi_index_bloom.index import BloomIndex, BloomIndexOptions, GlobalBloomIndex
from tests.acceptance.test_metadata_table_write import _mdt_timeline
from tests.oracle.test_bloom_metadata import incoming, located, opened_data_files

BLOOM_ON = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.index.bloom.filter.enable": "true",
    "hoodie.index.type": "BLOOM",
    "hoodie.bloom.index.use.metadata": "true",
    "hoodie.parquet.small.file.limit": "0",
}
CITIES = ("sf", "ny", "la")


def _rows(keys: range, ts: int) -> pa.Table:
    return pa.table(
        {
            "id": [f"k{i:03d}" for i in keys],
            "city": [CITIES[i % 3] for i in keys],
            "ts": pa.array([ts] * len(keys), pa.int64()),
        }
    )


def _client(uri: str, table_type: str, options: dict[str, str], storage_options: Any = None) -> WriteClient:
    config = new_table_config(
        "t", version=9, table_type=table_type, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(uri, config, storage_options=storage_options)
    return WriteClient(table, HudiSettings.from_hoodie_options(options, env=False))


def _check_blooms(table: HudiTable) -> int:
    """Every latest base file has exactly its footer's filter in ``bloom_filters``; returns how many."""
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    check_in_sync(mdt, table.timeline, "bloom_filters")
    files = [(s.partition_path, s.base_file_name, s.base_file_key) for s in table.latest_file_slices()]
    files = [f for f in files if f[1] is not None]
    blooms = mdt.bloom_filters([(p, n) for p, n, _ in files if n])
    for partition, name, key in files:
        with table.storage.open_input(str(key)) as source:
            footer = pq.ParquetFile(source).metadata.metadata[BLOOM_FILTER_KEY]
        assert blooms[(partition, name)].serialize().encode("ascii") == footer, key
    return len(files)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_bloom_filters_partition_follows_every_write(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    client = _client(str(path), table_type, BLOOM_ON)
    client.insert(_rows(range(0, 30), ts=1))
    table = HudiTable.open(str(path))
    # Apache Hudi's order, each at its own init instant: files, column_stats, bloom_filters, partition_stats.
    assert table.properties["hoodie.table.metadata.partitions"] == "bloom_filters,column_stats,files,partition_stats"
    mdt_instants = [(i.requested_time, i.action) for i in _mdt_timeline(path).completed()]
    assert mdt_instants[:4] == [(f"0000000000000000{n}", Action.DELTA_COMMIT) for n in range(4)]
    groups = sorted(p.name for p in (path / ".hoodie" / "metadata" / "bloom_filters").iterdir())
    assert [g for g in groups if g.startswith(".bloom-filters-") and "00000000000000002" in g] == [
        f".bloom-filters-000{i}-0_00000000000000002.log.1_0-0-0" for i in range(4)
    ]
    assert _check_blooms(table) == 3

    client.upsert(_rows(range(20, 40), ts=2))  # updates (COW: new base files; MOR: logs) and inserts
    table = HudiTable.open(str(path))
    assert _check_blooms(table) == 6

    # Each record sits in the file group its key routes to, with Apache Hudi's record shape.
    for log in (path / ".hoodie" / "metadata" / "bloom_filters").glob(".bloom-filters-*.log.*"):
        for block in read_log_bytes(log.read_bytes(), path=str(log)):
            if not isinstance(block, HFileBlock):
                continue
            decoded = HFileRecordDecoder(str(block.header[HeaderKey.SCHEMA])).decode(block.content)
            for row in decoded.to_pylist():
                assert row["type"] == 4
                meta = row["BloomFilterMetadata"]
                assert meta["type"] == "DYNAMIC_V0"
                assert meta["isDeleted"] is False
                assert meta["timestamp"] in log.name
                index = int(log.name.split("-")[2])
                assert record_index_file_group(row["key"], 4) == index

    # The bloom index tags from the MDT: equal to footers, and no data file opened for new keys.
    settings = client.session
    source = metadata_index_source(settings.index, table.storage, table.properties, table.timeline)
    assert source is not None
    assert (source.bloom_filters, source.column_stats) == (True, True)
    batch = pa.concat_tables([incoming(range(0, 5)), incoming(range(100, 120))])
    slices = table.latest_file_slices()
    ours = tag_locations(settings.index, batch, slices, table.storage, metadata=source)
    assert located(ours) == located(tag_locations(BloomIndex(BloomIndexOptions()), batch, slices, table.storage))
    # The global bloom index too (every file of the table is a candidate).
    global_mdt = GlobalBloomIndex(BloomIndexOptions(use_metadata=True))
    global_footers = GlobalBloomIndex(BloomIndexOptions())
    got = tag_locations(global_mdt, batch, slices, table.storage, metadata=source)
    assert located(got) == located(tag_locations(global_footers, batch, slices, table.storage))
    # Ranges from column_stats, filters from bloom_filters: no data file is opened for new keys.
    with opened_data_files(table) as opened:
        fresh = tag_locations(settings.index, incoming(range(200, 260)), slices, table.storage, metadata=source)
    assert fresh.column("_hoodie_location_file_id").null_count == 60
    assert opened == []

    # Upserts through the write client tag from the MDT and land right.
    client.upsert(_rows(range(0, 5), ts=3))
    got = read_table(HudiTable.open(str(path))).select(["id", "ts"]).to_pylist()
    assert len(got) == 40
    assert sorted(r["id"] for r in got if r["ts"] == 3) == [f"k{i:03d}" for i in range(5)]


def test_clean_writes_tombstones_and_disable_drops(tmp_path: Path) -> None:
    path = tmp_path / "t"
    options = {**BLOOM_ON, "hoodie.clean.commits.retained": "1", "hoodie.clean.automatic": "false"}
    client = _client(str(path), "COPY_ON_WRITE", options)
    client.insert(_rows(range(0, 9), ts=1))
    first = {s.base_file_name for s in HudiTable.open(str(path)).latest_file_slices()}
    client.upsert(_rows(range(0, 9), ts=2))
    client.upsert(_rows(range(0, 9), ts=3))
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    assert set(mdt.bloom_filters([("sf", n) for n in first if n]).keys())  # the first files are still indexed
    cleaner, host = open_table_service(table, client.session.settings, "clean")
    cleaner.run(host, force=True)  # type: ignore[attr-defined]
    table = HudiTable.open(str(path))
    (clean,) = table.timeline.completed({Action.CLEAN})
    assert clean.requested_time in {i.requested_time for i in _mdt_timeline(path).completed()}
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    gone = [(p, n) for p in CITIES for n in first if n and not (path / p / n).exists()]
    assert gone
    assert mdt.bloom_filters(gone) == {}
    assert _check_blooms(table) == 3

    # MDT compaction keeps every live filter and drops the tombstones.
    compact_now = {**options, "hoodie.metadata.compact.max.delta.commits": "1"}
    WriteClient(table, HudiSettings.from_hoodie_options(compact_now, env=False)).upsert(_rows(range(0, 3), ts=4))
    table = HudiTable.open(str(path))
    assert _mdt_timeline(path).completed({Action.COMMIT}), "the MDT was compacted"
    assert list((path / ".hoodie" / "metadata" / "bloom_filters").glob("bloom-filters-*.hfile"))
    mdt = MetadataTable.open(table.storage, table.properties)
    assert mdt is not None
    assert mdt.bloom_filters(gone) == {}
    assert _check_blooms(table) == 3

    # Disabled: the partition is dropped (properties first, then its files).
    off = {**options, "hoodie.metadata.index.bloom.filter.enable": "false", "hoodie.bloom.index.use.metadata": "false"}
    WriteClient(table, HudiSettings.from_hoodie_options(off, env=False)).upsert(_rows(range(0, 3), ts=5))
    assert (
        HudiTable.open(str(path)).properties["hoodie.table.metadata.partitions"] == "column_stats,files,partition_stats"
    )
    assert not [p for p in (path / ".hoodie" / "metadata").rglob("*bloom*") if p.is_file()]
