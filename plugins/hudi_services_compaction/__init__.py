"""Table service plugin ``services-compaction``: merge-on-read compaction.

Registers the ``compaction`` service. Scheduling picks file slices with a strategy
(``services.compaction.strategy``: ``log-file-size``, ``log-file-num``, ``bounded-io``, ``day-based``,
``unbounded``; Apache Hudi's class names are accepted through ``hoodie.compaction.strategy``) and
writes ``T.compaction.requested``; execution writes one base file per planned slice and completes
the instant as a ``commit`` with ``compacted=true`` and operation type ``COMPACT``.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.service import TableService
from hudi_framework.plugin import ComponentSpec, hookimpl
from hudi_services_compaction.executor import CompactionResult, execute_compaction, rollback_inflight
from hudi_services_compaction.scheduler import build_compaction_plan, schedule_compaction
from hudi_services_compaction.service import CompactionService, CompactionServiceOptions
from hudi_services_compaction.strategies import STRATEGIES, CompactionStrategy, build_strategy

__all__ = [
    "STRATEGIES",
    "CompactionResult",
    "CompactionService",
    "CompactionServiceOptions",
    "CompactionStrategy",
    "build_compaction_plan",
    "build_strategy",
    "execute_compaction",
    "hudi_table_services",
    "rollback_inflight",
    "schedule_compaction",
]


@hookimpl
def hudi_table_services() -> Sequence[ComponentSpec[TableService]]:
    """Register ``compaction``."""
    return [
        ComponentSpec(
            "compaction",
            factory=CompactionService,
            options_model=CompactionServiceOptions,
            description="Merge-on-read compaction: log files folded into new base files (commit, compacted=true)",
        )
    ]
