from hudi_framework.contracts.merger import MergeContext, PerRecordMerger, RecordRow
from hudi_framework.contracts.merging import compare_ordering_values
from hudi_framework.plugin import ComponentSpec, hookimpl


class MaxAmountMerger(PerRecordMerger):
    """The version with the larger ``amount`` wins; ties and commit-time deletes go to the later write."""

    strategy_id = "3fc789f8-58a2-47a3-a000-6f99605cc306"

    def merge_record(self, older: RecordRow, newer: RecordRow, ctx: MergeContext) -> RecordRow | None:
        larger = compare_ordering_values((newer.get("amount"),), (older.get("amount"),)) >= 0
        return newer if larger or ctx.supersedes_older(newer) else older


@hookimpl
def hudi_record_mergers() -> list[ComponentSpec[MaxAmountMerger]]:
    return [ComponentSpec("max-amount", factory=lambda _: MaxAmountMerger(), aliases=(MaxAmountMerger.strategy_id,))]
