"""From base files to read tasks: partition pruning and partition values.

Shared by the snapshot and incremental planners. A base file is described by :class:`FileRef`; the
planner prunes partitions with the read filters, decodes each partition path once and emits one
:class:`~hudi_framework.read.plan.ReadTask` per file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyarrow as pa

from hudi_framework.contracts.partition_path import PartitionPathFormat
from hudi_framework.errors import PartitionPathError, ReadError
from hudi_framework.read.filters import filter_columns, prune_partitions
from hudi_framework.read.plan import CommitTimeFilter, ReadTask

if TYPE_CHECKING:
    from hudi_framework.read.filters import Disjunction
    from hudi_framework.table.table_config import TableConfig

#: Key generators whose partition path holds a formatted value, not the column's own value.
_TIMESTAMP_KEYGENS = frozenset({"TIMESTAMP", "TIMESTAMP_AVRO"})


@dataclass(frozen=True, slots=True)
class FileRef:
    """One base file to read.

    Attributes:
        partition_path: Relative partition path.
        file_id: File group id.
        key: Storage key relative to the base path.
        instant_time: Instant that wrote it.
        size: Size in bytes, if known.
    """

    partition_path: str
    file_id: str
    key: str
    instant_time: str
    size: int | None = None


def path_format(config: TableConfig) -> PartitionPathFormat:
    """How ``config``'s table encodes partition paths."""
    return PartitionPathFormat(config.partition_fields, config.hive_style_partitioning, config.url_encode_partitions)


def prunable_fields(config: TableConfig) -> list[str]:
    """Partition fields whose path value is the column's value, so filters on them may prune.

    Timestamp key generators (and ``CUSTOM`` fields typed ``:TIMESTAMP``) write a formatted date into
    the path; Apache Hudi does not prune on those either (``convertFilterForTimestampKeyGenerator``).
    """
    if config.key_generator_type.upper() in _TIMESTAMP_KEYGENS:
        return []
    out = []
    for raw in config.partition_fields_raw:
        name, _, kind = raw.partition(":")
        if kind.upper() != "TIMESTAMP":
            out.append(name)
    return out


def _partition_values(
    config: TableConfig, fmt: PartitionPathFormat, partition: str
) -> tuple[tuple[str, str | None], ...]:
    try:
        values = fmt.decode(partition)
    except PartitionPathError as e:
        if config.drop_partition_columns:
            # Without the columns in the files, the path is the only source of their values.
            raise ReadError(f"cannot restore partition columns from path {partition!r}: {e.reason}") from e
        return ()
    return tuple(zip(fmt.fields, values, strict=True))


def build_tasks(
    config: TableConfig,
    files: Iterable[FileRef],
    *,
    schema: pa.Schema,
    full_schema: pa.Schema,
    filters: Disjunction,
    commit_time_filter: CommitTimeFilter | None = None,
) -> tuple[ReadTask, ...]:
    """One task per file in a partition that may match ``filters``, sorted by partition and file id.

    Args:
        config: The table config (partitioning, key generator).
        files: The base files.
        schema: The projected output schema.
        full_schema: The table's whole read schema (types for partition pruning).
        filters: Normalised read filters.
        commit_time_filter: Incremental reads: commit times to keep.
    """
    refs = sorted(files, key=lambda f: (f.partition_path, f.file_id))
    values, filter_schema = prune(config, [f.partition_path for f in refs], full_schema=full_schema, filters=filters)
    return tuple(
        ReadTask(
            file_key=ref.key,
            partition_path=ref.partition_path,
            partition_values=values[ref.partition_path],
            schema=schema,
            file_id=ref.file_id,
            instant_time=ref.instant_time,
            file_size=ref.size,
            commit_time_filter=commit_time_filter,
            row_filter=filters,
            filter_schema=filter_schema,
        )
        for ref in refs
        if ref.partition_path in values
    )


def prune(
    config: TableConfig, partition_paths: Iterable[str], *, full_schema: pa.Schema, filters: Disjunction
) -> tuple[dict[str, tuple[tuple[str, str | None], ...]], pa.Schema | None]:
    """Partitions that may match ``filters`` with their decoded values, and the filter columns' schema.

    Args:
        config: The table config (partitioning, key generator).
        partition_paths: Candidate partition paths (duplicates allowed).
        full_schema: The table's whole read schema (types for partition pruning).
        filters: Normalised read filters.

    Returns:
        ``({kept partition path: partition values}, read-schema fields of the filtered columns or None)``.
    """
    fmt = path_format(config)
    partitions: Sequence[str] = sorted(set(partition_paths))
    kept = prune_partitions(
        partitions, filters, path_format=fmt, schema=full_schema, prunable_fields=prunable_fields(config)
    )
    values = {p: _partition_values(config, fmt, p) for p in kept}
    used = filter_columns(filters)
    filter_schema = pa.schema([f for f in full_schema if f.name in used]) if used else None
    return values, filter_schema
