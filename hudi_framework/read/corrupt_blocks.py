"""Whether skipping a file slice's corrupt log blocks can lose committed rows.

Readers skip a corrupt block, as Apache Hudi's log reader does. That loses nothing when the block
belongs to a write that never completed, or whose instant was rolled back; otherwise the block may
hold committed rows that no reader returns, and a compaction would make that loss permanent.

The writer of a damaged block is its INSTANT_TIME header when still readable, else, from table
version 8 on (every delta commit writes log files of its own), the instant in the log file's name.
When both are known and differ, neither is trusted. A block with no known writer may hold
committed rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hudi_framework.layout.naming import LogFileName
from hudi_framework.log.blocks import Block, CommandBlock, CommandType, CorruptBlock
from hudi_framework.read.merged_task import InstantValidity

__all__ = [
    "AssessedCorruptBlock",
    "CorruptBlockStatus",
    "CorruptBlockTracker",
    "writer_instant",
]


class CorruptBlockStatus(StrEnum):
    """What skipping one corrupt block costs."""

    #: Written by a completed write that was not rolled back: its rows are missing from every read.
    LOST = "lost"
    #: The writer cannot be told: the block may hold committed rows.
    UNKNOWN = "unknown"
    #: A later rollback command block in the slice cancels the block's instant.
    ROLLED_BACK = "rolled-back"
    #: Its instant is no completed write (failed, still pending, or rolled back and removed).
    UNCOMMITTED = "uncommitted"

    @property
    def may_lose_rows(self) -> bool:
        """Whether skipping the block may drop committed rows."""
        return self in (CorruptBlockStatus.LOST, CorruptBlockStatus.UNKNOWN)


@dataclass(frozen=True, slots=True)
class AssessedCorruptBlock:
    """One corrupt block, its writer and what skipping it costs."""

    block: CorruptBlock
    instant_time: str | None
    status: CorruptBlockStatus


def writer_instant(block: CorruptBlock, *, instant_in_file_name: bool) -> str | None:
    """The instant that wrote ``block``: from its header, or the log file name (v8+); None if unknown."""
    named = None
    if instant_in_file_name:
        parsed = LogFileName.try_parse(block.path.rpartition("/")[2])
        named = parsed.instant_time if parsed is not None else None
    header = block.instant_time
    if header is not None and named is not None and header != named:
        return None  # one of them is damaged, and we cannot tell which
    return header or named


class CorruptBlockTracker:
    """Follows one file slice's blocks in read order (every log file, oldest first), then judges its
    corrupt blocks with the rollback command blocks seen after them."""

    def __init__(self, *, instant_in_file_name: bool) -> None:
        """Start a slice; ``instant_in_file_name``: table version 8 or later."""
        self._in_name = instant_in_file_name
        self._seq = 0
        self._corrupt: list[tuple[int, CorruptBlock]] = []
        self._rollbacks: dict[str, int] = {}

    def see(self, block: Block) -> None:
        """The next block of the slice."""
        self._seq += 1
        if isinstance(block, CorruptBlock):
            self._corrupt.append((self._seq, block))
        elif isinstance(block, CommandBlock) and block.command_type is CommandType.ROLLBACK:
            # As the reader: a rollback command cancels every earlier block of its target instant.
            self._rollbacks[block.target_instant_time] = self._seq

    @property
    def corrupt_blocks(self) -> int:
        """Corrupt blocks seen so far."""
        return len(self._corrupt)

    def assess(self, validity: InstantValidity) -> list[AssessedCorruptBlock]:
        """Every corrupt block seen, in read order, with its writer and status."""
        out = []
        for seq, block in self._corrupt:
            instant = writer_instant(block, instant_in_file_name=self._in_name)
            if instant is None:
                status = CorruptBlockStatus.UNKNOWN
            elif self._rollbacks.get(instant, -1) > seq:
                status = CorruptBlockStatus.ROLLED_BACK
            elif not validity.is_valid(instant):
                status = CorruptBlockStatus.UNCOMMITTED
            else:
                status = CorruptBlockStatus.LOST
            out.append(AssessedCorruptBlock(block, instant, status))
        return out
