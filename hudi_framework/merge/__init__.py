"""Kernel helpers that run record mergers: flags, ordering, pre-combine, base-file merge, choice.

Engine-neutral (pyarrow and numpy only); the Spark adapter calls the same functions inside tasks.
"""

from hudi_framework.contracts.merging.flags import (
    commit_time_deletes,
    delete_mask,
    drop_flags,
    no_ordering_mask,
    set_bool_column,
    supersedes_mask,
    with_flags,
)
from hudi_framework.contracts.merging.ordering import BoolMask, as_mask, compare_ordering_values, newer_wins
from hudi_framework.contracts.merging.pair import AlignedPair, unify_tables
from hudi_framework.contracts.merging.per_record import merge_per_record
from hudi_framework.contracts.merging.precombine import has_duplicate_keys, key_codes, reduce_by_key
from hudi_framework.merge.align import MergedRows, merge_with_base, project_to_schema
from hudi_framework.merge.choose import build_merger, find_strategy, merger_for_table, merger_for_write

__all__ = [
    "AlignedPair",
    "BoolMask",
    "MergedRows",
    "as_mask",
    "build_merger",
    "commit_time_deletes",
    "compare_ordering_values",
    "delete_mask",
    "drop_flags",
    "find_strategy",
    "has_duplicate_keys",
    "key_codes",
    "merge_per_record",
    "merge_with_base",
    "merger_for_table",
    "merger_for_write",
    "newer_wins",
    "no_ordering_mask",
    "project_to_schema",
    "reduce_by_key",
    "set_bool_column",
    "supersedes_mask",
    "unify_tables",
    "with_flags",
]
