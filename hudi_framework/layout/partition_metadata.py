"""The ``.hoodie_partition_metadata`` file that marks a directory as a partition.

Java's ``HoodiePartitionMetadata`` writes a Java properties file (hudi-format.md section 3.4)::

    #partition metadata
    #Thu Apr 18 17:28:02 UTC 2024
    commitTime=20240418172802262
    partitionDepth=1

A base-format variant ``.hoodie_partition_metadata.parquet`` carries the same two keys in the
parquet footer key/value metadata. Java's file-system listing counts a directory as a partition only
if it holds one of these files, so every writer must create it before (or with) the first data file.
"""

from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass

from hudi_framework.contracts.partition_path import PartitionPathError, check_partition_path
from hudi_framework.contracts.reserved_paths import PARTITION_METADATA_FILE as PARTITION_METADATA_FILE  # re-exported
from hudi_framework.contracts.storage import StorageBackend
from hudi_framework.errors import PreconditionFailedError, StorageNotFoundError, UnsupportedFormatError

COMMIT_TIME_KEY = "commitTime"
PARTITION_DEPTH_KEY = "partitionDepth"
_HEADER_COMMENT = "partition metadata"
# java.util.Date.toString(): "EEE MMM dd HH:mm:ss zzz yyyy", always English names.
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def is_partition_metadata_file(name: str) -> bool:
    """Whether a file name is a partition metadata file (text or base-format variant)."""
    return name == PARTITION_METADATA_FILE or name.startswith(PARTITION_METADATA_FILE + ".")


def partition_depth(partition_path: str) -> int:
    """Number of path segments of a partition path; 0 for the non-partitioned ``""``."""
    return partition_path.count("/") + 1 if partition_path else 0


def partition_metadata_key(partition_path: str) -> str:
    """Storage key of the text partition metadata file of a partition."""
    return f"{partition_path}/{PARTITION_METADATA_FILE}" if partition_path else PARTITION_METADATA_FILE


def _java_date(now: dt.datetime) -> str:
    now = now.astimezone(dt.UTC)
    return f"{_DAYS[now.weekday()]} {_MONTHS[now.month - 1]} {now.day:02d} {now:%H:%M:%S} UTC {now.year}"


def _parse_properties(text: str) -> dict[str, str]:
    """The subset of ``java.util.Properties.load`` these files use: comments, ``=``/``:``, blanks."""
    props: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        cut = min((i for i in (line.find("="), line.find(":")) if i >= 0), default=-1)
        if cut < 0:
            key, value = line, ""
        else:
            key, value = line[:cut].strip(), line[cut + 1 :].strip()
        props[key] = value
    return props


@dataclass(frozen=True, slots=True)
class PartitionMetadata:
    """Content of a partition metadata file.

    Attributes:
        commit_time: The instant that created the partition.
        partition_depth: Number of segments of the partition path (0 at the base path).
    """

    commit_time: str
    partition_depth: int

    @classmethod
    def for_partition(cls, partition_path: str, commit_time: str) -> PartitionMetadata:
        """Metadata for a partition created by ``commit_time``."""
        return cls(commit_time, partition_depth(partition_path))

    @classmethod
    def from_properties(cls, props: dict[str, str], source: str) -> PartitionMetadata:
        """Build from the decoded key/values; ``source`` names the file in errors."""
        commit_time = props.get(COMMIT_TIME_KEY)
        depth = props.get(PARTITION_DEPTH_KEY)
        if not commit_time or depth is None or not depth.isdigit():
            raise PartitionPathError(source, "partition metadata lacks commitTime or a numeric partitionDepth")
        return cls(commit_time, int(depth))

    @classmethod
    def from_bytes(cls, data: bytes, source: str = PARTITION_METADATA_FILE) -> PartitionMetadata:
        """Parse the text (properties) variant.

        Raises:
            PartitionPathError: A required key is missing or malformed.
        """
        # Java's Properties.store writes ISO-8859-1 with \\uXXXX escapes; our keys are ASCII.
        return cls.from_properties(_parse_properties(data.decode("latin-1")), source)

    @classmethod
    def from_parquet(cls, data: bytes, source: str) -> PartitionMetadata:
        """Parse the ``.parquet`` variant (keys in the footer key/value metadata)."""
        import pyarrow.parquet as pq

        meta = pq.read_metadata(io.BytesIO(data)).metadata or {}
        props = {k.decode(): v.decode() for k, v in meta.items()}
        return cls.from_properties(props, source)

    def to_bytes(self, now: dt.datetime | None = None) -> bytes:
        """Serialise as Java does: header comment, date comment, then the two keys.

        Args:
            now: Time for the date comment (informational only); the current time when None.
        """
        stamp = _java_date(now or dt.datetime.now(dt.UTC))
        text = (
            f"#{_HEADER_COMMENT}\n#{stamp}\n"
            f"{COMMIT_TIME_KEY}={self.commit_time}\n{PARTITION_DEPTH_KEY}={self.partition_depth}\n"
        )
        return text.encode("latin-1")


def read_partition_metadata(storage: StorageBackend, partition_path: str) -> PartitionMetadata:
    """Read a partition's metadata file, text variant first, then the base-format variants.

    Raises:
        StorageNotFoundError: The partition has no metadata file.
        UnsupportedFormatError: Only an ORC (or other non-parquet) variant exists.
    """
    key = partition_metadata_key(partition_path)
    try:
        return PartitionMetadata.from_bytes(storage.read(key), key)
    except StorageNotFoundError:
        pass
    for info in storage.list(partition_path):
        if is_partition_metadata_file(info.name) and info.name != PARTITION_METADATA_FILE:
            if info.name.endswith(".parquet"):
                return PartitionMetadata.from_parquet(storage.read(info.key), info.key)
            raise UnsupportedFormatError(f"partition metadata format of {info.key!r} is not supported")
    raise StorageNotFoundError(key)


def write_partition_metadata(
    storage: StorageBackend, partition_path: str, commit_time: str, *, now: dt.datetime | None = None
) -> bool:
    """Create a partition's metadata file unless one exists (first writer wins, like Java).

    Returns:
        True if this call created the file, False if it already existed.
    """
    check_partition_path(partition_path)
    key = partition_metadata_key(partition_path)
    # Almost every write goes to partitions that have the file already: a lookup is one stat (a HEAD
    # on object stores), where a conditional put writes a temporary copy first. Java checks too.
    if storage.exists(key):
        return False
    data = PartitionMetadata.for_partition(partition_path, commit_time).to_bytes(now)
    try:
        storage.put_if_absent(key, data)
    except PreconditionFailedError:
        return False
    return True
