"""Per-record reference versions of the built-in mergers, written straight from hudi-format.md 6.2.

They run through the kernel's per-record adapter, so comparing them with the vectorised built-ins
tests both the built-ins and the adapter.
"""

from __future__ import annotations

from hudi_framework.contracts.merger import MergeContext, PerRecordMerger, RecordRow
from hudi_framework.contracts.merging import compare_ordering_values
from hudi_framework.vocabulary import COMMIT_TIME_STRATEGY_ID, EVENT_TIME_STRATEGY_ID


class RecordCommitTimeMerger(PerRecordMerger):
    """The later write wins."""

    strategy_id = COMMIT_TIME_STRATEGY_ID

    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        return newer


class RecordEventTimeMerger(PerRecordMerger):
    """Java's ``shouldKeepNewerRecord``: a commit-time delete wins, else newer.ordering >= older.ordering."""

    strategy_id = EVENT_TIME_STRATEGY_ID

    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        if ctx.supersedes_older(newer):
            return newer
        if compare_ordering_values(ctx.ordering_value(newer), ctx.ordering_value(older)) >= 0:
            return newer
        return older


class DeleteOnTieMerger(PerRecordMerger):
    """A toy custom merger: equal payloads delete the key (returns None), else the newer wins."""

    strategy_id = "aea2e14e-19a2-4e33-bc37-f8871d55bd5b"

    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        return None if older.get("payload") == newer.get("payload") else newer
