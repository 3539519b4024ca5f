"""Engine-neutral index kernel: tagging incoming records, merging lookup tasks, carrying bloom filters.

Index *plugins* (``hudi_index_simple``, ``hudi_index_bloom``) implement
:class:`~hudi_framework.contracts.index.RecordIndex` with the building blocks of
:mod:`hudi_framework.contracts.indexing` (re-exported here for the kernel); writers call
:func:`bloom_footer_metadata` for every new base file; engines call :func:`tag_locations` (local)
or run the same plan/lookup steps distributed.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig, BloomFilterType, bloom_size
from hudi_framework.contracts.indexing.file_lookup import (
    empty_locations,
    locations_table,
    open_base_file,
    present_keys,
    read_key_range,
    read_record_keys,
)
from hudi_framework.contracts.indexing.footer import (
    BLOOM_FILTER_KEY,
    BLOOM_FILTER_TYPE_CODE_KEY,
    LEGACY_BLOOM_FILTER_KEY,
    MAX_RECORD_KEY_KEY,
    MIN_RECORD_KEY_KEY,
    KeyFooter,
    bloom_footer_metadata,
    read_key_footer,
)
from hudi_framework.contracts.indexing.key_arrays import java_min_max, java_sort_keys
from hudi_framework.contracts.indexing.murmur import PreparedKeys, murmur_hash, murmur_hash_scalar
from hudi_framework.contracts.indexing.planning import SortedKeys, keys_by_partition, plan_lookups
from hudi_framework.index.tagging import apply_locations, found_locations, indexed_files, tag_locations
from hudi_framework.index.tasks import (
    files_from_arrow,
    files_to_arrow,
    merge_lookup_tasks,
    tasks_from_arrow,
    tasks_to_arrow,
)

__all__ = [
    "BLOOM_FILTER_KEY",
    "BLOOM_FILTER_TYPE_CODE_KEY",
    "LEGACY_BLOOM_FILTER_KEY",
    "MAX_RECORD_KEY_KEY",
    "MIN_RECORD_KEY_KEY",
    "BloomFilter",
    "BloomFilterConfig",
    "BloomFilterType",
    "KeyFooter",
    "PreparedKeys",
    "SortedKeys",
    "apply_locations",
    "bloom_footer_metadata",
    "bloom_size",
    "empty_locations",
    "files_from_arrow",
    "files_to_arrow",
    "found_locations",
    "indexed_files",
    "java_min_max",
    "java_sort_keys",
    "keys_by_partition",
    "locations_table",
    "merge_lookup_tasks",
    "murmur_hash",
    "murmur_hash_scalar",
    "open_base_file",
    "plan_lookups",
    "present_keys",
    "read_key_footer",
    "read_key_range",
    "read_record_keys",
    "tag_locations",
    "tasks_from_arrow",
    "tasks_to_arrow",
]
