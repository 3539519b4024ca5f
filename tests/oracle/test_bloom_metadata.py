"""The bloom index with ``hoodie.bloom.index.use.metadata=true`` on tables Apache Hudi writes with
``hoodie.metadata.index.bloom.filter.enable=true``: key ranges come from the metadata table's
``column_stats`` and bloom filters from its ``bloom_filters``, so tagging opens no data-file footer;
only files holding a key are opened, for the exact check. Tagging equals footer-based tagging.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import pyarrow as pa
import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.config import HudiSettings
from hudi_framework.contracts.index import LOCATION_FILE_ID, PARTITION_PATH, RECORD_KEY
from hudi_framework.index.tagging import tag_locations
from hudi_framework.metadata.index_source import metadata_index_source
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from hudi_index_bloom.index import BloomIndex, BloomIndexOptions
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import CITIES, DATA_COLUMNS, KEY, apache_hudi_options, trip_rows

pytestmark = pytest.mark.oracle

#: A new file group per insert (no small-file packing): several base files per partition, so
#: ranges prune.
BLOOM_MDT_OPTIONS = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.index.bloom.filter.enable": "true",
    "hoodie.metadata.index.column.stats.enable": "true",
    "hoodie.parquet.small.file.limit": "0",
}


def incoming(keys: range) -> pa.Table:
    """Keys as the index gets them (``_hoodie_record_key``, ``_hoodie_partition_path``)."""
    return pa.table(
        {
            RECORD_KEY: pa.array([f"k{i:03d}" for i in keys], pa.string()),
            PARTITION_PATH: pa.array([CITIES[i % len(CITIES)] for i in keys], pa.string()),
        }
    )


@contextmanager
def opened_data_files(table: HudiTable) -> Iterator[list[str]]:
    """Data files (outside ``.hoodie``) the table's storage opens while the context is active."""
    opened: list[str] = []
    original = table.storage.open_input

    def recording(key: str) -> Any:
        if not key.startswith(".hoodie"):
            opened.append(key)
        return original(key)

    with mock.patch.object(table.storage, "open_input", recording):
        yield opened


def bloom_mdt_table(apache_hudi: ApacheHudi, path: Path, table_type: str) -> HudiTable:
    """Apache Hudi's table of 2 inserts of 20 keys (3 partitions, 6 base files) with bloom_filters."""
    options = {**apache_hudi_options(path.name, table_type, 9), **BLOOM_MDT_OPTIONS}
    for start in (0, 20):
        apache_hudi.write(path, trip_rows(range(start, start + 20), ts=1), options, "insert")
    return HudiTable.open(str(path))


def located(tagged: pa.Table) -> list[tuple[str, str | None]]:
    rows = zip(tagged.column(RECORD_KEY).to_pylist(), tagged.column(LOCATION_FILE_ID).to_pylist(), strict=True)
    return sorted(rows)


@pytest.mark.oracle_full  # the default subset keeps Apache Hudi tagging from our bloom_filters (below)
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_tagging_from_the_metadata_table_opens_no_footer(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str
) -> None:
    path = tmp_path / f"bloom_mdt_{table_type.lower()}"
    oracle_tally.tables.add(str(path))
    table = bloom_mdt_table(apache_hudi, path, table_type)
    listed = set(table.properties["hoodie.table.metadata.partitions"].split(","))
    assert {"files", "bloom_filters", "column_stats"} <= listed
    slices = table.latest_file_slices()
    assert len([s for s in slices if s.base_file_key]) == 6

    from_mdt = BloomIndex(BloomIndexOptions(use_metadata=True))
    source = metadata_index_source(from_mdt, table.storage, table.properties, table.timeline)
    assert source is not None
    assert (source.bloom_filters, source.column_stats) == (True, True)
    footers = BloomIndex(BloomIndexOptions())

    # Keys stored in 3 of the 6 files (k000-k009 of the first insert) and 10 new ones.
    batch = pa.concat_tables([incoming(range(0, 10)), incoming(range(60, 70))])
    with opened_data_files(table) as opened:
        ours = tag_locations(from_mdt, batch, slices, table.storage, metadata=source)
    expected = tag_locations(footers, batch, slices, table.storage)
    assert located(ours) == located(expected)
    assert sum(1 for _, f in located(ours) if f is not None) == 10
    holding = {s.base_file_key for s in slices if s.file_id in {f for _, f in located(ours) if f}}
    # Only the files holding a key are opened (their key column), each once; no footer read elsewhere.
    assert sorted(opened) == sorted(holding)
    compare_reads(
        oracle_tally,
        f"{table_type} bloom tagging from the metadata table",
        ours,
        expected,
        key=RECORD_KEY,
        data_columns=(RECORD_KEY, PARTITION_PATH, LOCATION_FILE_ID),
        meta_columns=(),
    )

    # Only new keys: no data file opened at all.
    with opened_data_files(table) as opened:
        fresh = tag_locations(from_mdt, incoming(range(100, 160)), slices, table.storage, metadata=source)
    assert fresh.column(LOCATION_FILE_ID).null_count == 60
    assert opened == []


def test_apache_hudis_bloom_index_tags_from_our_bloom_filters(
    apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path
) -> None:
    """We write the table and its ``bloom_filters``; Apache Hudi upserts with its bloom index reading
    them (``hoodie.bloom.index.use.metadata=true``): every stored key is updated, none duplicated."""
    path = tmp_path / "ours_bloom_mdt"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        path.name, version=9, table_type="COPY_ON_WRITE", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    ours = {**BLOOM_MDT_OPTIONS, "hoodie.metadata.index.column.stats.enable": "false", "hoodie.index.type": "BLOOM"}
    client = WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(ours, env=False))
    for start in (0, 20, 40):
        client.insert(trip_rows(range(start, start + 20), ts=1))
    table = HudiTable.open(str(path))
    assert "bloom_filters" in table.properties["hoodie.table.metadata.partitions"].split(",")

    theirs = {
        **apache_hudi_options(path.name, "COPY_ON_WRITE", 9),
        **BLOOM_MDT_OPTIONS,
        "hoodie.index.type": "BLOOM",
        "hoodie.bloom.index.use.metadata": "true",
    }
    # Updates of keys in 6 of the 9 files and 10 new keys.
    apache_hudi.write(
        path, pa.concat_tables([trip_rows(range(10, 50, 2), ts=2), trip_rows(range(60, 70), ts=2)]), theirs
    )
    read = apache_hudi.read(path)
    keys = read.column("id").to_pylist()
    assert len(keys) == len(set(keys)) == 70, "no stored key was taken for a new one"
    expected = {f"k{i:03d}": 2 if (10 <= i < 50 and i % 2 == 0) or i >= 60 else 1 for i in range(70)}
    assert dict(zip(keys, read.column("ts").to_pylist(), strict=True)) == expected
    compare_reads(
        oracle_tally,
        "Apache Hudi's upsert tagged from our bloom_filters",
        read_table(HudiTable.open(str(path))),
        read,
        key=KEY,
        data_columns=DATA_COLUMNS,
    )
