"""Table service plugin ``services-cleaning``: deleting file slices the retained history no longer needs.

Registers the ``clean`` service. Policies are Apache Hudi's (``services.clean.policy`` /
``hoodie.clean.policy``): ``KEEP_LATEST_COMMITS`` (default, 10 commits), ``KEEP_LATEST_FILE_VERSIONS``
(3 slices per file group) and ``KEEP_LATEST_BY_HOURS`` (24 hours). Savepointed files, slices a pending
compaction needs and the latest slice of every file group are always kept. A clean is the instant
``T.clean.requested`` (Avro ``HoodieCleanerPlan``) -> ``T.clean.inflight`` -> ``clean`` (Avro
``HoodieCleanMetadata``). It runs after each commit (``services.clean.automatic``, through
:func:`hudi_framework.services.run_inline_services`) or from ``hudi-fw clean run``.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.service import TableService
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_services_cleaning.executor import CleanResult, execute_clean, pending_clean, read_clean_plan
from hudi_services_cleaning.incremental import partitions_to_clean
from hudi_services_cleaning.planner import build_clean_plan, pending_compaction_bases, schedule_clean
from hudi_services_cleaning.retention import earliest_commit_to_retain
from hudi_services_cleaning.selection import (
    SliceGuard,
    replaced_slices_to_clean,
    slices_to_clean_by_commits,
    slices_to_clean_by_versions,
)
from hudi_services_cleaning.service import CleanService, CleanServiceOptions

__all__ = [
    "CleanResult",
    "CleanService",
    "CleanServiceOptions",
    "SliceGuard",
    "build_clean_plan",
    "earliest_commit_to_retain",
    "execute_clean",
    "hudi_table_services",
    "partitions_to_clean",
    "pending_clean",
    "pending_compaction_bases",
    "read_clean_plan",
    "replaced_slices_to_clean",
    "schedule_clean",
    "slices_to_clean_by_commits",
    "slices_to_clean_by_versions",
]


@hookimpl
def hudi_table_services() -> Sequence[ComponentSpec[TableService]]:
    """Register ``clean``."""
    return [
        ComponentSpec(
            "clean",
            factory=CleanService,
            options_model=CleanServiceOptions,
            description="Cleaning: old file slices deleted by policy (clean instant, savepoints kept)",
        )
    ]
