"""Table service plugin ``services-cleaning``: deleting file slices the retained history no longer needs.

Registers the ``clean`` service. Policies are Apache Hudi's (``services.clean.policy`` /
``hoodie.clean.policy``): ``KEEP_LATEST_COMMITS`` (default, 10 commits), ``KEEP_LATEST_FILE_VERSIONS``
(3 slices per file group) and ``KEEP_LATEST_BY_HOURS`` (24 hours). Savepointed files, slices a pending
compaction needs and the latest slice of every file group are always kept. A clean is the instant
``T.clean.requested`` (Avro ``HoodieCleanerPlan``) -> ``T.clean.inflight`` -> ``clean`` (Avro
``HoodieCleanMetadata``). It runs after each commit (``services.clean.automatic``) or from
``hudi-fw clean run``. The plugin is the policy (which files go, when a clean is due); the kernel's
machinery, reached through the service contract (:mod:`hudi_framework.contracts.service`), writes
the plan, deletes the files and completes the instant.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.service import TableService
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "CleanService": "hudi_services_cleaning.service",
    "CleanServiceOptions": "hudi_services_cleaning.options",
    "SliceGuard": "hudi_services_cleaning.selection",
    "build_clean_plan": "hudi_services_cleaning.planner",
    "decide_clean": "hudi_services_cleaning.planner",
    "earliest_commit_to_retain": "hudi_services_cleaning.retention",
    "partitions_to_clean": "hudi_services_cleaning.incremental",
    "replaced_slices_to_clean": "hudi_services_cleaning.selection",
    "schedule_clean": "hudi_services_cleaning.planner",
    "slices_to_clean_by_commits": "hudi_services_cleaning.selection",
    "slices_to_clean_by_versions": "hudi_services_cleaning.selection",
}
__all__ = [*_EXPORTS, "hudi_table_services"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_table_services() -> Sequence[ComponentSpec[TableService]]:
    """Register ``clean``."""
    return [
        ComponentSpec(
            "clean",
            factory="hudi_services_cleaning.service:CleanService",
            options_model="hudi_services_cleaning.options:CleanServiceOptions",
            description="Cleaning: old file slices deleted by policy (clean instant, savepoints kept)",
        )
    ]
