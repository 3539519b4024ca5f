"""The record-level index against Apache Hudi 1.2: tables written with ``hoodie.index.type=RECORD_INDEX``.

* Apache Hudi writes the table and its ``record_index``: tagging from that index equals tagging by
  reading every base file (our ``global-simple``), and opens no data file;
* we upsert into Apache Hudi's table with ``RECORD_INDEX`` and ``record_index`` kept (updates, new
  keys, a deleted key coming back), and the index we wrote holds every key where Apache Hudi reads
  it: Apache Hudi reads what we read, and no key is stored twice;
* Apache Hudi then upserts into the table with its ``RECORD_INDEX``, looking keys up in the
  ``record_index`` we wrote: still no key stored twice, and both readers agree.
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
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.metadata.record_index_locator import locator_for, open_key_locator
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
#: Our writer's options: the same.
OUR_OPTIONS = RLI_OPTIONS
#: (table type, Apache Hudi's writes before ours): the default case inserts; the full matrix runs the
#: whole shared sequence (with its deletes) on both table types.
CASES = (
    ("MERGE_ON_READ", (SEQUENCE[0],)),
    pytest.param("MERGE_ON_READ", SEQUENCE, marks=pytest.mark.oracle_full, id="MERGE_ON_READ-sequence"),
    pytest.param("COPY_ON_WRITE", SEQUENCE, marks=pytest.mark.oracle_full, id="COPY_ON_WRITE-sequence"),
)
_TAGGED = [RECORD_KEY, PARTITION_PATH, LOCATION_PARTITION, LOCATION_FILE_ID]


def _tagged(table: pa.Table) -> list[tuple[str, ...]]:
    return sorted(tuple(str(r[c]) for c in _TAGGED) for r in table.select(_TAGGED).to_pylist())


def _our_upsert() -> pa.Table:
    """Updates of stored keys, new keys, and a deleted key (k021) coming back."""
    return pa.concat_tables([trip_rows(range(10, 22), ts=6), trip_rows(range(60, 66), ts=6)])


def _assert_keys_once(table: pa.Table) -> None:
    keys = table.column(KEY).to_pylist()
    assert len(keys) == len(set(keys)), sorted(k for k in set(keys) if keys.count(k) > 1)


def _assert_index_holds(path: Path, theirs: pa.Table) -> None:
    """The record index holds exactly the keys Apache Hudi reads, each in the file group it reads it from."""
    table = HudiTable.open(str(path))
    mdt = MetadataTable.open(LocalStorageBackend(str(path)), table.properties)
    assert mdt is not None
    found = mdt.record_index(pa.concat_arrays([theirs.column(KEY).combine_chunks(), pa.array(["k900"])]))
    where = {r["record_key"]: (r["partition_path"], r["file_id"]) for r in found.to_pylist()}
    assert set(where) == set(theirs.column(KEY).to_pylist())
    for key, name, partition in zip(
        theirs.column(KEY).to_pylist(),
        theirs.column("_hoodie_file_name").to_pylist(),
        theirs.column("_hoodie_partition_path").to_pylist(),
        strict=True,
    ):
        assert where[key] == (partition, name.lstrip(".").split("_", 1)[0]), (key, name, where[key])


@pytest.mark.parametrize(("table_type", "writes"), CASES)
def test_record_index_both_ways(
    apache_hudi: ApacheHudi,
    oracle_tally: Tally,
    tmp_path: Path,
    table_type: str,
    writes: tuple[tuple[str, pa.Table], ...],
) -> None:
    path = tmp_path / f"rli_{table_type.lower()}"
    oracle_tally.tables.add(str(path))
    options = {**apache_hudi_options(path.name, table_type, 9), **RLI_OPTIONS}
    for operation, rows in writes:
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
    keyed = tag_locations(
        RecordLevelIndex(), incoming, slices, storage, locator=locator_for(RecordLevelIndex(), storage)
    )
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
    theirs = apache_hudi.read(path)
    _assert_index_holds(path, theirs)
    compare_reads(
        oracle_tally, f"{table_type} RLI table, upserted by us", ours, theirs,
        key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip

    # Apache Hudi upserts after our write with its RECORD_INDEX: no key twice.
    apache_hudi.write(
        path, pa.concat_tables([trip_rows(range(12, 16), ts=7), trip_rows(range(62, 70), ts=7)]), options, "upsert"
    )
    theirs = apache_hudi.read(path)
    _assert_keys_once(theirs)
    _assert_index_holds(path, theirs)
    compare_reads(
        oracle_tally, f"{table_type} RLI table, upserted by us then Apache Hudi", read_table(HudiTable.open(str(path))),
        theirs, key=KEY, data_columns=DATA_COLUMNS,
    )  # fmt: skip
