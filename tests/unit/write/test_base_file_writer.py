"""Writing base files: dictionary columns (a rewrite's meta columns) are written as plain strings would be."""

from __future__ import annotations

import gc
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.model.parquet_dictionaries import dictionary_columns
from hudi_framework.write.base_file_writer import ParquetOptions, plain_nbytes, write_base_file
from hudi_storage_local.backend import LocalStorageBackend


def _rows(n: int) -> pa.Table:
    commit = pa.array(["20240101000000000", "20240102000000000"] * (n // 2))
    return pa.table({"_hoodie_commit_time": commit, "_hoodie_record_key": [f"k{i:06d}" for i in range(n)]})


def test_dictionary_columns_count_and_write_as_their_values(tmp_path: Path) -> None:
    rows = _rows(5000)
    encoded = rows.set_column(0, "_hoodie_commit_time", rows.column(0).dictionary_encode())
    # Sized like the plain rows (offsets and value bytes per row), so row groups do not change.
    assert plain_nbytes(encoded) == rows.nbytes
    assert plain_nbytes(rows) == rows.nbytes
    assert dictionary_columns(encoded) == ["_hoodie_commit_time"]
    storage = LocalStorageBackend(str(tmp_path))
    write_base_file(storage, "plain.parquet", rows)
    write_base_file(storage, "encoded.parquet", encoded)
    plain, dictionary = pq.ParquetFile(tmp_path / "plain.parquet"), pq.ParquetFile(tmp_path / "encoded.parquet")
    assert dictionary.schema.equals(plain.schema)
    assert dictionary.read().equals(plain.read())
    column = dictionary.metadata.row_group(0).column(0)
    assert "RLE_DICTIONARY" in column.encodings
    assert column.statistics.min == "20240101000000000"
    assert column.statistics.max == "20240102000000000"
    # Row groups are cut at the same rows (sized on the plain bytes), whatever the encoding in memory.
    small = ParquetOptions(row_group_bytes=rows.nbytes // 3)
    write_base_file(storage, "plain3.parquet", rows, options=small)
    write_base_file(storage, "encoded3.parquet", encoded, options=small)
    groups = [pq.ParquetFile(tmp_path / f).metadata.num_row_groups for f in ("plain3.parquet", "encoded3.parquet")]
    assert groups[0] == groups[1] > 1


def test_a_rewrite_reads_few_valued_string_columns_as_dictionaries(tmp_path: Path) -> None:
    from hudi_framework.runtime.table import HudiTable
    from hudi_framework.table.table_config import new_table_config
    from hudi_framework.write.client import WriteClient
    from hudi_framework.write.file_group_task import _read_base

    n = 6000  # past the writer's dictionary sample: the unique ``id``/``note`` columns are plain
    config = new_table_config("t", record_key_fields=["id"], partition_fields=[], ordering_fields=["ts"])
    client = WriteClient(HudiTable.create(str(tmp_path), config))
    ids = [f"k{i:05d}" for i in range(n)]
    first = pa.table({"id": ids, "ts": [1] * n, "status": ["new", "old"] * (n // 2), "note": [f"n{i}" for i in ids]})
    client.upsert(first)
    update = pa.table({"id": ["k00001", "zz"], "ts": [2, 2], "status": ["gone", "fresh"], "note": ["u", "v"]})
    client.upsert(update)
    table = client.table.reload()
    (file_slice,) = table.latest_file_slices()
    assert file_slice.base_file_key is not None
    written = pq.read_schema(tmp_path / file_slice.base_file_key)  # meta columns first, as ctx.schema
    rows, _, dictionaries = _read_base(table.storage, file_slice.base_file_key, written, data_dictionaries=True)
    assert set(dictionaries) == {"_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_file_name", "status"}
    assert pa.types.is_dictionary(rows.schema.field("status").type)
    plain = pq.read_table(tmp_path / file_slice.base_file_key)
    assert plain.schema.field("status").type == pa.string()
    by_id = {r["id"]: r for r in plain.select(["id", "status", "note"]).to_pylist()}
    assert by_id["k00001"] == {"id": "k00001", "status": "gone", "note": "u"}
    assert by_id["zz"] == {"id": "zz", "status": "fresh", "note": "v"}
    assert by_id["k00002"] == {"id": "k00002", "status": "new", "note": "nk00002"}
    assert plain.num_rows == n + 1
    # Reading a base file leaves no reference cycle behind: one held each footer (with its bloom
    # filter) until a full collection, so memory grew with the file groups a write rewrote.
    gc.collect()
    gc.disable()
    try:
        _read_base(table.storage, file_slice.base_file_key, written, data_dictionaries=True)
        unreachable = gc.collect()
    finally:
        gc.enable()
    assert unreachable == 0
