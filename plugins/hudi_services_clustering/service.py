"""The ``clustering`` table service: the size-based plan strategy, on the kernel's clustering machinery."""

from __future__ import annotations

from typing import Any

from hudi_framework import table_service_host
from hudi_framework.contracts.clustering import ClusteringOutcome, ClusteringPlanView
from hudi_framework.contracts.service import TableService
from hudi_services_clustering.options import ClusteringServiceOptions
from hudi_services_clustering.strategies import SizeBasedPlanStrategy

__all__ = ["ClusteringService", "ClusteringServiceOptions"]


class ClusteringService(TableService):
    """Clustering (``clustering.requested`` -> ``replacecommit`` with operation type ``CLUSTER``).

    Every method takes the kernel's ``TableServiceHost``; a ``HudiTable`` is accepted too and bound
    to default settings.
    """

    action = "clustering"

    def __init__(self, options: ClusteringServiceOptions | None = None) -> None:
        """Build the service from its options."""
        self.options = options or ClusteringServiceOptions()

    def strategy(self) -> SizeBasedPlanStrategy:
        """The plan strategy of the options."""
        return SizeBasedPlanStrategy(self.options)

    def plan(self, host: Any) -> ClusteringPlanView | None:
        """The plan a clustering would run now, or None (nothing is written)."""
        bound = table_service_host(host)
        return bound.clustering_plan(self.strategy(), "")

    def schedule(self, host: Any, instant_time: str | None = None) -> str | None:
        """Write a clustering plan; return its instant, or None if no file slice qualifies."""
        bound = table_service_host(host)
        bound.prepare()
        # Under optimistic concurrency control two schedulers must not plan the same file groups.
        with bound.locked():
            return bound.schedule_clustering(self.strategy(), instant_time=instant_time)

    def run(self, host: Any, instant: str) -> ClusteringOutcome:
        """Execute the plan of ``instant`` and return what it wrote."""
        bound = table_service_host(host)
        bound.prepare()
        return bound.execute_clustering(instant)

    def execute(self, host: Any, instant: str) -> None:
        """Execute the plan of ``instant`` and complete it."""
        self.run(host, instant)
