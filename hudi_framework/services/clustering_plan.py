"""``HoodieClusteringPlan``: what a pending clustering's requested file holds.

A clustering is requested as ``T.clustering.requested`` (layout 2) or ``T.replacecommit.requested``
(layout 1), both holding a ``HoodieRequestedReplaceMetadata`` whose ``operationType`` is ``CLUSTER``
and whose ``clusteringPlan`` lists the input groups: each a set of file slices of one partition
(``HoodieSliceInfo``) rewritten together into ``numOutputFileGroups`` new file groups. The
``strategy`` names the execution strategy and carries the parameters scheduling fixed for it (the
sort columns, as Java's ``SparkSizeBasedClusteringPlanStrategy.getStrategyParams``), so a separate
job executes the plan as it was scheduled. Slices name their files by full path, as Java writes
them; decoding keeps only the file names (the slice's partition says where they are).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from hudi_framework.errors import ClusteringPlanError, InstantMetadataError
from hudi_framework.layout.file_group import FileGroupId, FileSlice
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, write_container
from hudi_framework.vocabulary import WriteOperationType

__all__ = [
    "CLUSTERING_PLAN_VERSION",
    "LAYOUT_OPTIMIZE_STRATEGY_PARAM",
    "SORT_AND_SIZE_EXECUTION_STRATEGY",
    "SORT_COLUMNS_PARAM",
    "ClusteringGroup",
    "ClusteringPlan",
    "SliceInfo",
    "decode_clustering_plan",
    "encode_clustering_plan",
]

#: ``ClusteringPlanStrategy.CLUSTERING_PLAN_VERSION_1``.
CLUSTERING_PLAN_VERSION: Final = 1
#: ``hoodie.clustering.execution.strategy.class`` default, named in every plan Java writes.
SORT_AND_SIZE_EXECUTION_STRATEGY: Final = (
    "org.apache.hudi.client.clustering.run.strategy.SparkSortAndSizeExecutionStrategy"
)
#: Strategy parameter: the columns rows are sorted by (``hoodie.clustering.plan.strategy.sort.columns``).
SORT_COLUMNS_PARAM: Final = "hoodie.clustering.plan.strategy.sort.columns"
#: Strategy parameter: how sort columns order rows (``hoodie.layout.optimize.strategy``). Java reads it
#: from the executing writer's config; the plan carries it so an async run sorts as scheduled.
LAYOUT_OPTIMIZE_STRATEGY_PARAM: Final = "hoodie.layout.optimize.strategy"


def _name(path: str | None) -> str | None:
    return path.rsplit("/", 1)[-1] if path else None


@dataclass(frozen=True, slots=True)
class SliceInfo:
    """``HoodieSliceInfo``: one file slice of an input group.

    Attributes:
        file_group: The file group.
        data_file_name: The slice's base file name (None for a slice of log files only).
        delta_file_names: Its log file names, oldest first.
        data_file_path: The base file as written in the plan (full path), "" without one.
        delta_file_paths: The log files as written in the plan.
    """

    file_group: FileGroupId
    data_file_name: str | None
    delta_file_names: tuple[str, ...] = ()
    data_file_path: str = ""
    delta_file_paths: tuple[str, ...] = ()

    @classmethod
    def of(cls, file_slice: FileSlice, uri: Any) -> SliceInfo:
        """The slice info of ``file_slice``; ``uri`` maps a storage key to its full path."""
        base_key = file_slice.base_file_key
        logs = tuple(file_slice.log_file_keys)
        return cls(
            file_group=file_slice.file_group_id,
            data_file_name=file_slice.base_file_name,
            delta_file_names=tuple(file_slice.log_file_names),
            data_file_path=uri(base_key) if base_key else "",
            delta_file_paths=tuple(uri(k) for k in logs),
        )

    @property
    def partition_path(self) -> str:
        """The file group's partition path."""
        return self.file_group.partition_path

    @property
    def file_id(self) -> str:
        """The file group's id."""
        return self.file_group.file_id

    @property
    def file_names(self) -> frozenset[str]:
        """Every file the slice names (base and log files)."""
        return frozenset(n for n in (self.data_file_name, *self.delta_file_names) if n)

    def to_record(self) -> dict[str, Any]:
        """The Avro record, fields in schema order."""
        return {
            "dataFilePath": self.data_file_path,
            "deltaFilePaths": list(self.delta_file_paths),
            "fileId": self.file_id,
            "partitionPath": self.partition_path,
            "bootstrapFilePath": "",
            "version": CLUSTERING_PLAN_VERSION,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> SliceInfo:
        """Decode one slice record.

        Raises:
            ClusteringPlanError: The record has no file id.
        """
        file_id = record.get("fileId")
        if not file_id:
            raise ClusteringPlanError("", f"slice without fileId: {dict(record)!r}")
        deltas = tuple(record.get("deltaFilePaths") or ())
        data = record.get("dataFilePath") or ""
        return cls(
            file_group=FileGroupId(record.get("partitionPath") or "", file_id),
            data_file_name=_name(data),
            delta_file_names=tuple(n for p in deltas if (n := _name(p))),
            data_file_path=data,
            delta_file_paths=deltas,
        )


@dataclass(frozen=True, slots=True)
class ClusteringGroup:
    """``HoodieClusteringGroup``: slices of one partition rewritten together.

    Attributes:
        slices: The input slices.
        num_output_file_groups: New file groups the rows are written into.
        metrics: The group's slice metrics (Java ``FileSliceMetricUtils``).
        extra_metadata: ``extraMetadata`` (null as Java writes it).
    """

    slices: tuple[SliceInfo, ...]
    num_output_file_groups: int = 1
    metrics: Mapping[str, float] = field(default_factory=dict)
    extra_metadata: Mapping[str, str] | None = None

    @property
    def partition_path(self) -> str:
        """The partition of the group's slices."""
        return self.slices[0].partition_path if self.slices else ""

    def to_record(self) -> dict[str, Any]:
        """The Avro record, fields in schema order."""
        return {
            "slices": [s.to_record() for s in self.slices],
            "metrics": dict(self.metrics),
            "numOutputFileGroups": self.num_output_file_groups,
            "extraMetadata": dict(self.extra_metadata) if self.extra_metadata is not None else None,
            "version": CLUSTERING_PLAN_VERSION,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ClusteringGroup:
        """Decode one input group."""
        extra = record.get("extraMetadata")
        return cls(
            slices=tuple(SliceInfo.from_record(s) for s in record.get("slices") or ()),
            num_output_file_groups=max(1, int(record.get("numOutputFileGroups") or 1)),
            metrics=MappingProxyType(dict(record.get("metrics") or {})),
            extra_metadata=MappingProxyType(dict(extra)) if extra is not None else None,
        )


@dataclass(frozen=True, slots=True)
class ClusteringPlan:
    """``HoodieClusteringPlan``.

    Attributes:
        input_groups: The groups, in plan order.
        strategy_class: ``strategy.strategyClassName`` (the execution strategy).
        strategy_params: ``strategy.strategyParams`` (sort columns...).
        extra_metadata: ``extraMetadata``.
        version: Plan version (1).
        preserve_hoodie_metadata: Whether rewritten rows keep their commit time and sequence number.
        missing_schedule_partitions: Partitions a strategy skipped (Java writes an empty list).
    """

    input_groups: tuple[ClusteringGroup, ...]
    strategy_class: str = SORT_AND_SIZE_EXECUTION_STRATEGY
    strategy_params: Mapping[str, str] = field(default_factory=dict)
    extra_metadata: Mapping[str, str] = field(default_factory=dict)
    version: int = CLUSTERING_PLAN_VERSION
    preserve_hoodie_metadata: bool = True
    missing_schedule_partitions: tuple[str, ...] | None = ()

    @property
    def file_groups(self) -> list[FileGroupId]:
        """Every input file group, in plan order."""
        return [s.file_group for g in self.input_groups for s in g.slices]

    @property
    def sort_columns(self) -> tuple[str, ...]:
        """The columns rows are sorted by (none: rows keep their read order)."""
        raw = self.strategy_params.get(SORT_COLUMNS_PARAM) or ""
        return tuple(c.strip() for c in raw.split(",") if c.strip())

    @property
    def layout_strategy(self) -> str:
        """How the sort columns order rows (``linear``, ``z-order``, ``hilbert``)."""
        return (self.strategy_params.get(LAYOUT_OPTIMIZE_STRATEGY_PARAM) or "linear").lower()

    def to_record(self) -> dict[str, Any]:
        """The ``HoodieClusteringPlan`` Avro record."""
        missing = self.missing_schedule_partitions
        return {
            "inputGroups": [g.to_record() for g in self.input_groups],
            "strategy": {
                "strategyClassName": self.strategy_class,
                "strategyParams": dict(self.strategy_params),
                "version": CLUSTERING_PLAN_VERSION,
            },
            "extraMetadata": dict(self.extra_metadata),
            "version": self.version,
            "preserveHoodieMetadata": self.preserve_hoodie_metadata,
            "missingSchedulePartitions": list(missing) if missing is not None else None,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ClusteringPlan:
        """Decode a plan record (an absent ``preserveHoodieMetadata`` reads as Java's default, false)."""
        strategy = record.get("strategy") or {}
        missing = record.get("missingSchedulePartitions")
        return cls(
            input_groups=tuple(ClusteringGroup.from_record(g) for g in record.get("inputGroups") or ()),
            strategy_class=strategy.get("strategyClassName") or SORT_AND_SIZE_EXECUTION_STRATEGY,
            strategy_params=MappingProxyType(dict(strategy.get("strategyParams") or {})),
            extra_metadata=MappingProxyType(dict(record.get("extraMetadata") or {})),
            version=record.get("version") or CLUSTERING_PLAN_VERSION,
            preserve_hoodie_metadata=bool(record.get("preserveHoodieMetadata")),
            missing_schedule_partitions=tuple(missing) if missing is not None else None,
        )


def encode_clustering_plan(plan: ClusteringPlan) -> bytes:
    """The requested file's content: ``HoodieRequestedReplaceMetadata`` with ``operationType`` CLUSTER."""
    record = {
        "operationType": WriteOperationType.CLUSTER.value,
        "clusteringPlan": plan.to_record(),
        "extraMetadata": {},
        "version": CLUSTERING_PLAN_VERSION,
    }
    return write_container(AvroSchemaName.REQUESTED_REPLACE_METADATA, record)


def decode_clustering_plan(data: bytes, *, path: str = "<bytes>") -> ClusteringPlan:
    """Decode a clustering's requested file.

    Raises:
        InstantMetadataError: Not a one-record Avro container of ``HoodieRequestedReplaceMetadata``.
        ClusteringPlanError: It holds no clustering plan (an insert_overwrite's requested file), or a
            slice is incomplete.
    """
    if not data:
        raise InstantMetadataError(path, "empty requested replace metadata")
    avro = read_container(data, path=path)
    if avro.short_name != AvroSchemaName.REQUESTED_REPLACE_METADATA.value:
        raise InstantMetadataError(path, f"expected HoodieRequestedReplaceMetadata, found {avro.schema_name}")
    plan = avro.record.get("clusteringPlan")
    if plan is None:
        raise ClusteringPlanError("", f"{path} holds no clustering plan")
    return ClusteringPlan.from_record(plan)
