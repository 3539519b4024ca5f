"""Tagging with a keyed index (:class:`~hudi_framework.contracts.keyed_index.KeyedIndex`): the
steps both engines share.

The caller opens the locator (``hudi_framework.metadata.record_index_locator.locator_for``: the
metadata table sits above this layer). The local engine looks every distinct incoming key up in one
call; Spark splits the keys by the locator's shard, one executor task per group of shards
(``hudi_framework.spark.tagging_stage``).
Either way the found locations are then filtered to the file groups of the table's latest file
slices: a key map entry naming any other file group belongs to a write that never committed (or a
replaced file group), and must not send an update there.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.index import (
    LOCATION_FILE_ID,
    LOCATION_PARTITION,
    LOOKUP_SCHEMA,
    IndexedFile,
)
from hudi_framework.contracts.keyed_index import KeyedIndex, KeyLocator
from hudi_framework.layout.file_group import FileSlice

__all__ = ["LIVE_SCHEMA", "keyed_lookup", "live_file_groups"]

#: The file groups a location may name: (partition path, file id) of every latest file slice.
LIVE_SCHEMA = pa.schema(
    [pa.field(LOCATION_PARTITION, pa.large_string(), nullable=False), pa.field(LOCATION_FILE_ID, pa.large_string())]
)


def live_file_groups(files: Iterable[IndexedFile | FileSlice]) -> pa.Table:
    """:data:`LIVE_SCHEMA` rows of the file groups of ``files`` (log-only slices included)."""
    pairs = {(f.partition_path, f.file_id) for f in files}
    return pa.table(
        {
            LOCATION_PARTITION: pa.array([p for p, _ in pairs], pa.large_string()),
            LOCATION_FILE_ID: pa.array([f for _, f in pairs], pa.large_string()),
        },
        schema=LIVE_SCHEMA,
    )


def keyed_lookup(index: KeyedIndex, locator: KeyLocator, keys: pa.Array | pa.ChunkedArray, live: pa.Table) -> pa.Table:
    """The locations of ``keys`` (any strings, repeats allowed) in file groups of ``live``.

    Returns:
        :data:`~hudi_framework.contracts.index.LOOKUP_SCHEMA` rows, one per found key.
    """
    column = keys.combine_chunks() if isinstance(keys, pa.ChunkedArray) else keys
    distinct = pc.unique(column.cast(pa.string())).drop_null()
    if not len(distinct):
        return LOOKUP_SCHEMA.empty_table()
    found = index.lookup_keys(distinct, locator).select(LOOKUP_SCHEMA.names).cast(LOOKUP_SCHEMA)
    if not found.num_rows:
        return found
    kept = found.join(live, [LOCATION_PARTITION, LOCATION_FILE_ID], join_type="left semi")
    return kept.select(LOOKUP_SCHEMA.names)
