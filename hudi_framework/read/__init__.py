"""Reading tables: snapshot, time travel, read-optimized and incremental queries as pyarrow data.

Engine-neutral: a query is planned into picklable :class:`ReadTask`\\ s (one per base file) and, for
merge-on-read slices with log files, :class:`MergedReadTask`\\ s (one per file slice), that run
in-process (:func:`read_table`, :func:`read_batches`) or on an engine's workers (:func:`run_task`).

Internal package: not a stable API; import from the public modules (docs/api.md).

The names are imported on first use (PEP 562): Spark's planner processes import this package
fresh and pay only for what they use.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from hudi_framework.contracts.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from hudi_framework.read.base_file import DEFAULT_BATCH_SIZE, conform_batch, read_task
    from hudi_framework.read.filters import normalize_filters, prune_partitions, to_expression
    from hudi_framework.read.incremental import plan_incremental
    from hudi_framework.read.log_records import CorruptLogBlockWarning
    from hudi_framework.read.merged import merge_file_slice, read_merged_task
    from hudi_framework.read.merged_task import InstantValidity, MergedReadTask
    from hudi_framework.read.options import (
        AS_OF_INSTANT_KEY,
        BEGIN_INSTANT_KEY,
        END_INSTANT_KEY,
        INCR_FALLBACK_KEY,
        QUERY_TYPE_KEY,
        ReadOptions,
        resolve_instant_time,
    )
    from hudi_framework.read.plan import CommitTimeFilter, CommitTimeRange, ReadPlan, ReadTask
    from hudi_framework.read.reader import build_options, execute_plan, plan_read, read_batches, read_table, run_task
    from hudi_framework.read.schema import read_schema, spark_type
    from hudi_framework.read.snapshot import plan_snapshot

__all__ = [
    "AS_OF_INSTANT_KEY",
    "BEGIN_INSTANT_KEY",
    "DEFAULT_BATCH_SIZE",
    "END_INSTANT_KEY",
    "INCR_FALLBACK_KEY",
    "QUERY_TYPE_KEY",
    "CommitTimeFilter",
    "CommitTimeRange",
    "CorruptLogBlockWarning",
    "InstantValidity",
    "MergedReadTask",
    "ReadOptions",
    "ReadPlan",
    "ReadTask",
    "build_options",
    "conform_batch",
    "execute_plan",
    "merge_file_slice",
    "normalize_filters",
    "plan_incremental",
    "plan_read",
    "plan_snapshot",
    "prune_partitions",
    "read_batches",
    "read_merged_task",
    "read_schema",
    "read_table",
    "read_task",
    "resolve_instant_time",
    "run_task",
    "spark_type",
    "to_expression",
]

#: Public name -> the module it is imported from on first access (the same as the imports above;
#: tests/unit/test_public_api.py checks that they agree).
_EXPORTS: Final[Mapping[str, str]] = {
    "AS_OF_INSTANT_KEY": "hudi_framework.read.options",
    "BEGIN_INSTANT_KEY": "hudi_framework.read.options",
    "CommitTimeFilter": "hudi_framework.read.plan",
    "CommitTimeRange": "hudi_framework.read.plan",
    "CorruptLogBlockWarning": "hudi_framework.read.log_records",
    "DEFAULT_BATCH_SIZE": "hudi_framework.read.base_file",
    "END_INSTANT_KEY": "hudi_framework.read.options",
    "INCR_FALLBACK_KEY": "hudi_framework.read.options",
    "InstantValidity": "hudi_framework.read.merged_task",
    "MergedReadTask": "hudi_framework.read.merged_task",
    "QUERY_TYPE_KEY": "hudi_framework.read.options",
    "ReadOptions": "hudi_framework.read.options",
    "ReadPlan": "hudi_framework.read.plan",
    "ReadTask": "hudi_framework.read.plan",
    "build_options": "hudi_framework.read.reader",
    "conform_batch": "hudi_framework.read.base_file",
    "execute_plan": "hudi_framework.read.reader",
    "merge_file_slice": "hudi_framework.read.merged",
    "normalize_filters": "hudi_framework.read.filters",
    "plan_incremental": "hudi_framework.read.incremental",
    "plan_read": "hudi_framework.read.reader",
    "plan_snapshot": "hudi_framework.read.snapshot",
    "prune_partitions": "hudi_framework.read.filters",
    "read_batches": "hudi_framework.read.reader",
    "read_merged_task": "hudi_framework.read.merged",
    "read_schema": "hudi_framework.read.schema",
    "read_table": "hudi_framework.read.reader",
    "read_task": "hudi_framework.read.base_file",
    "resolve_instant_time": "hudi_framework.read.options",
    "run_task": "hudi_framework.read.reader",
    "spark_type": "hudi_framework.read.schema",
    "to_expression": "hudi_framework.read.filters",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)
