"""Choosing the next batch of landing files: Apache Hudi's ``DFSPathSelector`` rule, made exactly once.

Files are listed recursively under the root, skipping every name (file or directory) that starts
with ``_`` or ``.`` (Spark's ``_SUCCESS``, ``_temporary/``, hidden files being uploaded). A file is
new when its modification time, in epoch milliseconds, is after the checkpoint; new files are taken
in (modification time, key) order up to the byte limit, and the checkpoint becomes the last
modification time taken (Apache Hudi's checkpoint format).

Unlike Apache Hudi, files sharing one modification time are taken together or not at all: the next
plan skips everything at or before the checkpoint, so taking only part of such a group would lose
the rest. The first group is taken even when it alone exceeds the limit (else a big file would stall
the stream).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from hudi_framework.contracts.storage import FileInfo
from hudi_framework.errors import CheckpointError

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_MILLI = dt.timedelta(milliseconds=1)
_IGNORED_PREFIXES = ("_", ".")


@dataclass(frozen=True, slots=True)
class LandedFile:
    """A file eligible for ingestion: its key under the root, size and modification time (epoch ms)."""

    key: str
    size: int
    mtime_ms: int


@dataclass(frozen=True, slots=True)
class Selection:
    """The files of the next batch, in order, and the checkpoint they reach."""

    files: tuple[LandedFile, ...]
    checkpoint: str | None


def epoch_millis(moment: dt.datetime) -> int:
    """``moment`` in whole epoch milliseconds, truncated as Hadoop's ``getModificationTime`` is."""
    return (moment - _EPOCH) // _MILLI


def eligible(infos: Iterable[FileInfo]) -> list[LandedFile]:
    """The listed files no path segment of which is hidden (``_``/``.``-prefixed), sorted by (mtime, key)."""
    files = [
        LandedFile(info.key, info.size, epoch_millis(info.modified))
        for info in infos
        if not any(part.startswith(_IGNORED_PREFIXES) for part in info.key.split("/"))
    ]
    files.sort(key=lambda f: (f.mtime_ms, f.key))
    return files


def parse_checkpoint(source: str, checkpoint: str | None) -> int | None:
    """The epoch milliseconds a checkpoint holds (None: read from the start).

    Raises:
        CheckpointError: Not an integer (another source's checkpoint, a Kafka offset list...).
    """
    if checkpoint is None:
        return None
    text = checkpoint.strip()
    try:
        return int(text)
    except ValueError:
        raise CheckpointError(source, checkpoint, "expected a modification time in epoch milliseconds") from None


def select(
    source: str,
    files: Sequence[LandedFile],
    checkpoint: str | None,
    limit: int | None,
    *,
    settled_before_ms: int | None = None,
) -> Selection:
    """The next batch among ``files`` (from :func:`eligible`) after ``checkpoint``, at most ``limit`` bytes.

    Files modified at or after ``settled_before_ms`` (epoch ms) are left for a later batch; being the
    newest, leaving them out leaves no gap behind the checkpoint.

    Raises:
        CheckpointError: ``checkpoint`` is not epoch milliseconds.
    """
    after = parse_checkpoint(source, checkpoint)
    new = [
        f
        for f in files
        if (after is None or f.mtime_ms > after) and (settled_before_ms is None or f.mtime_ms < settled_before_ms)
    ]
    taken: list[LandedFile] = []
    total = 0
    start = 0
    while start < len(new):
        end = start
        while end < len(new) and new[end].mtime_ms == new[start].mtime_ms:
            end += 1
        group = new[start:end]
        size = sum(f.size for f in group)
        if taken and limit is not None and total + size > limit:
            break
        taken += group
        total += size
        start = end
        if limit is not None and total >= limit:
            break
    if not taken:
        return Selection((), checkpoint)
    return Selection(tuple(taken), str(taken[-1].mtime_ms))
