"""What a compaction read from one slice's log files: the counters of its write stat.

Java's compactor takes them from its log scanner: records of valid data and delete blocks
(``totalLogRecords``), distinct keys among them (``totalUpdatedRecordsCompacted``), blocks read,
corrupt blocks and rollback command blocks. Blocks of uncommitted instants, and v6 blocks a later
rollback command cancels, do not count as records. The scan holds record keys only, block by block,
and judges each corrupt block (:mod:`hudi_framework.read.corrupt_blocks`) so the executor can refuse
a slice whose skipped blocks may hold committed rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.log.blocks import CommandBlock, CommandType, DataBlock, DeleteBlock, compacted_instants
from hudi_framework.log.reader import read_log_file
from hudi_framework.read.corrupt_blocks import AssessedCorruptBlock, CorruptBlockTracker
from hudi_framework.read.merged_task import InstantValidity


@dataclass(frozen=True, slots=True)
class LogScanStats:
    """Counters of one slice's log files.

    Attributes:
        total_log_records: Records of valid data and delete blocks.
        total_updated_records_compacted: Distinct record keys among them.
        total_log_blocks: Blocks read (any kind, corrupt ones included).
        total_corrupt_log_blocks: Damaged byte ranges skipped.
        total_rollback_blocks: Rollback command blocks.
        record_keys: The distinct keys of the valid records.
        corrupt: Each corrupt block with its writer and what skipping it costs.
    """

    total_log_records: int
    total_updated_records_compacted: int
    total_log_blocks: int
    total_corrupt_log_blocks: int
    total_rollback_blocks: int
    record_keys: pa.Array
    corrupt: tuple[AssessedCorruptBlock, ...] = ()


@dataclass(frozen=True, slots=True)
class _Records:
    instant: str
    seq: int
    keys: pa.Array


def _key_array(block: DataBlock | DeleteBlock, key_field: str) -> pa.Array:
    if isinstance(block, DeleteBlock):
        return pa.array(block.record_keys, pa.string())
    if key_field not in block.records.column_names:
        return pa.nulls(block.record_count, pa.string())
    return pc.cast(block.records.column(key_field).combine_chunks(), pa.string())


def scan_log_stats(
    storage: StorageBackend,
    log_file_keys: Sequence[str],
    validity: InstantValidity,
    *,
    key_field: str,
    instant_in_file_name: bool,
) -> LogScanStats:
    """Scan a slice's log files (oldest first) and count what the compaction merges.

    Args:
        storage: The table's storage.
        log_file_keys: The slice's log files, in Java's order.
        validity: Which block instants are committed.
        key_field: The column holding record keys in data blocks.
        instant_in_file_name: Log file names carry their writer's instant (table version 8+).
    """
    blocks = rollbacks = 0
    records: list[_Records] = []
    cancelled_before: dict[str, int] = {}
    replacements: list[_Records] = []  # compacted blocks: the instants they replace, as keys
    tracker = CorruptBlockTracker(instant_in_file_name=instant_in_file_name)
    seq = 0
    for key in log_file_keys:
        for block in read_log_file(storage, key):
            blocks += 1
            seq += 1
            tracker.see(block)
            if isinstance(block, CommandBlock):
                if block.command_type is CommandType.ROLLBACK and validity.is_valid(block.instant_time):
                    rollbacks += 1
                    cancelled_before[block.target_instant_time] = seq
            elif isinstance(block, DataBlock | DeleteBlock) and validity.is_valid(block.instant_time):
                records.append(_Records(block.instant_time or "", seq, _key_array(block, key_field)))
                if replaced := compacted_instants(block):
                    replacements.append(_Records(block.instant_time or "", seq, pa.array(replaced, pa.string())))
    valid = [r for r in records if r.seq >= cancelled_before.get(r.instant, -1)]
    # A rolled-back compacted block replaces nothing.
    gone = {i for r in replacements if r.seq >= cancelled_before.get(r.instant, -1) for i in r.keys.to_pylist()}
    kept = [r.keys for r in valid if r.instant not in gone]
    keys = pa.concat_arrays(kept) if kept else pa.array([], pa.string())
    distinct = pc.unique(keys.drop_null())
    return LogScanStats(
        total_log_records=len(keys),
        total_updated_records_compacted=len(distinct),
        total_log_blocks=blocks,
        total_corrupt_log_blocks=tracker.corrupt_blocks,
        total_rollback_blocks=rollbacks,
        record_keys=distinct,
        corrupt=tuple(tracker.assess(validity)),
    )
