"""The record index contract: which file group holds each incoming record key."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa


class RecordIndex(ABC):
    """Tags incoming keys with their current location (partition, file id), vectorised."""

    #: Whether a key is unique across partitions (global) or only within one.
    is_global: bool = False

    @abstractmethod
    def tag_locations(self, keys: pa.Table, candidates: pa.Table) -> pa.Table:
        """Return ``keys`` with ``_hoodie_file_id`` (null for new keys) appended.

        Args:
            keys: Columns ``_hoodie_record_key`` and ``_hoodie_partition_path`` of incoming records.
            candidates: One row per candidate base file, as produced by the file-system view.
        """
