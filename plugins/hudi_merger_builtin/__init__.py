"""Record merger plugin ``merger-builtin``: Apache Hudi's two built-in merge modes, vectorised.

* ``commit-time-ordering`` (``COMMIT_TIME_ORDERING``, ``OverwriteWithLatestAvroPayload``): the later
  write wins.
* ``event-time-ordering`` (``EVENT_TIME_ORDERING``, ``DefaultHoodieRecordPayload``): the larger
  ordering value wins, the later write on ties.

Both are also registered under their strategy UUIDs and mode names, so tables that persist either
resolve to them.
"""

from __future__ import annotations

from collections.abc import Sequence

from hudi_framework.contracts.merger import RecordMerger
from hudi_framework.plugin import ComponentSpec, NoOptions, hookimpl
from hudi_merger_builtin.mergers import (
    COMMIT_TIME_STRATEGY_ID,
    EVENT_TIME_STRATEGY_ID,
    CommitTimeOrderingMerger,
    EventTimeOrderingMerger,
)

__all__ = [
    "COMMIT_TIME_STRATEGY_ID",
    "EVENT_TIME_STRATEGY_ID",
    "CommitTimeOrderingMerger",
    "EventTimeOrderingMerger",
    "hudi_record_mergers",
]


@hookimpl
def hudi_record_mergers() -> Sequence[ComponentSpec[RecordMerger]]:
    """Register ``commit-time-ordering`` and ``event-time-ordering``."""
    return [
        ComponentSpec(
            "commit-time-ordering",
            factory=CommitTimeOrderingMerger,
            options_model=NoOptions,
            description="The later write wins (COMMIT_TIME_ORDERING)",
            aliases=(COMMIT_TIME_STRATEGY_ID, "COMMIT_TIME_ORDERING"),
        ),
        ComponentSpec(
            "event-time-ordering",
            factory=EventTimeOrderingMerger,
            options_model=NoOptions,
            description="The larger ordering value wins, the later write on ties (EVENT_TIME_ORDERING)",
            aliases=(EVENT_TIME_STRATEGY_ID, "EVENT_TIME_ORDERING"),
        ),
    ]
