"""The ``bloom`` and ``global-bloom`` indexes: min/max key ranges and bloom filters in footers.

Apache Hudi's ``BLOOM`` index, step for step: files of the incoming partitions (every file for
``GLOBAL_BLOOM``) are pruned by the ``hoodie_min_record_key``/``hoodie_max_record_key`` footer
entries; each remaining file's keys are probed against its bloom filter; only the bloom positives
are checked exactly against the file's ``_hoodie_record_key`` column, which is read only when
there is a positive. Files without footer entries are looked up without that pruning (correct,
just slower), where Apache Hudi would fail. When a file gets so many candidates that probing them
would cost more than reading its keys (:func:`probe_pays`), the filter is skipped and every
candidate goes to the exact check: the answer is the same, only cheaper.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

import numpy as np
import pyarrow as pa
from pydantic import Field
from typing_extensions import override

from hudi_framework.contracts.index import IndexedFile, LookupTask
from hudi_framework.contracts.indexing.file_lookup import (
    empty_locations,
    locations_table,
    open_base_file,
    present_keys,
    read_record_keys,
)
from hudi_framework.contracts.indexing.footer import read_key_footer
from hudi_framework.contracts.indexing.key_arrays import in_java_range
from hudi_framework.contracts.indexing.options import IndexOptions, OptionsBackedIndex
from hudi_framework.contracts.indexing.planning import plan_lookups

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend


class BloomIndexOptions(IndexOptions):
    """Options of ``bloom`` / ``global-bloom`` (see :class:`IndexOptions`)."""

    prune_by_ranges: bool = Field(default=True)
    """``hoodie.bloom.index.prune.by.ranges``: skip files whose min/max keys exclude the key."""
    use_metadata: bool = Field(default=False)
    """``hoodie.bloom.index.use.metadata``: take key ranges (``column_stats``) and bloom filters
    (``bloom_filters``) from the table's metadata table when it is in step, not from footers."""


class BloomIndex(OptionsBackedIndex[BloomIndexOptions]):
    """``bloom``: range pruning, then bloom filters, then an exact check, within each partition."""

    options_type = BloomIndexOptions

    @property
    @override
    def wants_key_ranges(self) -> bool:
        """True when pruning by ranges: planning uses the files' min/max keys."""
        return self._options.prune_by_ranges

    @property
    @override
    def prunes_ranges_in_lookup(self) -> bool:
        """True when pruning by ranges: :meth:`lookup` reads a missing range from the footer."""
        return self._options.prune_by_ranges

    @property
    @override
    def uses_metadata_index(self) -> bool:
        """``use_metadata``: ranges and filters from the metadata table (see :class:`BloomIndexOptions`)."""
        return self._options.use_metadata

    @override
    def candidate_files(self, incoming: pa.Table, files: Sequence[IndexedFile]) -> list[LookupTask]:
        """Pair each file with the distinct keys of its partition (all, when global) in its key range."""
        return plan_lookups(incoming, files, is_global=self.is_global, prune_by_ranges=self._options.prune_by_ranges)

    @override
    def lookup(self, task: LookupTask, storage: StorageBackend) -> pa.Table:
        """Footer range check, bloom check, then the exact check on the file's key column.

        With the file's filter from the metadata table (:attr:`LookupTask.bloom`), the filter is
        probed first, as Apache Hudi does, and the file is opened only when some key passes.
        """
        if task.bloom is not None and task.keys is not None:
            passed = task.keys.filter(pa.array(task.bloom.might_contain(task.keys)))
            if not len(passed):
                return empty_locations()
            with open_base_file(storage, task.file) as parquet:
                file_keys = read_record_keys(parquet, task.file)
            return locations_table(task.file, present_keys(passed, file_keys))
        with open_base_file(storage, task.file) as parquet:
            candidates = task.keys
            if candidates is not None:
                metadata = parquet.metadata
                probe = probe_pays(len(candidates), metadata.num_rows, footer_bytes=metadata.serialized_size)
                prune = self._options.prune_by_ranges and not task.file.has_key_range
                if probe or prune:
                    footer = read_key_footer(parquet.metadata, with_bloom=probe)
                    mask = np.ones(len(candidates), dtype=np.bool_)
                    if prune:  # the planner had no ranges for this file
                        mask &= in_java_range(candidates, footer.min_key, footer.max_key)
                    if footer.bloom is not None:
                        mask[mask] = footer.bloom.might_contain(candidates.filter(pa.array(mask)))
                    if not mask.any():
                        return empty_locations()
                    candidates = candidates.filter(pa.array(mask))
            file_keys = read_record_keys(parquet, task.file)
        return locations_table(task.file, present_keys(candidates, file_keys))


#: Probing one key that the filter holds (30 chained hashes at Apache Hudi's default fpp) costs
#: about as much as reading and hashing this many stored keys in the exact check (measured on
#: 62,500-row files with 14-byte keys: ~0.8 us per probe, ~0.09 us per stored key).
PROBE_COST_IN_ROWS: Final = 8
#: Decoding the filter (copying the footer entry, base64, unpacking) costs about as much as reading
#: one stored key per this many footer bytes; the footer is nearly all filter. Apache Hudi's default
#: filter (60,000 entries) serialises to ~860 KB, 5-6 ms to decode: as much as reading ~70,000 keys,
#: so its files of up to that many rows are checked exactly without probing.
FOOTER_BYTES_PER_ROW: Final = 12


def probe_pays(candidates: int, file_rows: int, *, footer_bytes: int = 0) -> bool:
    """Whether probing the bloom filter can save work for ``candidates`` keys in a file of ``file_rows``.

    The filter only saves the exact check's read of the file's keys, when no candidate passes. Once
    decoding the filter (``footer_bytes``, the serialised footer's size) and probing the candidates
    cost more than that read, skipping the filter is faster whatever the filter would say, and the
    exact check alone gives the same answer.
    """
    return candidates * PROBE_COST_IN_ROWS + footer_bytes // FOOTER_BYTES_PER_ROW < file_rows


class GlobalBloomIndex(BloomIndex):
    """``global-bloom``: the bloom index over every base file of the table."""

    @property
    @override
    def is_global(self) -> bool:
        """True: a key is unique across the table."""
        return True
