"""Kernel helpers that run record mergers: merging incoming rows with a base file, and choosing the merger.

Engine-neutral (pyarrow and numpy only); the Spark adapter calls the same functions inside tasks. The
merge toolkit mergers and the kernel share (flags, ordering, aligned pairs, pre-combining) is
:mod:`hudi_framework.contracts.merging`.

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

from hudi_framework.merge.align import MergedRows, merge_with_base, project_to_schema
from hudi_framework.merge.choose import build_merger, find_strategy, merger_for_table, merger_for_write

__all__ = [
    "MergedRows",
    "build_merger",
    "find_strategy",
    "merge_with_base",
    "merger_for_table",
    "merger_for_write",
    "project_to_schema",
]
