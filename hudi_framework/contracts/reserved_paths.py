"""Path segments a partition path may not have: the names the layout reserves, and traversal.

Every listing of a table (ours, Apache Hudi's file-system listing, hudi-rs) skips the metadata
folder ``.hoodie`` and takes a ``.hoodie_partition_metadata*`` file for the marker of a partition, so
a partition path with such a segment is never read back; ``""``, ``.`` and ``..`` segments leave the
directory (Java rejects ``..`` in ``PartitionPathEncodeUtils.validateNoPathTraversal``). Other
hidden names (``.net``) are not reserved: Apache Hudi writes them, and every Hudi reader lists them.
"""

from __future__ import annotations

from typing import Final

__all__ = ["METAFOLDER_NAME", "PARTITION_METADATA_FILE", "RESERVED_SEGMENT_RE2", "path_problem", "segment_problem"]

#: The metadata folder; never a partition and never searched for partitions.
METAFOLDER_NAME: Final = ".hoodie"
#: The partition metadata file's name (text variant); variants append ``.<base format>``.
PARTITION_METADATA_FILE: Final = ".hoodie_partition_metadata"

#: Matches a ``/``-separated path holding a segment :func:`segment_problem` refuses (RE2 and Python).
RESERVED_SEGMENT_RE2: Final = r"(?:^|/)(?:\.{0,2}|\.hoodie|\.hoodie_partition_metadata(?:\.[^/]*)?)(?:/|$)"


def segment_problem(segment: str) -> str | None:
    """What ``segment`` is, when a partition path may not have it as a segment; None when it may."""
    if segment == "":
        return "empty"
    if segment in (".", ".."):
        return "a path traversal"
    if segment == METAFOLDER_NAME:
        return "the table's metadata folder, which no listing searches for partitions"
    if segment == PARTITION_METADATA_FILE or segment.startswith(PARTITION_METADATA_FILE + "."):
        return "the name of the file that marks a directory as a partition"
    return None


def path_problem(path: str) -> tuple[str, str] | None:
    """The first segment of a non-empty ``path`` that :func:`segment_problem` refuses, and why."""
    for segment in path.split("/"):
        problem = segment_problem(segment)
        if problem is not None:
            return segment, problem
    return None
