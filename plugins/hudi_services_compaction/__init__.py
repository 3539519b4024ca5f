"""Table service plugin ``services-compaction``: merge-on-read compaction.

Registers the ``compaction`` service. The plugin is the strategy: scheduling picks file slices with
one (``services.compaction.strategy``: ``log-file-size``, ``log-file-num``, ``bounded-io``,
``day-based``, ``unbounded``; Apache Hudi's class names are accepted through
``hoodie.compaction.strategy``). The kernel's machinery, reached through the service contract
(:mod:`hudi_framework.contracts.service`), lists the candidates, writes ``T.compaction.requested``
and executes the plan: one base file per planned slice, completed as a ``commit`` with
``compacted=true`` and operation type ``COMPACT``.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.service import TableService
from hudi_framework.plugin import ComponentSpec, hookimpl, lazy_exports

#: Re-exported implementation names, imported on first access (plugin/lazy.py): loading the
#: entry point stays cheap for every process that builds a plugin manager.
_EXPORTS = {
    "CompactionService": "hudi_services_compaction.service",
    "CompactionServiceOptions": "hudi_services_compaction.options",
    "CompactionStrategy": "hudi_services_compaction.strategies",
    "STRATEGIES": "hudi_services_compaction.strategies",
    "StrategyChoice": "hudi_services_compaction.options",
    "build_compaction_plan": "hudi_services_compaction.scheduler",
    "build_strategy": "hudi_services_compaction.strategies",
    "schedule_compaction": "hudi_services_compaction.scheduler",
}
__all__ = [*_EXPORTS, "hudi_table_services"]
__getattr__ = lazy_exports(__name__, _EXPORTS)


@hookimpl
def hudi_table_services() -> Sequence[ComponentSpec[TableService]]:
    """Register ``compaction``."""
    return [
        ComponentSpec(
            "compaction",
            factory="hudi_services_compaction.service:CompactionService",
            options_model="hudi_services_compaction.options:CompactionServiceOptions",
            description="Merge-on-read compaction: log files folded into new base files (commit, compacted=true)",
        )
    ]
