"""Kafka checkpoints and offset ranges, as Apache Hudi's ``KafkaOffsetGen`` computes them.

* **Checkpoint.** ``topic,0:120,1:98,2:77``: the topic, then for every partition (in partition order)
  the offset the next batch starts from. Apache Hudi writes and reads exactly this string, so a
  table ingested by its HoodieStreamer resumes here and the other way round.
* **Ranges.** A batch takes at most ``limit`` records spread evenly over the partitions: each round
  gives every partition with records left at most ``max(1, limit // max(min_partitions,
  partitions))`` more, until the limit is allocated. A partition can so get several ranges, which
  is how ``minPartitions`` splits a large partition into more tasks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from hudi_framework.errors import CheckpointError

#: ``partition:offset`` after the topic, both non-negative integers.
_ENTRY: Final = re.compile(r"(\d+):(\d+)")


@dataclass(frozen=True, slots=True, order=True)
class OffsetRange:
    """Records ``[start, stop)`` of one partition."""

    partition: int
    start: int
    stop: int

    @property
    def count(self) -> int:
        """How many records the range holds."""
        return self.stop - self.start


def format_checkpoint(topic: str, offsets: Mapping[int, int]) -> str:
    """Apache Hudi's checkpoint string: ``topic,<partition>:<next offset>,...`` in partition order."""
    return ",".join([topic, *(f"{p}:{offsets[p]}" for p in sorted(offsets))])


def parse_checkpoint(source: str, topic: str, checkpoint: str) -> dict[int, int]:
    """The next offset of each partition a checkpoint of ``topic`` names.

    Raises:
        CheckpointError: The checkpoint is not of that form, or belongs to another topic.
    """
    name, _, rest = checkpoint.partition(",")  # Kafka topic names never hold a comma
    if not name or not rest:
        raise CheckpointError(source, checkpoint, "expected 'topic,partition:offset,...' (Apache Hudi's format)")
    if name != topic:
        raise CheckpointError(source, checkpoint, f"it is a checkpoint of topic {name!r}, not {topic!r}")
    offsets: dict[int, int] = {}
    for entry in rest.split(","):
        match = _ENTRY.fullmatch(entry.strip())
        if match is None:
            raise CheckpointError(source, checkpoint, f"{entry!r} is not 'partition:offset'")
        partition, offset = int(match.group(1)), int(match.group(2))
        if partition in offsets:
            raise CheckpointError(source, checkpoint, f"partition {partition} is named twice")
        offsets[partition] = offset
    return offsets


def compute_ranges(
    start: Mapping[int, int], end: Mapping[int, int], *, limit: int, min_partitions: int
) -> tuple[OffsetRange, ...]:
    """The ranges of the next batch: at most ``limit`` records between ``start`` and ``end``.

    Args:
        start: Each partition's first offset to read (partitions missing here start at 0).
        end: Each partition's end offset (the offset after its last record).
        limit: At most this many records in all.
        min_partitions: Apache Hudi's ``minPartitions``: cut the batch into at least about this many
            ranges (0: one range per partition).

    Returns:
        Non-empty ranges sorted by partition then offset; empty when there is nothing to read.
    """
    bounds = {p: (start.get(p, 0), stop) for p, stop in sorted(end.items())}
    available = sum(max(0, stop - first) for first, stop in bounds.values())
    wanted = min(available, max(0, limit))
    per_round = max(1, wanted // max(min_partitions, len(bounds), 1))
    cursor = {p: first for p, (first, _) in bounds.items()}
    ranges: list[OffsetRange] = []
    allocated = 0
    while allocated < wanted:
        for partition, (_, stop) in bounds.items():
            if allocated == wanted:
                break
            first = cursor[partition]
            last = min(stop, first + min(per_round, wanted - allocated))
            if last > first:
                ranges.append(OffsetRange(partition, first, last))
                cursor[partition] = last
                allocated += last - first
    return tuple(sorted(ranges))


def reached(start: Mapping[int, int], ranges: tuple[OffsetRange, ...]) -> dict[int, int]:
    """Each partition's next offset once ``ranges`` are read from ``start``."""
    offsets = dict(start)
    for r in ranges:
        offsets[r.partition] = max(offsets.get(r.partition, 0), r.stop)
    return offsets
