"""Record merge modes (``hoodie.record.merge.mode``) and Apache Hudi's merge strategy ids.

hudi-format.md section 6.1: each built-in mode has a strategy UUID (``HoodieRecordMerger``); a custom
merger has its own, and tables whose merging a legacy payload class decides have the payload-based one.
"""

from __future__ import annotations

from typing import Final

from hudi_framework.vocabulary.hudi_enum import HudiEnum

__all__ = [
    "COMMIT_TIME_STRATEGY_ID",
    "CUSTOM_STRATEGY_ID",
    "EVENT_TIME_STRATEGY_ID",
    "PAYLOAD_BASED_STRATEGY_ID",
    "RecordMergeMode",
    "mode_of_strategy",
    "strategy_of_mode",
]


class RecordMergeMode(HudiEnum):
    """Record merge modes (``hoodie.record.merge.mode``), see hudi-format.md section 6."""

    EVENT_TIME_ORDERING = "EVENT_TIME_ORDERING"
    COMMIT_TIME_ORDERING = "COMMIT_TIME_ORDERING"
    CUSTOM = "CUSTOM"


#: ``HoodieRecordMerger.EVENT_TIME_BASED_MERGE_STRATEGY_UUID``.
EVENT_TIME_STRATEGY_ID: Final = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
#: ``HoodieRecordMerger.COMMIT_TIME_BASED_MERGE_STRATEGY_UUID``.
COMMIT_TIME_STRATEGY_ID: Final = "ce9acb64-bde0-424c-9b91-f6ebba25356d"
#: ``HoodieRecordMerger.CUSTOM_MERGE_STRATEGY_UUID``.
CUSTOM_STRATEGY_ID: Final = "1897ef5f-18bc-4557-939c-9d6a8afd1519"
#: ``HoodieRecordMerger.PAYLOAD_BASED_MERGE_STRATEGY_UUID``.
PAYLOAD_BASED_STRATEGY_ID: Final = "00000000-0000-0000-0000-000000000000"

_STRATEGY_OF_MODE: Final = {
    RecordMergeMode.EVENT_TIME_ORDERING: EVENT_TIME_STRATEGY_ID,
    RecordMergeMode.COMMIT_TIME_ORDERING: COMMIT_TIME_STRATEGY_ID,
    RecordMergeMode.CUSTOM: CUSTOM_STRATEGY_ID,
}


def strategy_of_mode(mode: RecordMergeMode) -> str:
    """The strategy id Apache Hudi persists for a merge mode (``CUSTOM``: the generic custom id)."""
    return _STRATEGY_OF_MODE[mode]


def mode_of_strategy(strategy_id: str | None) -> RecordMergeMode | None:
    """The built-in merge mode a strategy id means, else None (a custom or payload-based strategy)."""
    if strategy_id is None:
        return None
    text = strategy_id.strip().lower()
    if text == EVENT_TIME_STRATEGY_ID:
        return RecordMergeMode.EVENT_TIME_ORDERING
    if text == COMMIT_TIME_STRATEGY_ID:
        return RecordMergeMode.COMMIT_TIME_ORDERING
    return None
