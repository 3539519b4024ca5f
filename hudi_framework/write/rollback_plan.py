"""The rollback plan (Avro ``HoodieRollbackPlan`` in ``<R>.rollback.requested``): what a rollback undoes.

It names the instant rolled back (``instantToRollback``: time and action) and, per file group, the
files to delete (``filesToBeDeleted``, full paths) or, on merge-on-read v6, the log files of the
failed write that a rollback block must cancel (``logBlocksToBeDeleted``: path -> size, in the slice
``fileId`` / ``latestBaseInstant``). Because the plan is written before anything is undone, a
rollback whose process died is finished by executing its plan again (Apache Hudi's pending
rollback). Plans written by Apache Hudi decode too: paths are taken as the request's partition plus
the file name, whatever the scheme of the full path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hudi_framework.layout.naming import parse_data_file_name
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container

if TYPE_CHECKING:
    from hudi_framework.contracts.storage import StorageBackend

__all__ = ["LogSlice", "RollbackPlan", "data_file_key"]


def data_file_key(partition: str, path: str) -> str:
    """The storage key of a data file given its partition and its full path (or name)."""
    name = path.rsplit("/", 1)[-1]
    return f"{partition}/{name}" if partition else name


def _partition_of(key: str) -> str:
    return key.rpartition("/")[0]


@dataclass(frozen=True, slots=True)
class LogSlice:
    """A v6 file slice the failed write appended to: it gets one rollback block.

    Attributes:
        partition: The partition path.
        file_id: The file group.
        base_instant: The slice's base instant (v6 log file names carry it).
        logs: ``(key, size)`` of each log file the failed write created there.
    """

    partition: str
    file_id: str
    base_instant: str
    logs: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class RollbackPlan:
    """What one rollback undoes.

    Attributes:
        target_time: The requested time of the instant rolled back.
        target_action: Its action when the plan was made (``commit``, ``deltacommit``...).
        deletes: Keys of the data files to delete.
        log_slices: Slices that get a rollback block instead (merge-on-read v6).
    """

    target_time: str
    target_action: str
    deletes: tuple[str, ...] = ()
    log_slices: tuple[LogSlice, ...] = ()

    @property
    def files(self) -> set[str]:
        """Every data file the plan names (deleted, or cancelled by a block)."""
        return {*self.deletes, *(key for s in self.log_slices for key, _ in s.logs)}

    @property
    def partitions(self) -> set[str]:
        """The partitions the plan touches."""
        return {_partition_of(k) for k in self.deletes} | {s.partition for s in self.log_slices}

    def instant_info(self) -> dict[str, str]:
        """The ``HoodieInstantInfo`` of the target."""
        return {"commitTime": self.target_time, "action": self.target_action}

    def encode(self, storage: StorageBackend) -> bytes:
        """The Avro ``HoodieRollbackPlan`` (full paths as ``storage`` spells them)."""
        requests: list[dict[str, Any]] = []
        for key in self.deletes:
            parsed = parse_data_file_name(key.rsplit("/", 1)[-1])
            requests.append(
                {
                    "partitionPath": _partition_of(key),
                    "fileId": parsed.file_id if parsed is not None else "",
                    "latestBaseInstant": "",
                    "filesToBeDeleted": [storage.uri(key)],
                    "logBlocksToBeDeleted": {},
                }
            )
        requests += [
            {
                "partitionPath": s.partition,
                "fileId": s.file_id,
                "latestBaseInstant": s.base_instant,
                "filesToBeDeleted": [],
                "logBlocksToBeDeleted": {storage.uri(key): size for key, size in s.logs},
            }
            for s in self.log_slices
        ]
        record = {"instantToRollback": self.instant_info(), "RollbackRequests": requests, "version": 1}
        return write_container(AvroSchemaName.ROLLBACK_PLAN, record)

    @classmethod
    def decode(cls, data: bytes, *, path: str) -> RollbackPlan:
        """Read a plan (ours or Apache Hudi's).

        Raises:
            InstantMetadataError: ``data`` is not a ``HoodieRollbackPlan``.
        """
        record = read_container(data, path=path).record
        target = record["instantToRollback"]
        deletes: list[str] = []
        slices: list[LogSlice] = []
        for request in record.get("RollbackRequests") or []:
            partition = request.get("partitionPath") or ""
            deletes += [data_file_key(partition, p) for p in request.get("filesToBeDeleted") or []]
            logs = request.get("logBlocksToBeDeleted") or {}
            if logs:
                slices.append(
                    LogSlice(
                        partition=partition,
                        file_id=request.get("fileId") or "",
                        base_instant=request.get("latestBaseInstant") or "",
                        logs=tuple(sorted((data_file_key(partition, p), int(n)) for p, n in logs.items())),
                    )
                )
        return cls(str(target["commitTime"]), str(target["action"]), tuple(deletes), tuple(slices))

    @classmethod
    def of_files(
        cls,
        target_time: str,
        target_action: str,
        files: Iterable[str],
        *,
        log_slices: Iterable[LogSlice] = (),
    ) -> RollbackPlan:
        """A plan deleting ``files`` (and blocking ``log_slices``)."""
        return cls(target_time, target_action, tuple(sorted(files)), tuple(log_slices))
