"""The ``record-level`` index: Apache Hudi's global record-level index, kept in the metadata table.

Each record key's file group is stored in the ``record_index`` partition of the metadata table, so
tagging looks the incoming keys up there (:class:`~hudi_framework.contracts.keyed_index.KeyedIndex`)
instead of opening base files: its cost follows the number of incoming keys, not of base files.

While the table keeps no ``record_index`` (not built yet, or dropped by a writer that does not keep
it in step), the engine falls back to this index's file-based methods, a global simple index: the
keys of every latest base file, as Apache Hudi falls back to ``GLOBAL_SIMPLE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import Field
from typing_extensions import override

from hudi_framework.contracts.index import IndexedFile, LookupTask
from hudi_framework.contracts.indexing.file_lookup import (
    locations_table,
    open_base_file,
    present_keys,
    read_record_keys,
)
from hudi_framework.contracts.indexing.options import IndexOptions, OptionsBackedIndex
from hudi_framework.contracts.indexing.planning import plan_lookups
from hudi_framework.contracts.keyed_index import KeyedIndex

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.storage import StorageBackend

#: The metadata-table partition Apache Hudi keeps the record-level index in.
RECORD_INDEX_PARTITION = "record_index"


class RecordLevelIndexOptions(IndexOptions):
    """Options of ``record-level`` (see :class:`IndexOptions`)."""

    update_partition_path: bool = Field(default=False)
    """``hoodie.record.index.update.partition.path`` (Apache Hudi's default false): a key arriving
    in another partition is moved there (deleted from the old one); False updates it where it is."""


class RecordLevelIndex(OptionsBackedIndex[RecordLevelIndexOptions], KeyedIndex):
    """``record-level``: keys looked up in the metadata table's ``record_index``; global."""

    options_type = RecordLevelIndexOptions

    @property
    @override
    def is_global(self) -> bool:
        """True: the record-level index maps each key once across the table."""
        return True

    @property
    @override
    def indexes_log_files(self) -> bool:
        """True: the writer records the keys it inserts into log files in ``record_index``, and the
        fallback reads the keys of the latest slices' log files too."""
        return True

    @property
    @override
    def metadata_partition(self) -> str:
        """``record_index``."""
        return RECORD_INDEX_PARTITION

    @override
    def candidate_files(self, incoming: pa.Table, files: Sequence[IndexedFile]) -> list[LookupTask]:
        """Fallback (no ``record_index``): every latest base file, with every distinct key."""
        return plan_lookups(incoming, files, is_global=True, prune_by_ranges=False)

    @override
    def lookup(self, task: LookupTask, storage: StorageBackend) -> pa.Table:
        """Fallback (no ``record_index``): read the file's record keys and keep the task's found among them."""
        with open_base_file(storage, task.file) as parquet:
            file_keys = read_record_keys(parquet, task.file)
        return locations_table(task.file, present_keys(task.keys, file_keys))
