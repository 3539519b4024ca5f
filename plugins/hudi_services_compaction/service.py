"""The ``compaction`` table service: the strategy of its options, on the kernel's compaction machinery."""

from __future__ import annotations

from typing import Any

from hudi_framework import table_service_host
from hudi_framework.contracts.compaction import CompactionOutcome
from hudi_framework.contracts.service import TableService
from hudi_services_compaction.options import CompactionServiceOptions
from hudi_services_compaction.scheduler import schedule_compaction

__all__ = ["CompactionService", "CompactionServiceOptions"]


class CompactionService(TableService):
    """Merge-on-read compaction (``compaction.requested`` -> ``commit`` with ``compacted=true``).

    Every method takes the kernel's ``TableServiceHost``; a ``HudiTable`` is accepted too and bound
    to default settings.
    """

    action = "compaction"

    def __init__(self, options: CompactionServiceOptions | None = None) -> None:
        """Build the service from its options."""
        self.options = options or CompactionServiceOptions()

    def schedule(self, host: Any, instant_time: str | None = None) -> str | None:
        """Write a compaction plan; return its instant, or None if no slice needs compacting."""
        bound = table_service_host(host)
        bound.prepare()
        return schedule_compaction(bound, self.options, instant_time=instant_time)

    def run(self, host: Any, instant: str) -> CompactionOutcome:
        """Execute the plan of ``instant`` and return what it wrote."""
        bound = table_service_host(host)
        bound.prepare()
        return bound.execute_compaction(instant, skip_corrupt_log_blocks=self.options.skip_corrupt_log_blocks)

    def execute(self, host: Any, instant: str) -> None:
        """Execute the plan of ``instant`` and complete it."""
        self.run(host, instant)
