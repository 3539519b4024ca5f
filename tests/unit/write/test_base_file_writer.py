"""Writing base files: dictionary columns (a rewrite's meta columns) are written as plain strings would be."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from hudi_framework.write.base_file_writer import dictionary_columns, plain_nbytes, write_base_file
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
