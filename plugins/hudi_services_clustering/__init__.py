"""Table service plugin ``services-clustering``: clustering (small-file stitching, sorted layouts).

Registers the ``clustering`` service. The plugin is the plan strategy: which latest file slices are
worth rewriting (base files under ``services.clustering.small_file_limit_bytes``), how they are
grouped (up to ``max_bytes_per_group`` each, at most ``max_num_groups`` per plan), how many file
groups each group becomes (``target_file_max_bytes``), and the execution's sort columns and order,
which the plan carries (Apache Hudi's ``SparkSizeBasedClusteringPlanStrategy`` with the
``SparkSortAndSizeExecutionStrategy``). The kernel's machinery, reached through the service contract
(:mod:`hudi_framework.contracts.service`), lists the candidates, writes the requested plan and
executes it, completing a ``replacecommit`` with operation type ``CLUSTER``.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.service import TableService
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "ClusteringService": "hudi_services_clustering.service",
    "ClusteringServiceOptions": "hudi_services_clustering.options",
    "SizeBasedPlanStrategy": "hudi_services_clustering.strategies",
}
__all__ = [*_EXPORTS, "hudi_table_services"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_table_services() -> Sequence[ComponentSpec[TableService]]:
    """Register ``clustering``."""
    return [
        ComponentSpec(
            "clustering",
            factory="hudi_services_clustering.service:ClusteringService",
            options_model="hudi_services_clustering.options:ClusteringServiceOptions",
            description="Clustering: small file slices rewritten into fewer, bigger file groups, optionally sorted "
            "(replacecommit, operation CLUSTER)",
        )
    ]
