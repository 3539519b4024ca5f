"""Scheduling a compaction: the strategy picks file slices, the kernel writes ``T.compaction.requested``.

The host (:class:`~hudi_framework.contracts.compaction.CompactionHost`) lists the candidates: the
latest file slices with log files whose file group has no pending compaction, log compaction or
clustering, with only the log files of delta commits completed before the compaction instant
(Java ``BaseHoodieCompactionPlanGenerator``). The strategy of the service's options narrows the
partitions listed and picks and orders the candidates.
"""

from __future__ import annotations

from typing import Any

from hudi_framework import table_service_host
from hudi_framework.contracts.compaction import CompactionPlanView
from hudi_services_compaction.options import CompactionServiceOptions
from hudi_services_compaction.strategies import build_strategy

__all__ = ["build_compaction_plan", "schedule_compaction"]


def build_compaction_plan(host: Any, options: CompactionServiceOptions, instant: str) -> CompactionPlanView | None:
    """The plan a compaction at ``instant`` would run, or None when nothing qualifies (nothing is written).

    Args:
        host: The kernel's ``TableServiceHost`` (or a ``HudiTable``, with default settings).
        options: The service's options (strategy and its thresholds).
        instant: The compaction instant time.

    Raises:
        UnknownComponentError: The configured strategy does not exist.
        CompactionPlanError: The table is copy-on-write, or (v6) a write is in flight.
        MissingDataFileError: A file of a latest slice is named by the timeline but not in storage.
    """
    strategy = build_strategy(options)
    return table_service_host(host).compaction_plan(strategy, instant)


def schedule_compaction(host: Any, options: CompactionServiceOptions, *, instant_time: str | None = None) -> str | None:
    """Plan a compaction with the options' strategy and write its ``T.compaction.requested`` file.

    Args:
        host: The kernel's ``TableServiceHost`` (or a ``HudiTable``, with default settings).
        options: The service's options.
        instant_time: The compaction instant; a new time after every instant by default.

    Returns:
        The compaction instant, or None when no file slice needs compacting (nothing is written).

    Raises:
        UnknownComponentError: The configured strategy does not exist.
        CompactionPlanError: The table cannot compact now, or a write completed while planning.
        IllegalTransitionError: ``instant_time`` is not newer than every instant on the timeline.
    """
    strategy = build_strategy(options)
    return table_service_host(host).schedule_compaction(strategy, instant_time=instant_time)
