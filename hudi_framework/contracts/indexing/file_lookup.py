"""Per-file steps shared by index plugins: read a footer, read record keys, build location rows.

Everything here touches exactly one base file through a :class:`StorageBackend`, so it runs the
same in-process and in Spark executors.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from hudi_framework.contracts.arrays import repeated_string
from hudi_framework.contracts.data_files import open_parquet
from hudi_framework.contracts.index import LOOKUP_SCHEMA, RECORD_KEY, IndexedFile
from hudi_framework.contracts.indexing.footer import read_key_footer
from hudi_framework.contracts.indexing.key_arrays import as_key_array
from hudi_framework.errors import RecordIndexError

if TYPE_CHECKING:
    from hudi_framework.contracts.index import LookupTask
    from hudi_framework.contracts.keygen import KeyGenerator
    from hudi_framework.contracts.storage import StorageBackend

__all__ = [
    "empty_locations",
    "locations_table",
    "open_base_file",
    "present_keys",
    "read_footer_facts",
    "read_key_range",
    "read_record_keys",
    "virtual_key_lookup",
]


@contextmanager
def open_base_file(storage: StorageBackend, file: IndexedFile) -> Iterator[pq.ParquetFile]:
    """Open a base file for footer and column reads; only the footer is read up front.

    Raises:
        CorruptDataFileError: The file, or what the ``with`` block reads of it (footer entries such
            as the bloom filter included), does not decode.
    """
    with open_parquet(storage, file.path) as parquet:
        yield parquet


def read_key_range(file: IndexedFile, storage: StorageBackend) -> IndexedFile:
    """``file`` with ``min_key``/``max_key`` from its footer (None where the footer has none)."""
    return read_footer_facts(file, storage, key_range=True)[0]


def read_footer_facts(file: IndexedFile, storage: StorageBackend, *, key_range: bool) -> tuple[IndexedFile, int]:
    """``file`` (with its footer's key range when ``key_range`` and it has none yet) and its row count."""
    with open_base_file(storage, file) as parquet:
        metadata = parquet.metadata
        if key_range and not file.has_key_range:
            footer = read_key_footer(metadata, with_bloom=False)
            file = file.with_key_range(footer.min_key, footer.max_key)
        return file, metadata.num_rows


def read_record_keys(parquet: pq.ParquetFile, file: IndexedFile) -> pa.LargeStringArray:
    """The file's ``_hoodie_record_key`` column.

    Raises:
        RecordIndexError: The column is missing or has nulls (``hoodie.populate.meta.fields=false``:
            Java writes the meta columns but leaves them null).
    """
    if RECORD_KEY not in parquet.schema_arrow.names:
        raise RecordIndexError(
            f"base file {file.path!r} has no {RECORD_KEY} column (a table without meta fields); "
            "this index needs stored record keys"
        )
    # One column (decoded on the caller's thread; lookups run one per core).
    keys = as_key_array(parquet.read(columns=[RECORD_KEY], use_threads=False).column(RECORD_KEY))
    if keys.null_count:
        # Java keeps the meta columns but leaves them null when hoodie.populate.meta.fields=false;
        # treating those rows as "no key" would silently turn every update into an insert.
        raise RecordIndexError(
            f"base file {file.path!r} has null {RECORD_KEY} values (a table without meta fields); "
            "this index needs stored record keys"
        )
    return keys


def virtual_key_lookup(keygen: KeyGenerator, task: LookupTask, storage: StorageBackend) -> pa.Table:
    """Look a task's keys up in a file without stored keys (``hoodie.populate.meta.fields=false``).

    The file's keys are computed with the table's key generator from the record key columns, as
    Java's key location fetch does with virtual keys; the index still decides which files and
    candidate keys to look at.
    """
    with open_base_file(storage, task.file) as parquet:
        names = parquet.schema_arrow.names
        columns = sorted({f.split(".", 1)[0] for f in keygen.record_key_fields if f.split(".", 1)[0] in names})
        rows = parquet.read(columns=columns)
    file_keys = as_key_array(keygen.record_keys(rows))
    return locations_table(task.file, present_keys(task.keys, file_keys))


def present_keys(candidates: pa.LargeStringArray | None, file_keys: pa.LargeStringArray) -> pa.LargeStringArray:
    """The candidates that are in ``file_keys`` (all file keys when ``candidates`` is None)."""
    if candidates is None:
        return as_key_array(pc.drop_null(file_keys))
    value_set = file_keys
    if len(candidates) < len(file_keys):
        # Hashing the smaller side is several times faster: narrow the file's keys to the
        # candidates first, then answer in candidate order as before.
        value_set = file_keys.filter(pc.is_in(file_keys, value_set=candidates, skip_nulls=True))
    mask = pc.is_in(candidates, value_set=value_set, skip_nulls=True)
    return as_key_array(candidates.filter(mask))


def locations_table(file: IndexedFile, keys: pa.LargeStringArray) -> pa.Table:
    """Rows of :data:`LOOKUP_SCHEMA`: each key located in ``file``."""
    n = len(keys)
    return pa.Table.from_arrays(
        [
            keys,
            repeated_string(file.partition_path, n).cast(pa.large_string()),
            repeated_string(file.file_id, n).cast(pa.large_string()),
            repeated_string(file.instant_time, n).cast(pa.large_string()),
        ],
        schema=LOOKUP_SCHEMA,
    )


def empty_locations() -> pa.Table:
    """A lookup result with no rows."""
    return LOOKUP_SCHEMA.empty_table()
