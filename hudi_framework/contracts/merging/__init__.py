"""The merge toolkit: what record mergers build on, and the default behaviour of the merger contract.

Vectorised helpers over pyarrow and numpy that a :class:`~hudi_framework.contracts.merger.RecordMerger`
uses to decide between versions (:mod:`.ordering`: ordering values; :mod:`.flags`: the delete and
supersedes-older flags; :mod:`.pair`: aligned older/newer tables), and the implementations of the
contract's default methods (:mod:`.precombine`, :mod:`.partial`, :mod:`.per_record`). The kernel runs
mergers through the same functions, so a plugin's merger behaves as the built-in ones do.
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

__all__ = [
    "AlignedPair",
    "BoolMask",
    "as_mask",
    "commit_time_deletes",
    "compare_ordering_values",
    "delete_mask",
    "drop_flags",
    "newer_wins",
    "no_ordering_mask",
    "set_bool_column",
    "supersedes_mask",
    "unify_tables",
    "with_flags",
]
