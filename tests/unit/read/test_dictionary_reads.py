"""Few-valued string columns read as dictionaries: the same rows as a plain read, wherever they go."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.errors import LogBlockDecodeError
from hudi_framework.log import BlockType, DataBlock, decode_block, encode_block
from hudi_framework.model.parquet_dictionaries import string_dictionary_columns
from hudi_framework.model.schema import META_FIELDS, arrow_to_avro, with_meta_fields
from hudi_framework.read import CommitTimeFilter, ReadTask, read_task
from hudi_framework.read.conform import conform_array
from hudi_framework.testing.memory_storage import MemoryStorageBackend

ROWS = 3000
SCHEMA = pa.schema(
    [
        ("_hoodie_commit_time", pa.string()),
        ("_hoodie_file_name", pa.string()),
        ("status", pa.string()),
        ("id", pa.string()),
        ("amount", pa.int64()),
    ]
)


def _commit_time(i: int) -> str:
    return "20250101000000000" if i < 2000 else "20250102000000000"


def _rows() -> pa.Table:
    n = np.arange(ROWS)
    status = [None if i % 7 == 0 else ["new", "paid", "shipped"][i % 3] for i in range(ROWS)]
    return pa.table(
        {
            # Two commit times, in separate row groups' worth of rows, and one null.
            "_hoodie_commit_time": [None if i == 5 else _commit_time(i) for i in range(ROWS)],
            "_hoodie_file_name": ["f1-0_0-0-0_20250101000000000.parquet"] * ROWS,
            "status": status,
            "id": [f"key-{i:06d}" for i in range(ROWS)],
            "amount": pa.array(n, pa.int64()),
        },
        schema=SCHEMA,
    )  # fmt: skip


def _storage_with_file(rows: pa.Table) -> MemoryStorageBackend:
    storage = MemoryStorageBackend("memory://bucket/t")
    sink = pa.BufferOutputStream()
    # Unique values written plain (as our writer and Apache Hudi's do past a dictionary page's size).
    pq.write_table(
        rows, sink, row_group_size=1000, use_dictionary=["_hoodie_commit_time", "_hoodie_file_name", "status"]
    )
    storage.write("p/f1.parquet", sink.getvalue().to_pybytes())
    return storage


def _task(**kwargs: object) -> ReadTask:
    return ReadTask(file_key="p/f1.parquet", partition_path="p", partition_values=(), schema=SCHEMA, **kwargs)  # type: ignore[arg-type]


def test_small_dictionary_columns_are_chosen_and_unique_ones_are_not() -> None:
    storage = _storage_with_file(_rows())
    with storage.open_input("p/f1.parquet") as source:
        parquet = pq.ParquetFile(source)
        chosen = string_dictionary_columns(parquet.metadata, parquet.schema_arrow, list(SCHEMA))
    assert chosen == ["_hoodie_commit_time", "_hoodie_file_name", "status"]


def test_read_task_returns_plain_strings_equal_to_a_plain_read() -> None:
    rows = _rows()
    storage = _storage_with_file(rows)
    batches = list(read_task(_task(), storage, batch_size=700))
    assert all(batch.schema.equals(SCHEMA) for batch in batches)
    assert pa.Table.from_batches(batches).equals(rows)


def test_read_task_keeps_dictionaries_when_asked_with_the_same_values() -> None:
    rows = _rows()
    storage = _storage_with_file(rows)
    batches = list(read_task(_task(), storage, batch_size=700, keep_dictionaries=True))
    types = {field.name: field.type for field in batches[0].schema}
    assert pa.types.is_dictionary(types["_hoodie_file_name"])
    assert pa.types.is_dictionary(types["status"])
    assert (types["id"], types["amount"]) == (pa.string(), pa.int64())
    decoded = [
        pa.RecordBatch.from_arrays(
            [conform_array(c, f.type) for c, f in zip(b.columns, SCHEMA, strict=True)], schema=SCHEMA
        )
        for b in batches
    ]
    assert pa.Table.from_batches(decoded).equals(rows)


def test_commit_time_filter_on_a_dictionary_column_keeps_the_same_rows() -> None:
    rows = _rows()
    storage = _storage_with_file(rows)
    commits = CommitTimeFilter(instants=frozenset({"20250102000000000"}))
    got = pa.Table.from_batches(list(read_task(_task(commit_time_filter=commits), storage, batch_size=700)))
    expected = rows.filter(commits.mask(rows.column("_hoodie_commit_time")))
    assert got.num_rows == ROWS - 2000
    assert got.equals(expected)


def test_one_value_dictionary_decodes_to_its_value_nulls_kept() -> None:
    one = pa.DictionaryArray.from_arrays(pa.array([0, 0, 0, 0], pa.int32()), pa.array(["x"]))
    assert conform_array(one.slice(1), pa.string()).to_pylist() == ["x", "x", "x"]
    with_null = pa.DictionaryArray.from_arrays(pa.array([0, None, 0], pa.int32()), pa.array(["x"]))
    assert conform_array(with_null, pa.string()).to_pylist() == ["x", None, "x"]
    null_value = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), pa.array([None], pa.string()))
    assert conform_array(null_value, pa.string()).to_pylist() == [None, None]


def _parquet_content(encoded: bytes) -> pq.FileMetaData:
    start, end = encoded.index(b"PAR1"), encoded.rindex(b"PAR1") + 4
    return pq.ParquetFile(pa.BufferReader(encoded[start:end])).metadata


def test_parquet_log_block_writes_near_unique_columns_without_dictionary() -> None:
    schema = with_meta_fields(arrow_to_avro(pa.schema([("id", pa.string()), ("status", pa.string())]), "t"))
    n = 5000
    meta = {
        "_hoodie_commit_time": ["20250101000000000"] * n,
        "_hoodie_commit_seqno": [f"20250101000000000_0_{i}" for i in range(n)],
        "_hoodie_record_key": [f"key-{i:06d}" for i in range(n)],
        "_hoodie_partition_path": ["p"] * n,
        "_hoodie_file_name": ["f1-0"] * n,
    }
    records = pa.table({**meta, "id": meta["_hoodie_record_key"], "status": [["a", "b"][i % 2] for i in range(n)]})
    block = DataBlock.create(
        records, instant_time="20250101000000000", schema=schema, block_type=BlockType.PARQUET_DATA
    )
    encoded = encode_block(block)
    metadata = _parquet_content(encoded)
    names = [metadata.row_group(0).column(i).path_in_schema for i in range(metadata.num_columns)]
    has_dictionary = {name: metadata.row_group(0).column(i).has_dictionary_page for i, name in enumerate(names)}
    plain = {"_hoodie_record_key", "_hoodie_commit_seqno", "id"}
    assert {name for name, has in has_dictionary.items() if not has} == plain
    assert decode_block(encoded) == block
    assert set(META_FIELDS) <= set(names)


def test_parquet_log_block_pages_carry_checksums_that_catch_flipped_value_bytes() -> None:
    # A flip inside a page's values decodes silently without a checksum (no codec to trip over).
    schema = with_meta_fields(arrow_to_avro(pa.schema([("id", pa.string())]), "t"))
    n = 200
    meta = {name: [f"{name}-{i:04d}" for i in range(n)] for name in META_FIELDS}
    records = pa.table({**meta, "id": [f"value-{i:04d}" for i in range(n)]})
    block = DataBlock.create(
        records, instant_time="20250101000000000", schema=schema, block_type=BlockType.PARQUET_DATA,
        compression="uncompressed",
    )  # fmt: skip
    encoded = bytearray(encode_block(block))
    at = encoded.index(b"value-0100")
    encoded[at + 6 : at + 10] = b"XXXX"
    with pytest.raises(LogBlockDecodeError, match="parquet content does not decode"):
        decode_block(bytes(encoded))
