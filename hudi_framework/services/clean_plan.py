"""``HoodieCleanerPlan``: what a ``T.clean.requested`` file holds.

A plan names the instant cleaning retains history from (``earliestInstantToRetain``), the newest
completed commit when it was made, the policy, and per partition the files to delete. Apache Hudi
has written version 2 plans since 0.8: files go in ``filePathsToBeDeletedPerPartition`` as full
paths, while the version 1 field ``filesToBeDeletedPerPartition`` stays an empty map. Savepointed
instants the plan honoured are listed in ``extraMetadata["savepointed_timestamps"]`` (incremental
cleaning uses them to notice a savepoint deleted since).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from hudi_framework.timeline.avro_container import AvroSchemaName, read_named_record, write_container

__all__ = [
    "CLEAN_PLAN_VERSION",
    "SAVEPOINTED_TIMESTAMPS",
    "CleanFileInfo",
    "CleanerPlan",
    "RetainedInstant",
    "decode_cleaner_plan",
    "encode_cleaner_plan",
    "savepoint_extra_metadata",
]

#: ``CleanPlanner.LATEST_CLEAN_PLAN_VERSION``.
CLEAN_PLAN_VERSION: Final = 2
#: ``extraMetadata`` key listing the savepoints a plan kept (comma separated).
SAVEPOINTED_TIMESTAMPS: Final = "savepointed_timestamps"


@dataclass(frozen=True, slots=True)
class RetainedInstant:
    """``HoodieActionInstant``: the earliest commit whose history a clean keeps.

    Attributes:
        timestamp: Its requested time.
        action: Its completed action (``commit``, ``deltacommit``, ``replacecommit``).
        state: Java's state name (``COMPLETED``).
    """

    timestamp: str
    action: str
    state: str = "COMPLETED"

    def to_record(self) -> dict[str, str]:
        """The Avro record."""
        return {"timestamp": self.timestamp, "action": self.action, "state": self.state}


@dataclass(frozen=True, slots=True)
class CleanFileInfo:
    """``HoodieCleanFileInfo``: one file to delete.

    Attributes:
        key: Storage key relative to the table base path (``partition/name``).
        file_path: The path as written in the plan (full URI).
        is_bootstrap_base_file: Whether it is a bootstrap source file (never set here).
    """

    key: str
    file_path: str
    is_bootstrap_base_file: bool = False

    @property
    def name(self) -> str:
        """The file name."""
        return self.key.rsplit("/", 1)[-1]


@dataclass(frozen=True, slots=True)
class CleanerPlan:
    """``HoodieCleanerPlan`` (version 2).

    Attributes:
        earliest_instant_to_retain: None when the policy found nothing old enough (or for
            ``KEEP_LATEST_FILE_VERSIONS`` without enough history).
        last_completed_commit: Requested time of the newest completed commit ("" if none).
        policy: The cleaning policy name.
        files: Partition -> files to delete (partitions scanned with nothing to delete map to ()).
        partitions_to_delete: Partitions removed as a whole (never planned here).
        extra_metadata: ``extraMetadata`` (the savepointed timestamps), None when empty.
        version: Plan version.
    """

    earliest_instant_to_retain: RetainedInstant | None
    last_completed_commit: str
    policy: str
    files: Mapping[str, tuple[CleanFileInfo, ...]] = field(default_factory=dict)
    partitions_to_delete: tuple[str, ...] = ()
    extra_metadata: Mapping[str, str] | None = None
    version: int = CLEAN_PLAN_VERSION

    @property
    def file_count(self) -> int:
        """Files the plan deletes."""
        return sum(len(infos) for infos in self.files.values())

    @property
    def keys(self) -> list[str]:
        """Storage keys of every file to delete, partition by partition."""
        return [info.key for infos in self.files.values() for info in infos]

    @property
    def savepointed_timestamps(self) -> list[str]:
        """Savepoints the plan kept."""
        raw = (self.extra_metadata or {}).get(SAVEPOINTED_TIMESTAMPS, "")
        return [t for t in raw.split(",") if t]

    def to_record(self) -> dict[str, Any]:
        """The Avro record, fields in schema order."""
        retained = self.earliest_instant_to_retain
        return {
            "earliestInstantToRetain": retained.to_record() if retained is not None else None,
            "lastCompletedCommitTimestamp": self.last_completed_commit,
            "policy": self.policy,
            "filesToBeDeletedPerPartition": {},
            "version": self.version,
            "filePathsToBeDeletedPerPartition": {
                p: [{"filePath": f.file_path, "isBootstrapBaseFile": f.is_bootstrap_base_file} for f in infos]
                for p, infos in self.files.items()
            },
            "partitionsToBeDeleted": list(self.partitions_to_delete),
            "extraMetadata": dict(self.extra_metadata) if self.extra_metadata else None,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CleanerPlan:
        """Decode a plan record (version 1 file lists are read into the version 2 shape)."""
        retained = record.get("earliestInstantToRetain")
        files: dict[str, tuple[CleanFileInfo, ...]] = {}
        for partition, infos in (record.get("filePathsToBeDeletedPerPartition") or {}).items():
            files[partition] = tuple(
                _file_info(partition, i.get("filePath") or "", bool(i.get("isBootstrapBaseFile"))) for i in infos
            )
        for partition, paths in (record.get("filesToBeDeletedPerPartition") or {}).items():
            if partition not in files:
                files[partition] = tuple(_file_info(partition, p, False) for p in paths)
        extra = record.get("extraMetadata")
        return cls(
            earliest_instant_to_retain=RetainedInstant(retained["timestamp"], retained["action"], retained["state"])
            if retained
            else None,
            last_completed_commit=record.get("lastCompletedCommitTimestamp") or "",
            policy=record.get("policy") or "",
            files=MappingProxyType(files),
            partitions_to_delete=tuple(record.get("partitionsToBeDeleted") or ()),
            extra_metadata=MappingProxyType(dict(extra)) if extra else None,
            version=record.get("version") or 1,
        )


def _file_info(partition: str, path: str, bootstrap: bool) -> CleanFileInfo:
    # Plans hold full paths (or, version 1, bare names); the key is partition + name either way.
    name = path.rsplit("/", 1)[-1]
    return CleanFileInfo(f"{partition}/{name}" if partition else name, path, bootstrap)


def savepoint_extra_metadata(savepoints: Sequence[str]) -> dict[str, str] | None:
    """``extraMetadata`` naming the savepoints a plan kept (None without savepoints)."""
    return {SAVEPOINTED_TIMESTAMPS: ",".join(savepoints)} if savepoints else None


def encode_cleaner_plan(plan: CleanerPlan) -> bytes:
    """The ``T.clean.requested`` content: a one-record Avro container with Java's writer schema."""
    return write_container(AvroSchemaName.CLEANER_PLAN, plan.to_record())


def decode_cleaner_plan(data: bytes, *, path: str = "<bytes>") -> CleanerPlan:
    """Decode a ``T.clean.requested`` (or layout-1 ``T.clean.inflight``) file.

    Raises:
        InstantMetadataError: Empty, or not a one-record Avro container of ``HoodieCleanerPlan``.
    """
    return CleanerPlan.from_record(read_named_record(data, AvroSchemaName.CLEANER_PLAN, path=path))
