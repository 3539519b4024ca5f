"""Partition discovery and the listing of data files, straight from storage.

Java's file-system listing (``FileSystemBackedTableMetadata``) walks the table breadth first: a
directory holding a ``.hoodie_partition_metadata*`` file is a partition and is not descended into;
any other directory is, except ``.hoodie``. A non-partitioned table has the file at the base path
(partition ``""``). This module reaches the same answer with object-store-friendly listings instead of a
directory walk: one listing of the base path, and if that is not a partition, one recursive listing.
The data files of each partition come out of the same listings, so building a file-system view costs
no further requests.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hudi_framework.contracts.partition_path import check_partition_path
from hudi_framework.contracts.reserved_paths import METAFOLDER_NAME as METAFOLDER_NAME  # re-exported
from hudi_framework.contracts.storage import FileInfo, StorageBackend
from hudi_framework.errors import NestedPartitionError
from hudi_framework.layout.partition_metadata import is_partition_metadata_file


@dataclass(frozen=True, slots=True)
class TableListing:
    """The partitions of a table and the files directly inside each.

    Attributes:
        files: Partition path -> the files directly in it, partition metadata files excluded (other
            stray files such as ``.DS_Store`` are kept; the file-system view ignores names that are
            neither base nor log files).
    """

    files: Mapping[str, tuple[FileInfo, ...]] = field(default_factory=dict)

    @property
    def partitions(self) -> list[str]:
        """Partition paths, sorted."""
        return sorted(self.files)


def _parent(key: str) -> str:
    return key.rsplit("/", 1)[0] if "/" in key else ""


def _under_metafolder(key: str) -> bool:
    return METAFOLDER_NAME in key.split("/")[:-1]


def _group(infos: Iterable[FileInfo]) -> tuple[set[str], dict[str, list[FileInfo]]]:
    """Split listed files into directories holding partition metadata and files per directory."""
    marked: set[str] = set()
    by_dir: dict[str, list[FileInfo]] = defaultdict(list)
    for info in infos:
        if _under_metafolder(info.key):
            continue
        parent = _parent(info.key)
        if is_partition_metadata_file(info.name):
            marked.add(parent)
        else:
            by_dir[parent].append(info)
    return marked, by_dir


def _outermost(marked: set[str]) -> list[str]:
    """Drop partitions nested in another partition: Java never descends into a partition."""
    keep = []
    for path in sorted(marked):
        ancestors = path.split("/")
        if not any("/".join(ancestors[:i]) in marked for i in range(1, len(ancestors))):
            keep.append(path)
    return keep


def list_table(storage: StorageBackend, partitions: Iterable[str] | None = None) -> TableListing:
    """List the partitions of the table rooted at ``storage`` and their files.

    Args:
        storage: Backend rooted at the table's base path.
        partitions: Known partition paths to list (one non-recursive listing each, for writers and
            pruned reads); None discovers every partition.

    Returns:
        The listing. A table without any partition metadata file (for example an empty table) has no
        partitions.
    """
    if partitions is not None:
        out: dict[str, tuple[FileInfo, ...]] = {}
        for partition in partitions:
            infos = storage.list(partition)
            if any(is_partition_metadata_file(i.name) for i in infos):
                out[partition] = tuple(i for i in infos if not is_partition_metadata_file(i.name))
        return TableListing(out)

    root = storage.list("")
    if any(is_partition_metadata_file(i.name) for i in root):
        # Non-partitioned: the base path is the only partition, and Java does not look further.
        return TableListing({"": tuple(i for i in root if not is_partition_metadata_file(i.name))})
    marked, by_dir = _group(storage.list("", recursive=True))
    return TableListing({p: tuple(by_dir.get(p, ())) for p in _outermost(marked)})


def discover_partitions(storage: StorageBackend) -> list[str]:
    """Sorted partition paths of the table rooted at ``storage`` (``[""]`` if non-partitioned)."""
    return list_table(storage).partitions


def check_new_partitions(partitions: Iterable[str], existing: Iterable[str]) -> None:
    """Raise unless a listing will find each of ``partitions`` that is not one of ``existing``.

    A new partition path must have no refused segment, and must neither nest inside another
    partition (new or existing) nor hold one: a listing stops at the first partition on its way
    down (Java and :func:`list_table` keep the outer one, hudi-rs the inner one), so the other
    partition's rows would never be read.

    Args:
        partitions: Partition paths a write puts files into.
        existing: The table's partitions (:attr:`TableListing.partitions`).

    Raises:
        PartitionPathError: A new path has a refused segment.
        NestedPartitionError: A new path nests inside another partition or holds one.
    """
    known = set(existing)
    # "" is a non-partitioned table's only partition: nothing can nest with it.
    fresh = sorted({p for p in partitions if p and p not in known})
    if not fresh:
        return
    for path in fresh:
        check_partition_path(path)
    everything = (known | set(fresh)) - {""}
    if len({p.count("/") for p in everything}) <= 1:
        return  # paths of one depth never nest (the usual case, timestamp paths included)
    holders: dict[str, str] = {}  # a proper prefix of some partition -> that partition
    for path in everything:
        cut = path.rfind("/")
        while cut > 0:
            holders.setdefault(path[:cut], path)
            cut = path.rfind("/", 0, cut)
    for path in fresh:
        cut = path.rfind("/")
        while cut > 0:
            if path[:cut] in everything:
                raise NestedPartitionError(path, path[:cut])
            cut = path.rfind("/", 0, cut)
        if path in holders:
            raise NestedPartitionError(path, holders[path])
