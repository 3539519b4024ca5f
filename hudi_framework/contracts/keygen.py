"""The key generator contract: record key and partition path columns from a batch."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa


class KeyGenerator(ABC):
    """Computes ``_hoodie_record_key`` and ``_hoodie_partition_path`` for a batch, vectorised."""

    #: Apache Hudi's ``hoodie.table.keygenerator.type`` value for this generator (``SIMPLE``...).
    hudi_type: str = ""

    @abstractmethod
    def record_keys(self, batch: pa.RecordBatch | pa.Table) -> pa.Array:
        """Record key strings, one per row; raises a ``ConfigError`` subclass on null/empty keys."""

    @abstractmethod
    def partition_paths(self, batch: pa.RecordBatch | pa.Table) -> pa.Array:
        """Relative partition paths, one per row (``""`` when non-partitioned)."""
