"""``HoodieCleanMetadata``: what a completed ``clean`` instant holds.

Version 2 metadata (Apache Hudi's ``CleanerUtils.convertCleanMetadata``) records per partition the
policy and the *file names* (not paths) it meant to delete, deleted and failed to delete, plus the
earliest commit retained and the newest completed commit at planning time. The next clean's trigger
counts commits after that last one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from hudi_framework.timeline.avro_container import AvroSchemaName, read_named_record, write_container

__all__ = [
    "CLEAN_METADATA_VERSION",
    "CleanMetadata",
    "CleanPartitionMetadata",
    "decode_clean_metadata",
    "encode_clean_metadata",
]

#: ``CleanerUtils.LATEST_CLEAN_METADATA_VERSION``.
CLEAN_METADATA_VERSION: Final = 2


@dataclass(frozen=True, slots=True)
class CleanPartitionMetadata:
    """``HoodieCleanPartitionMetadata``: one partition's outcome.

    Attributes:
        partition_path: The partition.
        policy: The policy name.
        delete_path_patterns: Names of the files the plan listed.
        success_delete_files: Names deleted (or already gone).
        failed_delete_files: Names that could not be deleted.
        is_partition_deleted: Whether the partition itself was removed.
    """

    partition_path: str
    policy: str
    delete_path_patterns: tuple[str, ...] = ()
    success_delete_files: tuple[str, ...] = ()
    failed_delete_files: tuple[str, ...] = ()
    is_partition_deleted: bool = False

    def to_record(self) -> dict[str, Any]:
        """The Avro record."""
        return {
            "partitionPath": self.partition_path,
            "policy": self.policy,
            "deletePathPatterns": list(self.delete_path_patterns),
            "successDeleteFiles": list(self.success_delete_files),
            "failedDeleteFiles": list(self.failed_delete_files),
            "isPartitionDeleted": self.is_partition_deleted,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CleanPartitionMetadata:
        """Decode one partition record (version 1 paths are reduced to names)."""

        def names(field_name: str) -> tuple[str, ...]:
            return tuple(p.rsplit("/", 1)[-1] for p in record.get(field_name) or ())

        return cls(
            partition_path=record.get("partitionPath") or "",
            policy=record.get("policy") or "",
            delete_path_patterns=names("deletePathPatterns"),
            success_delete_files=names("successDeleteFiles"),
            failed_delete_files=names("failedDeleteFiles"),
            is_partition_deleted=bool(record.get("isPartitionDeleted")),
        )


@dataclass(frozen=True, slots=True)
class CleanMetadata:
    """``HoodieCleanMetadata`` (version 2).

    Attributes:
        start_clean_time: The clean instant's requested time.
        time_taken_ms: Execution time.
        earliest_commit_to_retain: The plan's earliest retained commit ("" if none).
        last_completed_commit: The plan's newest completed commit ("" if none).
        partitions: Partition -> outcome.
        extra_metadata: The plan's ``extraMetadata``.
        version: Metadata version.
    """

    start_clean_time: str
    time_taken_ms: int
    earliest_commit_to_retain: str
    last_completed_commit: str
    partitions: Mapping[str, CleanPartitionMetadata] = field(default_factory=dict)
    extra_metadata: Mapping[str, str] | None = None
    version: int = CLEAN_METADATA_VERSION

    @property
    def total_files_deleted(self) -> int:
        """``totalFilesDeleted``: successful deletes over all partitions."""
        return sum(len(p.success_delete_files) for p in self.partitions.values())

    def to_record(self) -> dict[str, Any]:
        """The Avro record, fields in schema order."""
        return {
            "startCleanTime": self.start_clean_time,
            "timeTakenInMillis": self.time_taken_ms,
            "totalFilesDeleted": self.total_files_deleted,
            "earliestCommitToRetain": self.earliest_commit_to_retain,
            "lastCompletedCommitTimestamp": self.last_completed_commit,
            "partitionMetadata": {p: m.to_record() for p, m in self.partitions.items()},
            "version": self.version,
            "bootstrapPartitionMetadata": {},
            "extraMetadata": dict(self.extra_metadata) if self.extra_metadata else None,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CleanMetadata:
        """Decode a metadata record."""
        parts = record.get("partitionMetadata") or {}
        extra = record.get("extraMetadata")
        return cls(
            start_clean_time=record.get("startCleanTime") or "",
            time_taken_ms=int(record.get("timeTakenInMillis") or 0),
            earliest_commit_to_retain=record.get("earliestCommitToRetain") or "",
            last_completed_commit=record.get("lastCompletedCommitTimestamp") or "",
            partitions=MappingProxyType({p: CleanPartitionMetadata.from_record(m) for p, m in parts.items()}),
            extra_metadata=MappingProxyType(dict(extra)) if extra else None,
            version=record.get("version") or 1,
        )


def encode_clean_metadata(metadata: CleanMetadata) -> bytes:
    """The completed ``clean`` file content: a one-record Avro container with Java's writer schema."""
    return write_container(AvroSchemaName.CLEAN_METADATA, metadata.to_record())


def decode_clean_metadata(data: bytes, *, path: str = "<bytes>") -> CleanMetadata:
    """Decode a completed ``clean`` file.

    Raises:
        InstantMetadataError: Empty, or not a one-record Avro container of ``HoodieCleanMetadata``.
    """
    return CleanMetadata.from_record(read_named_record(data, AvroSchemaName.CLEAN_METADATA, path=path))
