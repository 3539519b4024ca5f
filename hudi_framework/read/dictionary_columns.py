"""Which string columns of a Parquet file to read as dictionaries.

Parquet stores a few-valued string column as a dictionary page plus small integer indices. Decoded
to plain strings, every row's value is copied out of the dictionary one append at a time; read as
an Arrow dictionary, the file's indices are taken as they are and the strings are materialised, if
at all, by one vectorised take. Hudi base files hold several such columns in every file
(``_hoodie_commit_time``, ``_hoodie_partition_path``, ``_hoodie_file_name``, partition columns):
reading them as dictionaries took the copy-on-write snapshot of the benchmark table from 204 to
176 ms of CPU, and a merge that drops rows filters their indices instead of their strings.

Only columns whose dictionary page is small in every row group qualify: a writer falls back to
plain pages only once its dictionary outgrows ~1 MB, so a small dictionary page means every page
of the chunk is dictionary-encoded (read as a dictionary, a plain page would be hashed row by row).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import pyarrow as pa
import pyarrow.parquet as pq

__all__ = ["SMALL_DICTIONARY_BYTES", "small_dictionary_columns", "string_dictionary_columns", "top_level_columns"]

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
