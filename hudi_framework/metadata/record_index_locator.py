"""Key lookups in the metadata table's ``record_index``: the kernel's :class:`KeyLocator`.

Apache Hudi's record-level index maps each record key to its file group, sharded over the
``record-index-NNNN-0`` file groups by Java's ``String.hashCode`` of the key. A locator is opened
once per tagging (or per executor task): it reads the MDT timeline and lists ``record_index`` once,
then each :meth:`RecordIndexLocator.locate` reads only the file groups its keys hash to and decodes
only those keys' entries.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from typing_extensions import override

from hudi_framework.contracts.index import (
    LOCATION_FILE_ID,
    LOCATION_INSTANT,
    LOCATION_PARTITION,
    LOOKUP_SCHEMA,
    RECORD_KEY,
    RecordIndex,
)
from hudi_framework.contracts.keyed_index import KeyedIndex, KeyLocator
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.layout.file_group import FileSlice
from hudi_framework.metadata.reader import MetadataTable, record_index_file_groups
from hudi_framework.metadata.records import MetadataPartition
from hudi_framework.table.properties import load_properties
from hudi_framework.timeline.instant_time import epoch_ms_to_instant_time
from hudi_framework.vocabulary import TimelineTimezone

__all__ = ["RecordIndexLocator", "locator_for", "open_key_locator"]

_TIMEZONE_KEY = "hoodie.table.timeline.timezone"


class RecordIndexLocator(KeyLocator):
    """Lookups in one snapshot of the MDT's ``record_index``."""

    def __init__(self, mdt: MetadataTable, slices: list[FileSlice], timezone: TimelineTimezone) -> None:
        """Wrap an opened MDT and the latest ``record_index`` slices; prefer :func:`open_key_locator`."""
        self._mdt = mdt
        self._slices = slices
        self._timezone = timezone

    @property
    @override
    def shard_count(self) -> int:
        """The number of ``record_index`` file groups."""
        return len(self._slices)

    @override
    def shards_of(self, keys: pa.Array) -> np.ndarray[Any, np.dtype[np.int64]]:
        """Java's ``mapRecordKeyToFileGroupIndex`` of each key."""
        return record_index_file_groups(keys, len(self._slices))

    @override
    def locate(self, keys: pa.Array) -> pa.Table:
        """The stored location of each key the index holds (``LOOKUP_SCHEMA``)."""
        found = self._mdt.record_index(keys, self._slices)
        if not found.num_rows:
            return LOOKUP_SCHEMA.empty_table()
        # The index stores the write's instant as epoch milliseconds; a location's instant only
        # orders locations, and a batch holds few distinct ones: format those once each.
        millis = found.column("instant_time_millis").combine_chunks()
        distinct = pc.unique(millis).drop_null()
        texts = pa.array([epoch_ms_to_instant_time(m, self._timezone) for m in distinct.to_pylist()], pa.large_string())
        instants = pc.fill_null(pc.take(texts, pc.index_in(millis, value_set=distinct)), "")
        return pa.table(
            {
                RECORD_KEY: found.column("record_key").cast(pa.large_string()),
                LOCATION_PARTITION: pc.fill_null(found.column("partition_path"), "").cast(pa.large_string()),
                LOCATION_FILE_ID: found.column("file_id").cast(pa.large_string()),
                LOCATION_INSTANT: instants,
            },
            schema=LOOKUP_SCHEMA,
        )


def open_key_locator(
    storage: StorageBackend, partition: str, properties: Mapping[str, str] | None = None
) -> RecordIndexLocator | None:
    """The locator of the MDT partition ``partition``, or None when the table does not keep it.

    None when the table has no MDT, or ``hoodie.table.metadata.partitions`` does not list the
    partition (not built, or dropped by a writer that does not keep it in step), or it has no file
    group: the caller then falls back to a file-based index, as Apache Hudi does.

    Args:
        storage: The data table's storage.
        partition: The MDT partition of the key map (only ``record_index`` is known).
        properties: The data table's ``hoodie.properties``, when the caller has them.

    Raises:
        MetadataTableUnusableError: The MDT lists the partition but it does not read.
    """
    if partition != MetadataPartition.RECORD_INDEX.value:
        return None
    props = dict(properties) if properties is not None else load_properties(storage)
    mdt = MetadataTable.open(storage, props)
    if mdt is None or partition not in mdt.partitions_available():
        return None
    slices = mdt.record_index_slices()
    if not slices:
        return None
    timezone = TimelineTimezone(props.get(_TIMEZONE_KEY, "LOCAL").upper() or "LOCAL")
    return RecordIndexLocator(mdt, slices, timezone)


def locator_for(index: RecordIndex, storage: StorageBackend) -> KeyLocator | None:
    """The key map a keyed index looks keys up in on this table; None for a file-based index or a
    table that keeps no map (the index's file-based fallback then runs)."""
    if not isinstance(index, KeyedIndex):
        return None
    return open_key_locator(storage, index.metadata_partition)
