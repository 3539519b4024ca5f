"""Reading tables: snapshot, time travel, read-optimized and incremental queries as pyarrow data.

Engine-neutral: a query is planned into picklable :class:`ReadTask`\\ s (one per base file) and, for
merge-on-read slices with log files, :class:`MergedReadTask`\\ s (one per file slice), that run
in-process (:func:`read_table`, :func:`read_batches`) or on an engine's workers (:func:`run_task`).

Internal package: not a stable API; import from the public modules (docs/api.md).
"""

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
