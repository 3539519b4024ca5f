"""The record merger contract, mirroring Apache Hudi's ``HoodieRecordMerger``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa


class RecordMerger(ABC):
    """Merges versions of records that share a key.

    ``merge_batches`` receives an older and a newer batch aligned row by row (same keys) and returns
    the merged batch, with a boolean ``_hoodie_is_deleted`` column marking deletes. Implementations
    must be deterministic and associative on ordered inputs.
    """

    #: Apache Hudi's ``hoodie.record.merge.strategy.id`` UUID this merger implements.
    strategy_id: str = ""

    @abstractmethod
    def merge_batches(self, older: pa.Table, newer: pa.Table, ordering_fields: tuple[str, ...]) -> pa.Table:
        """Merge aligned rows of ``older`` and ``newer``."""
