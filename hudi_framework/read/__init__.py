"""Reading tables: snapshot, time travel, read-optimized and incremental queries as pyarrow data.

Engine-neutral: a query is planned into picklable :class:`ReadTask`\\ s (one per base file) that run
in-process (:func:`read_table`, :func:`read_batches`) or on an engine's workers (:func:`read_task`).
"""

from hudi_framework.read.base_file import DEFAULT_BATCH_SIZE, conform_batch, read_task
from hudi_framework.read.filters import normalize_filters, prune_partitions, to_expression
from hudi_framework.read.incremental import plan_incremental
from hudi_framework.read.options import (
    AS_OF_INSTANT_KEY,
    BEGIN_INSTANT_KEY,
    END_INSTANT_KEY,
    INCR_FALLBACK_KEY,
    QUERY_TYPE_KEY,
    QueryType,
    ReadOptions,
    resolve_instant_time,
)
from hudi_framework.read.plan import CommitTimeFilter, CommitTimeRange, ReadPlan, ReadTask
from hudi_framework.read.reader import build_options, execute_plan, plan_read, read_batches, read_table
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
    "QueryType",
    "ReadOptions",
    "ReadPlan",
    "ReadTask",
    "build_options",
    "conform_batch",
    "execute_plan",
    "normalize_filters",
    "plan_incremental",
    "plan_read",
    "plan_snapshot",
    "prune_partitions",
    "read_batches",
    "read_schema",
    "read_table",
    "read_task",
    "resolve_instant_time",
    "spark_type",
    "to_expression",
]
