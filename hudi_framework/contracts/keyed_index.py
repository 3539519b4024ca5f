"""The keyed index contract: an index whose key -> file group map is kept in the table's metadata.

A :class:`~hudi_framework.contracts.index.RecordIndex` finds keys by opening base files. A
:class:`KeyedIndex` instead looks keys up in a map the table keeps (Apache Hudi's record-level
index: the ``record_index`` partition of the metadata table), so tagging costs the lookup of the
incoming keys, whatever the number of base files:

1. The engine opens a :class:`KeyLocator` on the table's metadata (the kernel implements it; a
   plugin never reads the metadata table itself). When the table keeps no such map (not built yet,
   dropped by a writer that does not keep it), there is no locator: the engine falls back to the
   index's file-based methods, which a keyed index must implement as a correct index of the same
   globality (Apache Hudi falls back to ``GLOBAL_SIMPLE``).
2. Keys are split into the locator's shards (:meth:`KeyLocator.shards_of`, the file groups of the
   map); each shard's keys are looked up with :meth:`KeyedIndex.lookup_keys`, in-process or in one
   executor task per shard, so a shard's files are read by one task only.
3. The engine joins the found locations with the incoming records exactly as for a file-based
   index (``hudi_framework.index.tagging.apply_locations``), after dropping locations whose file
   group is not among the table's latest file slices (a map entry of a write that did not commit).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np
import pyarrow as pa

from hudi_framework.contracts.index import RecordIndex

__all__ = ["KeyLocator", "KeyedIndex"]


class KeyLocator(ABC):
    """Where the table's key map says each key lives (kernel side; cheap to rebuild per task)."""

    @property
    @abstractmethod
    def shard_count(self) -> int:
        """Number of shards (file groups) of the map; at least 1."""

    @abstractmethod
    def shards_of(self, keys: pa.Array) -> np.ndarray[Any, np.dtype[np.int64]]:
        """The shard of each key (``0 <= shard < shard_count``), vectorised."""

    @abstractmethod
    def locate(self, keys: pa.Array) -> pa.Table:
        """The locations of ``keys`` (distinct strings, no nulls).

        Reads only the shards the keys fall in, and in them only the entries of ``keys``.

        Returns:
            A table of ``hudi_framework.contracts.index.LOOKUP_SCHEMA``, one row per key the map
            holds (keys it does not hold are absent), in no particular order.

        Raises:
            MetadataTableUnusableError: The map does not read.
        """


class KeyedIndex(RecordIndex):
    """A record index kept as a key map in the table's metadata (see the module docstring).

    Its file-based methods (:meth:`RecordIndex.candidate_files`, :meth:`RecordIndex.lookup`) are the
    fallback when the table has no such map.
    """

    @property
    @abstractmethod
    def metadata_partition(self) -> str:
        """The metadata-table partition holding the map (``record_index``)."""

    def lookup_keys(self, keys: pa.Array, locator: KeyLocator) -> pa.Table:
        """Look ``keys`` (distinct strings, no nulls) up in ``locator``; see :meth:`KeyLocator.locate`."""
        return locator.locate(keys)
