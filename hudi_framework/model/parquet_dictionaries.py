"""Parquet dictionary encoding: which columns are written with dictionaries, and read as them.

Writing: a dictionary pays off on few-valued columns only. Parquet builds one until it outgrows its
page limit (~1 MB) and then falls back to plain pages, so on (near-)unique values it is pure cost,
on writing and again on reading (the values are decoded through it): :func:`dictionary_columns`
leaves them out, for base files and log blocks alike.

Reading: a few-valued string column decoded to plain strings is copied out of the dictionary one
append per row; read as an Arrow dictionary, the file's indices are taken as they are and the
strings are materialised, if at all, by one vectorised take. Hudi base files hold several such
columns in every file (``_hoodie_commit_time``, ``_hoodie_partition_path``, ``_hoodie_file_name``,
partition columns): reading them as dictionaries took the copy-on-write snapshot of the benchmark
table from about 204 to 176 ms of CPU, and a merge that drops rows filters their indices instead of
their strings. Only columns whose dictionary page is small in every row group qualify
(:func:`small_dictionary_columns`): a small dictionary page means the writer never fell back to plain
pages, which read as a dictionary would be hashed row by row.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

__all__ = [
    "SMALL_DICTIONARY_BYTES",
    "dictionary_columns",
    "small_dictionary_columns",
    "string_dictionary_columns",
    "top_level_columns",
]

#: Meta columns unique per row of a base file: a dictionary never pays off for them.
UNIQUE_META_COLUMNS: Final = frozenset({"_hoodie_commit_seqno", "_hoodie_record_key"})
#: Rows of each column sampled to tell near-unique columns from dictionary-friendly ones.
DICTIONARY_SAMPLE_ROWS: Final = 4096
#: A column whose sample is at least this distinct is written without a dictionary.
NEAR_UNIQUE_RATIO: Final = 0.9


def _near_unique(column: pa.ChunkedArray) -> bool:
    sample = column.slice(0, DICTIONARY_SAMPLE_ROWS)
    valid: int = len(sample) - sample.null_count
    # ``unique`` is about twice as fast as ``count_distinct`` here.
    distinct: int = len(pc.drop_null(pc.unique(sample)))
    return valid > 0 and distinct >= NEAR_UNIQUE_RATIO * valid


def dictionary_columns(table: pa.Table) -> list[str] | bool:
    """``use_dictionary`` for ``table``: every column except the (near-)unique ones.

    Parquet builds a dictionary until it outgrows its page limit and then falls back to plain
    encoding, so on unique values the dictionary is pure cost (more than half the write time
    of the benchmark's rows). The unique meta columns never get one; in files of at least a sample's rows,
    neither does a column whose first rows are nearly all distinct (a misjudged column is only
    larger, never wrong). Parquet matches the names against leaf column paths, so with nested
    columns every column keeps pyarrow's default.
    """
    schema = table.schema
    if any(pa.types.is_nested(f.type) for f in schema):
        return True
    plain = UNIQUE_META_COLUMNS.intersection(schema.names)
    if table.num_rows >= DICTIONARY_SAMPLE_ROWS:
        # Dictionary columns are written from their own dictionary, never hashed.
        plain |= {
            f.name
            for f in schema
            if f.name not in plain
            and not pa.types.is_boolean(f.type)
            and not pa.types.is_dictionary(f.type)
            and _near_unique(table.column(f.name))
        }
    if not plain:
        return True
    return [name for name in schema.names if name not in plain]


#: A string column whose dictionary page is at most this large in every row group holds few distinct
#: values and has no plain pages.
SMALL_DICTIONARY_BYTES: Final = 64 * 1024


def top_level_columns(metadata: pq.FileMetaData) -> dict[str, int]:
    """Top-level leaf columns of the file by name, with their column index.

    Read from the row groups' column chunks: ``FileMetaData.schema`` (a ``ParquetSchema``) forms a
    reference cycle with the metadata, so each access kept the footer, with its ~860 KB bloom filter,
    alive until a full garbage collection.
    """
    if not metadata.num_row_groups:
        return {}
    first = metadata.row_group(0)
    paths = (first.column(i).path_in_schema for i in range(metadata.num_columns))
    return {path: i for i, path in enumerate(paths) if "." not in path}


def small_dictionary_columns(metadata: pq.FileMetaData, columns: dict[str, int]) -> set[str]:
    """Of ``columns`` (name to column index), those stored with a dictionary page of at most
    :data:`SMALL_DICTIONARY_BYTES` in every row group."""
    row_groups = [metadata.row_group(i) for i in range(metadata.num_row_groups)]
    out = set()
    for path, i in columns.items():
        chunks = [rg.column(i) for rg in row_groups]
        if chunks and all(
            c.has_dictionary_page and c.data_page_offset - c.dictionary_page_offset <= SMALL_DICTIONARY_BYTES
            for c in chunks
        ):
            out.add(path)
    return out


def string_dictionary_columns(
    metadata: pq.FileMetaData, file_schema: pa.Schema, wanted: Iterable[pa.Field]
) -> list[str]:
    """Names of the ``wanted`` string columns the file stores as small dictionaries, as plain strings.

    A column qualifies when it is a top-level ``string`` both in the file and in ``wanted`` (a
    column read as another type converts from plain values), and its dictionary pages are small.
    """
    candidates = {
        field.name
        for field in wanted
        if field.type == pa.string()
        and file_schema.get_field_index(field.name) >= 0
        and file_schema.field(field.name).type == pa.string()
    }
    if not candidates:
        return []
    columns = {name: i for name, i in top_level_columns(metadata).items() if name in candidates}
    small = small_dictionary_columns(metadata, columns)
    return [field.name for field in wanted if field.name in small]
