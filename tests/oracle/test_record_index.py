"""The record-level index against Apache Hudi 1.2: tables written with ``hoodie.index.type=RECORD_INDEX``.

* Apache Hudi writes the table and its ``record_index``: tagging from that index equals tagging by
  reading every base file (our ``global-simple``), and opens no data file;
* we upsert into Apache Hudi's table with ``RECORD_INDEX`` (updates, new keys, a key arriving with
  another partition value, which the record index keeps in its partition): Apache Hudi reads what we
  read, and no key is stored twice;
* Apache Hudi then upserts into the table after our write with its ``RECORD_INDEX``: still no key
  stored twice, and both readers agree.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

from hudi_framework import HudiTable, read_table
from hudi_framework.config import HudiSettings
from hudi_framework.contracts.index import LOCATION_FILE_ID, LOCATION_PARTITION, PARTITION_PATH, RECORD_KEY
from hudi_framework.index.tagging import tag_locations
from hudi_framework.metadata.record_index_locator import open_key_locator
from hudi_framework.write.client import WriteClient
from hudi_index_record import RecordLevelIndex
from hudi_index_simple import GlobalSimpleIndex, SimpleIndexOptions
from hudi_storage_local.backend import LocalStorageBackend
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import DATA_COLUMNS, KEY, SEQUENCE, apache_hudi_options, trip_rows

pytestmark = pytest.mark.oracle

RLI_OPTIONS = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
    "hoodie.index.type": "RECORD_INDEX",
}
#: Our writer's options: the record-level index, the metadata table on.
OUR_OPTIONS = {"hoodie.metadata.enable": "true", "hoodie.index.type": "RECORD_INDEX"}
TABLE_TYPES = ("MERGE_ON_READ", pytest.param("COPY_ON_WRITE", marks=pytest.mark.oracle_full))
_TAGGED = [RECORD_KEY, PARTITION_PATH, LOCATION_PARTITION, LOCATION_FILE_ID]


def _tagged(table: pa.Table) -> list[tuple[str, ...]]:
    return sorted(tuple(str(r[c]) for c in _TAGGED) for r in table.select(_TAGGED).to_pylist())


def _our_upsert() -> pa.Table:
    """Updates of stored keys, new keys, and k031 arriving with another city."""
    moved = trip_rows(range(31, 32), ts=6)
    moved = moved.set_column(1, "city", pa.array(["zz"]))
    return pa.concat_tables([trip_rows(range(10, 20), ts=6), trip_rows(range(60, 66), ts=6), moved])


def _assert_keys_once(table: pa.Table) -> None:
    keys = table.column(KEY).to_pylist()
    assert len(keys) == len(set(keys)), sorted(k for k in set(keys) if keys.count(k) > 1)


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_record_index_both_ways(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path, table_type: str) -> None:
    path = tmp_path / f"rli_{table_type.lower()}"
    oracle_tally.tables.add(str(path))
    options = {**apache_hudi_options(path.name, table_type, 9), **RLI_OPTIONS}
    for operation, rows in SEQUENCE:
        apache_hudi.write(path, rows, options, operation)

    # Apache Hudi's record_index tags as reading every base file does.
    table = HudiTable.open(str(path))
    storage = LocalStorageBackend(str(path))
    assert open_key_locator(storage, "record_index") is not None
    stored = read_table(table)
    incoming = pa.table(
        {
            RECORD_KEY: pa.concat_arrays([stored.column(KEY).combine_chunks(), pa.array(["k900"])]),
            PARTITION_PATH: pa.concat_arrays([stored.column("city").combine_chunks(), pa.array(["sf"])]),
        }
    )
    slices = table.latest_file_slices()
    keyed = tag_locations(RecordLevelIndex(), incoming, slices, storage)
    by_files = tag_locations(
        GlobalSimpleIndex(SimpleIndexOptions(update_partition_path=False)), incoming, slices, storage
    )
    assert _tagged(keyed) == _tagged(by_files)
    assert pc.sum(pc.is_valid(keyed.column(LOCATION_FILE_ID))).as_py() == stored.num_rows

    # We upsert with RECORD_INDEX; Apache Hudi reads what we read.
    settings = HudiSettings.from_hoodie_options(OUR_OPTIONS, env=False)
    WriteClient(table, settings).upsert(_our_upsert())
    ours = read_table(HudiTable.open(str(path)))
    _assert_keys_once(ours)
    assert ours.filter(pc.equal(ours.column(KEY), "k031")).column("_hoodie_partition_path").to_pylist() == ["ny"]
    compare_reads(
        oracle_tally, f"{table_type} RLI table, upserted by us", ours, apache_hudi.read(path),
        key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip

    # Apache Hudi upserts after our write with its RECORD_INDEX: no key twice.
    apache_hudi.write(
        path, pa.concat_tables([trip_rows(range(12, 16), ts=7), trip_rows(range(62, 70), ts=7)]), options, "upsert"
    )
    theirs = apache_hudi.read(path)
    _assert_keys_once(theirs)
    compare_reads(
        oracle_tally, f"{table_type} RLI table, upserted by us then Apache Hudi", read_table(HudiTable.open(str(path))),
        theirs, key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
