"""The ``simple`` and ``global-simple`` indexes: join incoming keys with the keys of base files.

Apache Hudi's ``SIMPLE`` index (the Spark default) reads the record keys of the latest base file
of every file group in the incoming partitions and joins them with the incoming keys;
``GLOBAL_SIMPLE`` does the same over the whole table. No footer is needed, so it also works on
files whose bloom filters are missing or sized badly, at the cost of reading every key column.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import Field
from typing_extensions import override

from hudi_framework.contracts.index import IndexedFile, LookupTask, RecordIndex
from hudi_framework.index.bloom_filter import BloomFilterConfig
from hudi_framework.index.file_lookup import locations_table, open_base_file, present_keys, read_record_keys
from hudi_framework.index.planning import plan_lookups

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.storage import StorageBackend


class SimpleIndexOptions(BloomFilterConfig):
    """Options of ``simple`` / ``global-simple``.

    The bloom filter fields (inherited) do not change lookups: they size the bloom filter the
    writer puts in every base file footer, which Apache Hudi writes whatever the index type.
    """

    update_partition_path: bool = Field(default=True)
    """``hoodie.simple.index.update.partition.path`` (global only): a key arriving in another
    partition is moved there (deleted from the old one); False keeps it in its old partition."""

    def filter_config(self) -> BloomFilterConfig:
        """The bloom filter part of the options."""
        return BloomFilterConfig.model_validate(self.model_dump(include=set(BloomFilterConfig.model_fields)))


class SimpleIndex(RecordIndex):
    """``simple``: look keys up in the base files of their own partition."""

    def __init__(self, options: SimpleIndexOptions | None = None) -> None:
        """Keep the validated options (the only state: the index must stay picklable)."""
        self._options = options or SimpleIndexOptions()

    @property
    def options(self) -> SimpleIndexOptions:
        """The validated options."""
        return self._options

    @property
    @override
    def is_global(self) -> bool:
        """False: a key is unique within its partition."""
        return False

    @property
    @override
    def update_partition_path(self) -> bool:
        """See :class:`SimpleIndexOptions`."""
        return self._options.update_partition_path

    @property
    @override
    def bloom_filter_config(self) -> BloomFilterConfig:
        """Footer bloom filter sizing from the options."""
        return self._options.filter_config()

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

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._options!r})"


class GlobalSimpleIndex(SimpleIndex):
    """``global-simple``: look every key up in every base file of the table."""

    @property
    @override
    def is_global(self) -> bool:
        """True: a key is unique across the table."""
        return True
