"""Writing one Parquet base file the way Apache Hudi lays it out (format section 5)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_framework.contracts.arrays import to_numpy
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.model.parquet_dictionaries import dictionary_columns
from hudi_framework.model.parquet_format import PARQUET_TYPE_OPTIONS, as_file_types, pyarrow_codec


def plain_nbytes(table: pa.Table) -> int:
    """``table.nbytes`` with every dictionary column counted as its decoded values.

    Row groups are sized by the rows' in-memory size; a column held as a dictionary (a merge's meta
    columns) must not make the same rows look smaller than when they were plain strings.
    """
    total: int = table.nbytes
    for column in table.columns:
        if not pa.types.is_dictionary(column.type) or not pa.types.is_string(column.type.value_type):
            continue
        for chunk in column.chunks:
            total += _decoded_extra_bytes(chunk)
    return total


def _rows_per_group(table: pa.Table, opts: ParquetOptions) -> int:
    """Rows per row group: ``row_group_bytes`` over the rows' average plain size, capped."""
    rows: int = max(1, table.num_rows)
    if rows <= opts.max_rows_per_group and _plain_nbytes_bound(table) <= opts.row_group_bytes:
        return rows  # one row group whatever the exact average (counting dictionary values costs)
    avg = max(1, plain_nbytes(table) // rows)
    per_group: int = max(1, min(opts.max_rows_per_group, opts.row_group_bytes // avg))
    return per_group


def _plain_nbytes_bound(table: pa.Table) -> int:
    """At least :func:`plain_nbytes`: dictionary rows counted at their longest value."""
    total: int = table.nbytes
    for column in table.columns:
        if pa.types.is_dictionary(column.type) and pa.types.is_string(column.type.value_type):
            for chunk in column.chunks:
                longest = pc.max(pc.binary_length(chunk.dictionary)).as_py() or 0
                total += (longest + 4) * len(chunk)
    return total


def _decoded_extra_bytes(chunk: pa.DictionaryArray) -> int:
    """Bytes a string dictionary chunk gains when decoded: its values per row and int32 offsets,
    less its indices and dictionary (``nbytes`` of the decoded chunk, less the chunk's)."""
    values = chunk.dictionary
    codes = to_numpy(chunk.indices, null=-1)
    if chunk.indices.null_count:
        codes = codes[codes >= 0]
    # Rows per dictionary value times the value's length: no per-row gather of lengths.
    counts = np.bincount(codes, minlength=len(values))
    value_bytes = int(counts @ to_numpy(pc.binary_length(values), null=0).astype(np.int64)) if len(values) else 0
    offsets = 4 * len(chunk)  # as Arrow counts a string array's offsets
    encoded: int = chunk.indices.nbytes + values.nbytes
    return value_bytes + offsets - encoded


@dataclass(frozen=True, slots=True)
class ParquetOptions:
    """Parquet writer settings (``hoodie.parquet.*``).

    ``compression`` takes Apache Hudi's codec names (``hoodie.parquet.compression.codec``:
    ``uncompressed`` included).
    """

    compression: str = "zstd"
    compression_level: int | None = None
    row_group_bytes: int = 128 * 1024 * 1024
    page_bytes: int = 1024 * 1024
    #: Rows per row group are derived from the estimated record size; this caps them.
    max_rows_per_group: int = 1_000_000


def write_base_file(
    storage: StorageBackend,
    key: str,
    table: pa.Table,
    *,
    footer: Mapping[bytes, bytes] | Callable[[], Mapping[bytes, bytes]] | None = None,
    options: ParquetOptions | None = None,
    schema: pa.Schema | None = None,
) -> int:
    """Write ``table`` (meta columns first, already filled) to ``key``; return the file size.

    Each column is stored as Apache Hudi's parquet-avro writer stores its Avro type
    (:mod:`hudi_framework.model.parquet_format`); ``schema``, the file's exact Arrow types (the Avro
    writer schema as Arrow, meta fields first), casts columns that differ (rows merged in a read
    schema's types). ``footer`` (bloom filter, min/max record keys) goes into the file's key-value
    metadata. A callable footer is called once the rows are written (it may be computed meanwhile
    elsewhere).

    Raises:
        SchemaMismatchError: A column's values do not fit its type in ``schema``.
    """
    opts = options or ParquetOptions()
    table = table.replace_schema_metadata(None)
    if schema is not None:
        table = as_file_types(table, schema)
    rows_per_group = _rows_per_group(table, opts)
    with storage.open_output(key) as sink:
        writer = pq.ParquetWriter(
            sink,
            table.schema,
            compression=pyarrow_codec(opts.compression),
            compression_level=opts.compression_level,
            use_dictionary=dictionary_columns(table),
            data_page_size=opts.page_bytes,
            **PARQUET_TYPE_OPTIONS,
        )
        try:
            writer.write_table(table, row_group_size=rows_per_group)
            entries = footer() if callable(footer) else footer
            if entries:
                # Bytes as they are: decoding the serialised bloom filter to str costs as much again.
                writer.add_key_value_metadata(dict(entries))
        finally:
            writer.close()
    return storage.size(key)
