"""The log blocks of a table's latest file slices, damaged ones included (``hudi-fw show log-blocks``).

Each log file is read block by block, as readers read it; a corrupt block is judged with the rest of
its slice (:mod:`hudi_framework.read.corrupt_blocks`): ``lost`` and ``unknown`` blocks may hold
committed rows that every reader skips and that a compaction refuses to drop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from hudi_framework.layout.naming import WRITER_IN_LOG_NAME_VERSION
from hudi_framework.log.blocks import CommandBlock, CorruptBlock, DataBlock, DeleteBlock, LogBlock
from hudi_framework.log.reader import read_log_file
from hudi_framework.read.corrupt_blocks import CorruptBlockStatus, CorruptBlockTracker
from hudi_framework.read.merged_plan import instant_validity

if TYPE_CHECKING:
    from hudi_framework.runtime.table import HudiTable

__all__ = ["INTACT", "LogBlockInfo", "inspect_log_blocks"]

#: Status of a block that decoded.
INTACT: Final = "ok"


@dataclass(frozen=True, slots=True)
class LogBlockInfo:
    """One block of a log file.

    Attributes:
        partition_path: The file group's partition.
        file_id: The file group id.
        log_file: The log file's storage key.
        offset: Byte offset of the block (of the damaged range, for a corrupt block).
        length: Bytes of the block, magic through trailer (of the damaged range).
        block_type: ``AVRO_DATA``, ``PARQUET_DATA``, ``DELETE``, ``COMMAND``, ``HFILE_DATA``... or ``CORRUPT``.
        instant_time: The instant that wrote it (a corrupt block's, when its header or file name tells).
        target_instant_time: The instant a rollback command block cancels.
        record_count: Records of a data or delete block.
        status: ``ok``, or for a corrupt block ``lost``, ``unknown``, ``rolled-back`` or ``uncommitted``.
        reason: What is damaged (corrupt blocks).
    """

    partition_path: str
    file_id: str
    log_file: str
    offset: int
    length: int
    block_type: str
    instant_time: str | None
    target_instant_time: str | None = None
    record_count: int | None = None
    status: str = INTACT
    reason: str | None = None

    @property
    def corrupt(self) -> bool:
        """Whether the block is damaged."""
        return self.status != INTACT

    @property
    def may_lose_rows(self) -> bool:
        """Whether readers skipping this block may drop committed rows."""
        return self.corrupt and CorruptBlockStatus(self.status).may_lose_rows


def _intact(block: LogBlock, partition: str, file_id: str, key: str) -> LogBlockInfo:
    position = block.position
    count = None
    target = None
    if isinstance(block, DataBlock):
        count = block.record_count
    elif isinstance(block, DeleteBlock):
        count = len(block.columns)
    elif isinstance(block, CommandBlock):
        target = block.target_instant_time
    return LogBlockInfo(
        partition_path=partition,
        file_id=file_id,
        log_file=key,
        offset=position.offset if position is not None else 0,
        length=position.size if position is not None else 0,
        block_type=block.block_type.name,
        instant_time=block.instant_time,
        target_instant_time=target,
        record_count=count,
    )


def inspect_log_blocks(
    table: HudiTable, *, partition: str | None = None, file_id: str | None = None
) -> list[LogBlockInfo]:
    """Every block of the log files of the latest file slices (the ones readers merge), in read order.

    Args:
        table: The table.
        partition: Only this partition ("" for a non-partitioned table).
        file_id: Only this file group.
    """
    validity = instant_validity(table)
    in_name = table.config.version >= WRITER_IN_LOG_NAME_VERSION
    out: list[LogBlockInfo] = []
    for file_slice in table.latest_file_slices(partition=partition, check_format=False):
        if file_id is not None and file_slice.file_id != file_id:
            continue
        tracker = CorruptBlockTracker(instant_in_file_name=in_name)
        rows: list[LogBlockInfo | CorruptBlock] = []
        for key in file_slice.log_file_keys:
            for block in read_log_file(table.storage, key):
                tracker.see(block)
                rows.append(
                    block
                    if isinstance(block, CorruptBlock)
                    else _intact(block, file_slice.partition_path, file_slice.file_id, key)
                )
        judged = iter(tracker.assess(validity))
        for row in rows:
            if isinstance(row, LogBlockInfo):
                out.append(row)
                continue
            verdict = next(judged)
            out.append(
                LogBlockInfo(
                    partition_path=file_slice.partition_path,
                    file_id=file_slice.file_id,
                    log_file=row.path,
                    offset=row.offset,
                    length=row.length,
                    block_type=row.block_type.name,
                    instant_time=verdict.instant_time,
                    status=verdict.status.value,
                    reason=row.reason,
                )
            )
    return out
