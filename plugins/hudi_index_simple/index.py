"""The ``simple`` and ``global-simple`` indexes: join incoming keys with the keys of base files.

Apache Hudi's ``SIMPLE`` index (the Spark default) reads the record keys of the latest base file
of every file group in the incoming partitions and joins them with the incoming keys;
``GLOBAL_SIMPLE`` does the same over the whole table. No footer is needed, so it also works on
files whose bloom filters are missing or sized badly, at the cost of reading every key column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

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

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.storage import StorageBackend


class SimpleIndexOptions(IndexOptions):
    """Options of ``simple`` / ``global-simple`` (see :class:`IndexOptions`)."""


class SimpleIndex(OptionsBackedIndex[SimpleIndexOptions]):
    """``simple``: look keys up in the base files of their own partition."""

    options_type = SimpleIndexOptions

    @override
    def candidate_files(self, incoming: pa.Table, files: Sequence[IndexedFile]) -> list[LookupTask]:
        """Every relevant file, with the distinct keys of its partition (all keys when global)."""
        return plan_lookups(incoming, files, is_global=self.is_global, prune_by_ranges=False)

    @override
    def lookup(self, task: LookupTask, storage: StorageBackend) -> pa.Table:
        """Read the file's record keys and keep the task's keys found among them."""
        with open_base_file(storage, task.file) as parquet:
            file_keys = read_record_keys(parquet, task.file)
        return locations_table(task.file, present_keys(task.keys, file_keys))


class GlobalSimpleIndex(SimpleIndex):
    """``global-simple``: look every key up in every base file of the table."""

    @property
    @override
    def is_global(self) -> bool:
        """True: a key is unique across the table."""
        return True
