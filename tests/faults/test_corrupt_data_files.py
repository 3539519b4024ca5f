"""Damaged base files, on local disk and on S3: every read of one fails with a
:class:`~hudi_framework.errors.CorruptDataFileError` naming the file (its location and its path in the
table) with the reader's own error chained, whichever code reads it: snapshot and read-optimized
reads, the index lookup of an upsert (simple: the key column; bloom: footer and key column), the
copy-on-write rewrite of a file group, and compaction. A failed write or compaction leaves the table
exactly as it was.

Three kinds of damage: the file cut in half (no footer), overwritten with random bytes, and a data
page overwritten in place (footer intact: the key column reads, the first column does not).
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import BloomFilterFormatError, CompactionExecutionError, CorruptDataFileError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place

#: On S3 only the input stream differs from local disk, not the decoding: one damage there suffices
#: (each S3 case costs seconds of moto round trips).
ONE_DAMAGE_ON_S3 = pytest.mark.s3_cases(how="garbage")


FIRST = pa.table({"id": ["a", "b", "c"], "city": ["sf", "sf", "ny"], "ts": [1, 1, 1], "v": ["x" * 40] * 3})
DAMAGES = ["truncated", "garbage", "page"]


def _create(place: Place, table_type: str = "COPY_ON_WRITE", index: str = "SIMPLE") -> tuple[HudiTable, HudiSettings]:
    config = new_table_config(
        "t", table_type=table_type, record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    settings = HudiSettings.from_hoodie_options({"hoodie.index.type": index})
    WriteClient(table, settings).insert(FIRST)
    return table, settings


def _sf_base_file(table: HudiTable) -> str:
    (key,) = [s.base_file_key for s in table.reload().latest_file_slices() if s.partition_path == "sf"]
    assert key is not None
    return key


def damage(storage: StorageBackend, key: str, how: str) -> None:
    data = storage.read(key)
    if how == "truncated":
        damaged = data[: len(data) // 2]
    elif how == "garbage":
        damaged = os.urandom(len(data))
    else:  # the first column's data page: its header no longer decodes, the footer still does
        damaged = data[:4] + bytes(b ^ 0x5A for b in data[4:64]) + data[64:]
    storage.write(key, damaged)


def _files(storage: StorageBackend) -> dict[str, bytes]:
    return {f.key: storage.read(f.key) for f in storage.list("", recursive=True)}


def assert_names_the_file(error: BaseException, storage: StorageBackend, key: str) -> CorruptDataFileError:
    """``error`` is (or was caused by) a CorruptDataFileError for ``key``, with the reader's error chained."""
    found = error if isinstance(error, CorruptDataFileError) else error.__cause__
    assert isinstance(found, CorruptDataFileError), repr(error)
    assert found.key == key
    assert found.path == storage.uri(key)
    assert storage.uri(key) in str(error)
    cause = found.__cause__
    assert isinstance(cause, (pa.ArrowException, OSError, BloomFilterFormatError)), repr(cause)
    return found


def _unchanged(table: HudiTable, attempt: Callable[[], object], key: str) -> CorruptDataFileError:
    storage = table.storage
    before = _files(storage)
    with pytest.raises((CorruptDataFileError, CompactionExecutionError)) as info:
        attempt()
    found = assert_names_the_file(info.value, storage, key)
    after = _files(storage)
    assert sorted(after) == sorted(before), "files appeared or vanished"
    assert [k for k in before if before[k] != after[k]] == [], "files changed"
    return found


@ONE_DAMAGE_ON_S3
@pytest.mark.parametrize("how", DAMAGES)
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_reads_name_the_damaged_file(place: Place, table_type: str, how: str) -> None:
    table, _ = _create(place, table_type)
    key = _sf_base_file(table)
    damage(table.storage, key, how)
    for query in ("snapshot", "read_optimized"):
        with pytest.raises(CorruptDataFileError) as info:
            read_table(HudiTable.open(place.uri, storage_options=place.options), query_type=query)
        assert_names_the_file(info.value, table.storage, key)


@ONE_DAMAGE_ON_S3
@pytest.mark.parametrize("how", ["truncated", "garbage"])
@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM", "GLOBAL_SIMPLE"])
def test_index_lookups_name_the_damaged_file(place: Place, index: str, how: str) -> None:
    """The upsert's index reads the file's footer (bloom) or key column (simple) before the write starts."""
    table, settings = _create(place, index=index)
    key = _sf_base_file(table)
    damage(table.storage, key, how)
    update = pa.table({"id": ["a"], "city": ["sf"], "ts": [2], "v": ["y"]})
    _unchanged(table, lambda: WriteClient(table.reload(), settings).upsert(update), key)


def test_a_damaged_bloom_filter_names_the_file(place: Place) -> None:
    """The footer decodes but the bloom filter in it does not. (A small filter in a file of many rows:
    only then does probing it pay, see ``probe_pays``.)"""
    config = new_table_config("t", record_key_fields=["id"], ordering_fields=["ts"])
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    settings = HudiSettings.from_hoodie_options({"hoodie.index.type": "BLOOM", "hoodie.index.bloom.num_entries": "100"})
    n = 3000
    WriteClient(table, settings).insert(pa.table({"id": [f"k{i:05}" for i in range(n)], "ts": [1] * n}))
    (file_slice,) = table.reload().latest_file_slices()
    key = file_slice.base_file_key
    assert key is not None
    data = table.storage.read(key)
    with table.storage.open_input(key) as f:
        serialised = pq.ParquetFile(f).metadata.metadata[b"org.apache.hudi.bloomfilter"]
    at = data.index(serialised[:32])
    table.storage.write(key, data[:at] + b"*" * 32 + data[at + 32 :])  # not base64 any more
    update = pa.table({"id": ["k00001"], "ts": [2]})
    error = _unchanged(table, lambda: WriteClient(table.reload(), settings).upsert(update), key)
    assert isinstance(error.__cause__, BloomFilterFormatError)


@pytest.mark.parametrize("operation", ["upsert", "insert"])
def test_rewrites_name_the_damaged_file(place: Place, operation: str) -> None:
    """The key column reads (the index finds ``a``; an insert tops up the small file without a lookup),
    then rewriting the file group reads every column."""
    table, settings = _create(place)
    key = _sf_base_file(table)
    damage(table.storage, key, "page")
    rows = pa.table({"id": ["a" if operation == "upsert" else "d"], "city": ["sf"], "ts": [2], "v": ["y"]})
    client = WriteClient(table.reload(), settings)
    _unchanged(table, lambda: client.write(rows, operation), key)
    assert not table.reload().timeline.pending(), "the failed write left no instant behind"


@ONE_DAMAGE_ON_S3
@pytest.mark.parametrize("how", DAMAGES)
def test_compaction_names_the_damaged_file(place: Place, how: str) -> None:
    table, settings = _create(place, "MERGE_ON_READ")
    WriteClient(table.reload(), settings).upsert(pa.table({"id": ["a"], "city": ["sf"], "ts": [2], "v": ["y"]}))
    key = _sf_base_file(table)
    damage(table.storage, key, how)
    service, host = open_table_service(table.reload(), settings, "compaction")
    planned = service.schedule(host)
    assert planned is not None
    before = _files(table.storage)
    with pytest.raises(CompactionExecutionError) as info:
        service.execute(host, planned)
    assert_names_the_file(info.value, table.storage, key)
    after = _files(table.storage)
    # The plan stays requested, to run again once the file is repaired; nothing else changed.
    assert sorted(after) == sorted(before)
