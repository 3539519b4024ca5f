"""``HoodieCompactionPlan``: what a ``T.compaction.requested`` file holds, and the slice metrics in it.

A plan lists one operation per file slice to compact (hudi-format.md 2.5). Version 2 plans, the
only ones Apache Hudi writes today, name files by file name alone (no partition, no base path):
``dataFilePath`` is the base file's name (null for a slice without one) and ``deltaFilePaths`` the
log files' names in Java's log-file order. Each operation carries the metrics the strategy ordered
it by, computed like Java's ``FileSliceMetricUtils``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from hudi_framework.contracts.compaction import (
    TOTAL_IO_MB,
    TOTAL_IO_READ_MB,
    TOTAL_IO_WRITE_MB,
    TOTAL_LOG_FILES,
    TOTAL_LOG_FILES_SIZE,
)
from hudi_framework.errors import CompactionPlanError, InstantMetadataError
from hudi_framework.layout.file_group import BaseFile, FileGroupId, FileSlice, LogFile
from hudi_framework.layout.naming import BaseFileName, LogFileName, parse_data_file_name
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container

#: ``CompactionUtils.LATEST_COMPACTION_METADATA_VERSION``.
COMPACTION_PLAN_VERSION: Final = 2

_MB: Final = 1024 * 1024


def slice_metrics(file_slice: FileSlice, default_base_file_size: int) -> dict[str, float]:
    """The metrics Java records for one file slice (``FileSliceMetricUtils.addFileSliceCommonMetrics``).

    Read IO is base file plus log files, write IO the base file's size (or ``default_base_file_size``,
    ``hoodie.parquet.max.file.size``, for a slice without one); both in whole MB, rounded down.

    Args:
        file_slice: The slice.
        default_base_file_size: Bytes assumed for the new base file of a slice without a base file.

    Returns:
        Metric name -> value, in the key order Java's ``HashMap`` serialises them.
    """
    log_size = sum(log.size for log in file_slice.log_files if log.size is not None and log.size >= 0)
    base = file_slice.base_file
    base_size = (base.size or 0) if base is not None else 0
    read_mb = (base_size + log_size) // _MB
    write_mb = (base_size if base_size > 0 else default_base_file_size) // _MB
    return {
        TOTAL_LOG_FILES: float(len(file_slice.log_files)),
        TOTAL_IO_MB: float(read_mb + write_mb),
        TOTAL_IO_READ_MB: float(read_mb),
        TOTAL_LOG_FILES_SIZE: float(log_size),
        TOTAL_IO_WRITE_MB: float(write_mb),
    }


@dataclass(frozen=True, slots=True)
class CompactionOperation:
    """``HoodieCompactionOperation``: one file slice to compact into a new base file.

    Attributes:
        file_group: The file group.
        base_instant_time: The slice's base instant.
        delta_file_names: Names of the slice's log files, oldest first.
        data_file_name: Name of the slice's base file, or None for a slice of log files only.
        metrics: Strategy metrics (see :func:`slice_metrics`).
        bootstrap_file_path: Bootstrap base file (bootstrapped tables only; never set here).
    """

    file_group: FileGroupId
    base_instant_time: str
    delta_file_names: tuple[str, ...]
    data_file_name: str | None = None
    metrics: Mapping[str, float] = field(default_factory=dict)
    bootstrap_file_path: str | None = None

    @classmethod
    def from_slice(cls, file_slice: FileSlice, metrics: Mapping[str, float]) -> CompactionOperation:
        """The operation compacting ``file_slice`` (``CompactionUtils.buildFromFileSlice``)."""
        return cls(
            file_group=file_slice.file_group_id,
            base_instant_time=file_slice.base_instant_time,
            delta_file_names=tuple(file_slice.log_file_names),
            data_file_name=file_slice.base_file_name,
            metrics=MappingProxyType(dict(metrics)),
        )

    @property
    def partition_path(self) -> str:
        """The file group's partition path."""
        return self.file_group.partition_path

    @property
    def file_id(self) -> str:
        """The file group's id."""
        return self.file_group.file_id

    def metric(self, name: str) -> float:
        """A metric, 0 when absent (as Java's ``getOrDefault``)."""
        return float(self.metrics.get(name, 0.0))

    def file_slice(self, sizes: Mapping[str, int] | None = None) -> FileSlice:
        """The slice the operation names, rebuilt from file names (``sizes``: storage key -> bytes).

        Raises:
            CompactionPlanError: A file name in the operation is not a base or log file name.
        """
        fg = self.file_group
        known = sizes or {}
        base = None
        if self.data_file_name:
            parsed = parse_data_file_name(self.data_file_name)
            if not isinstance(parsed, BaseFileName):
                raise CompactionPlanError("", f"{self.data_file_name!r} is not a base file name")
            base = BaseFile(parsed, known.get(fg.key(self.data_file_name)))
        logs = []
        for name in self.delta_file_names:
            log = parse_data_file_name(name)
            if not isinstance(log, LogFileName):
                raise CompactionPlanError("", f"{name!r} is not a log file name")
            logs.append(LogFile(log, known.get(fg.key(name))))
        return FileSlice.create(fg, self.base_instant_time, base, logs)

    def to_record(self) -> dict[str, Any]:
        """The Avro record, fields in schema order."""
        return {
            "baseInstantTime": self.base_instant_time,
            "deltaFilePaths": list(self.delta_file_names),
            "dataFilePath": self.data_file_name,
            "fileId": self.file_id,
            "partitionPath": self.partition_path,
            "metrics": dict(self.metrics),
            "bootstrapFilePath": self.bootstrap_file_path,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CompactionOperation:
        """Decode one operation record (version 2: names; version 1 paths are reduced to names)."""
        partition = record.get("partitionPath") or ""
        file_id = record.get("fileId")
        base_instant = record.get("baseInstantTime")
        if not file_id or not base_instant:
            raise CompactionPlanError("", f"operation without fileId or baseInstantTime: {dict(record)!r}")
        data = record.get("dataFilePath")
        return cls(
            file_group=FileGroupId(partition, file_id),
            base_instant_time=base_instant,
            delta_file_names=tuple(p.rsplit("/", 1)[-1] for p in record.get("deltaFilePaths") or ()),
            data_file_name=data.rsplit("/", 1)[-1] if data else None,
            metrics=MappingProxyType(dict(record.get("metrics") or {})),
            bootstrap_file_path=record.get("bootstrapFilePath"),
        )


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """``HoodieCompactionPlan``.

    Attributes:
        operations: The file slices to compact, in the strategy's order.
        extra_metadata: ``extraMetadata`` (Java writes an empty map).
        version: Plan version (2).
        missing_schedule_partitions: Partitions a strategy skipped (incremental table services).
        preserve_hoodie_metadata: ``preserveHoodieMetadata`` (Java writes false for compaction).
        compactor_class_name: ``strategy.compactorClassName``: Java names its log compaction
            executor there; None writes no strategy (what Java writes for compaction).
    """

    operations: tuple[CompactionOperation, ...]
    extra_metadata: Mapping[str, str] = field(default_factory=dict)
    version: int = COMPACTION_PLAN_VERSION
    missing_schedule_partitions: tuple[str, ...] = ()
    preserve_hoodie_metadata: bool = False
    compactor_class_name: str | None = None

    def to_record(self) -> dict[str, Any]:
        """The Avro record as Java writes it (empty extra metadata; a strategy for log compaction only)."""
        return {
            "operations": [op.to_record() for op in self.operations],
            "extraMetadata": dict(self.extra_metadata),
            "version": self.version,
            "strategy": None
            if self.compactor_class_name is None
            else {"compactorClassName": self.compactor_class_name, "strategyParams": {}, "version": 1},
            "preserveHoodieMetadata": self.preserve_hoodie_metadata,
            "missingSchedulePartitions": list(self.missing_schedule_partitions),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> CompactionPlan:
        """Decode a plan record.

        Raises:
            CompactionPlanError: An operation lacks its file id or base instant.
        """
        return cls(
            operations=tuple(CompactionOperation.from_record(op) for op in record.get("operations") or ()),
            extra_metadata=MappingProxyType(dict(record.get("extraMetadata") or {})),
            version=record.get("version") or COMPACTION_PLAN_VERSION,
            missing_schedule_partitions=tuple(record.get("missingSchedulePartitions") or ()),
            preserve_hoodie_metadata=bool(record.get("preserveHoodieMetadata")),
            compactor_class_name=(record.get("strategy") or {}).get("compactorClassName"),
        )

    @property
    def file_groups(self) -> list[FileGroupId]:
        """The file groups the plan compacts."""
        return [op.file_group for op in self.operations]


def encode_compaction_plan(plan: CompactionPlan) -> bytes:
    """The ``T.compaction.requested`` content: a one-record Avro container, Java's writer schema."""
    return write_container(AvroSchemaName.COMPACTION_PLAN, plan.to_record())


def decode_compaction_plan(data: bytes, *, path: str = "<bytes>") -> CompactionPlan:
    """Decode a ``T.compaction.requested`` file.

    Raises:
        InstantMetadataError: Not a one-record Avro container of ``HoodieCompactionPlan``.
        CompactionPlanError: An operation is incomplete.
    """
    if not data:
        raise InstantMetadataError(path, "empty compaction plan")
    avro = read_container(data, path=path)
    if avro.short_name != AvroSchemaName.COMPACTION_PLAN.value:
        raise InstantMetadataError(path, f"expected HoodieCompactionPlan, found {avro.schema_name}")
    return CompactionPlan.from_record(avro.record)
