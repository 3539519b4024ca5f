"""Keys that only log files hold: the file-based fallback of an index that finds keys in log files.

An index whose :attr:`~hudi_framework.contracts.index.RecordIndex.indexes_log_files` is True lets
merge-on-read inserts go to log files of small file groups. Its file-based lookups (the fallback of
a keyed index while the table keeps no key map) read base files only, so the engines also read the
keys of the data blocks of the latest slices' log files and locate them in their file group (the
slice's base instant as the location's instant, as a base-file lookup gives). Deleted keys are
not subtracted: a stale location only turns a later write of the key into an update of its file
group, which the merged read resolves; a missed one would insert the key a second time.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.arrays import repeated_string
from hudi_framework.contracts.index import (
    LOCATION_FILE_ID,
    LOCATION_INSTANT,
    LOCATION_PARTITION,
    LOOKUP_SCHEMA,
    RECORD_KEY,
    RecordIndex,
)
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.log.blocks import DataBlock
from hudi_framework.log.reader import read_log_file

__all__ = [
    "LOG_FILES_SCHEMA",
    "LogKeyFiles",
    "log_files_from_arrow",
    "log_files_to_arrow",
    "log_key_files",
    "log_key_locations",
    "log_locations",
]

#: One row per slice whose log files are read (the Spark engine ships these to its tasks).
LOG_FILES_SCHEMA = pa.schema(
    [
        pa.field(LOCATION_PARTITION, pa.string()),
        pa.field(LOCATION_FILE_ID, pa.string()),
        pa.field(LOCATION_INSTANT, pa.string()),
        pa.field("log_files", pa.list_(pa.string())),
    ]
)


@dataclass(frozen=True, slots=True)
class LogKeyFiles:
    """The log files of one latest slice, and where their keys are located."""

    partition: str
    file_id: str
    instant: str
    log_files: tuple[str, ...]


def log_files_to_arrow(files: Sequence[LogKeyFiles]) -> pa.Table:
    """One :data:`LOG_FILES_SCHEMA` row per slice."""
    return pa.table(
        {
            LOCATION_PARTITION: [f.partition for f in files],
            LOCATION_FILE_ID: [f.file_id for f in files],
            LOCATION_INSTANT: [f.instant for f in files],
            "log_files": [list(f.log_files) for f in files],
        },
        schema=LOG_FILES_SCHEMA,
    )


def log_files_from_arrow(table: pa.Table) -> list[LogKeyFiles]:
    """Invert :func:`log_files_to_arrow`."""
    names = LOG_FILES_SCHEMA.names
    return [
        LogKeyFiles(r[names[0]], r[names[1]], r[names[2]], tuple(r["log_files"]))
        for r in table.select(names).to_pylist()
    ]


def log_key_files(index: RecordIndex, slices: Iterable[FileSlice], partitions: Iterable[str]) -> list[LogKeyFiles]:
    """The slices whose log files the fallback of ``index`` reads (none unless it indexes log files).

    Args:
        index: The index.
        slices: The table's latest file slices.
        partitions: The incoming partitions (all slices count for a global index).
    """
    if not index.indexes_log_files:
        return []
    wanted = None if index.is_global else set(partitions)
    return [
        LogKeyFiles(s.partition_path, s.file_id, s.base_instant_time, tuple(s.log_file_keys))
        for s in slices
        if s.log_files and (wanted is None or s.partition_path in wanted)
    ]


def log_key_locations(files: LogKeyFiles, storage: StorageBackend, wanted: pa.Array | None = None) -> pa.Table:
    """:data:`~hudi_framework.contracts.index.LOOKUP_SCHEMA` rows of the keys in the data blocks of
    ``files`` (only those among ``wanted``, distinct strings, when given), each once."""
    parts: list[pa.Array] = []
    for key in files.log_files:
        for block in read_log_file(storage, key):
            if isinstance(block, DataBlock) and (keys := block.record_keys) is not None:
                parts.append(keys.combine_chunks().cast(pa.string()))
    keys = pc.unique(pa.concat_arrays(parts)).drop_null() if parts else pa.array([], pa.string())
    if wanted is not None and len(keys):
        keys = keys.filter(pc.is_in(keys, value_set=wanted))
    n = len(keys)
    return pa.table(
        {
            RECORD_KEY: keys.cast(pa.large_string()),
            LOCATION_PARTITION: repeated_string(files.partition, n).cast(pa.large_string()),
            LOCATION_FILE_ID: repeated_string(files.file_id, n).cast(pa.large_string()),
            LOCATION_INSTANT: repeated_string(files.instant, n).cast(pa.large_string()),
        },
        schema=LOOKUP_SCHEMA,
    )


def log_locations(
    index: RecordIndex, incoming_keys: pa.Array, partitions: Sequence[str], slices: Iterable[FileSlice],
    storage: StorageBackend, *, workers: int = 1,
) -> list[pa.Table]:  # fmt: skip
    """The locations of ``incoming_keys`` in the latest slices' log files, one table per slice read
    (nothing unless ``index`` indexes log files); ``workers`` threads read them."""
    files = log_key_files(index, slices, partitions)
    if not files:
        return []
    wanted = pc.unique(incoming_keys.cast(pa.string())).drop_null()
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(files)))) as pool:
        return list(pool.map(lambda f: log_key_locations(f, storage, wanted), files))
