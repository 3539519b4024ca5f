"""Planning merged reads of merge-on-read tables: the table's merger, block validity and slice tasks.

Shared by the snapshot (and time travel) and incremental planners. Slices without log files keep
plain :class:`~hudi_framework.read.plan.ReadTask`\\ s (nothing to merge); every other slice, log-only
file groups included (Java reads them), becomes a
:class:`~hudi_framework.read.merged_task.MergedReadTask`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hudi_framework.config.component_sections import MergerSettings
from hudi_framework.contracts.merger import RECORD_KEY_FIELD
from hudi_framework.errors import UnsupportedQueryError
from hudi_framework.merge.choose import build_merger
from hudi_framework.read.merged_task import DEFAULT_MERGE_MEMORY_BYTES, InstantValidity, MergedReadTask
from hudi_framework.read.plan import ReadTask
from hudi_framework.read.tasks import FileRef, build_tasks, prune
from hudi_framework.timeline.instant import COMPLETES_AS, WRITE_ACTIONS
from hudi_framework.vocabulary import QueryType, RecordMergeMode, deprecated_payload_mode

if TYPE_CHECKING:
    import pyarrow as pa

    from hudi_framework.contracts.merger import RecordMerger
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.read.filters import Disjunction
    from hudi_framework.read.plan import CommitTimeFilter
    from hudi_framework.runtime.table import HudiTable

__all__ = ["instant_validity", "plan_slice_tasks", "record_key_field", "table_merger"]


def table_merger(table: HudiTable) -> RecordMerger:
    """The merger the table's ``hoodie.properties`` select (merge mode, strategy id or payload class).

    Raises:
        UnknownComponentError: A custom merger that no installed plugin provides.
    """
    config = table.config
    mode = config.effective_merge_mode
    if mode is RecordMergeMode.CUSTOM:
        settings = MergerSettings(
            mode=RecordMergeMode.CUSTOM,
            strategy_id=config.merge_strategy_id,
            payload_class=config.payload_class,
        )
    else:
        # The mode alone: v6 tables persist an event-time strategy id beside a commit-time payload class,
        # and the payload class decides (hudi-format.md section 6.1).
        # A Hudi 1.1 table keeps a deprecated payload class beside the mode: its merger decides.
        legacy = config.payload_class if config.version >= 9 and deprecated_payload_mode(config.payload_class) else None
        settings = MergerSettings(mode=mode, payload_class=legacy)
    return build_merger(table.registry, settings, config.ordering_fields)


def record_key_field(table: HudiTable) -> str:
    """The column that holds record keys for merging.

    Raises:
        UnsupportedQueryError: A table without meta fields whose key spans several fields.
    """
    config = table.config
    if config.populate_meta_fields:
        return RECORD_KEY_FIELD
    if len(config.record_key_fields) == 1:
        return config.record_key_fields[0]
    raise UnsupportedQueryError(
        QueryType.SNAPSHOT,
        f"merge-on-read table {config.name!r} has no meta fields and a composite record key "
        f"{list(config.record_key_fields)}: merging its log files is not supported",
    )


def instant_validity(table: HudiTable, *, as_of: str | None = None) -> InstantValidity:
    """Completed write instants (at or before ``as_of``) whose log blocks count."""
    timeline = table.timeline
    completed = frozenset(
        i.requested_time for i in timeline.completed() if COMPLETES_AS.get(i.action, i.action) in WRITE_ACTIONS
    )
    start = timeline.instants[0].requested_time if timeline.instants else None
    return InstantValidity(completed, timeline_start=start, as_of=as_of)


def plan_slice_tasks(
    table: HudiTable,
    slices: Sequence[FileSlice],
    *,
    schema: pa.Schema,
    full_schema: pa.Schema,
    filters: Disjunction,
    validity: InstantValidity,
    commit_time_filter: CommitTimeFilter | None = None,
    max_memory_bytes: int | None = None,
    use_record_positions: bool = False,
) -> tuple[ReadTask | MergedReadTask, ...]:
    """One task per slice of a partition that may match ``filters``: plain for base-file-only slices.

    Args:
        table: The table (config, merger).
        slices: The file slices to read.
        schema: The projected output schema.
        full_schema: The table's whole read schema; slices are merged in it.
        filters: Normalised read filters.
        validity: Which log blocks count.
        commit_time_filter: Incremental reads: commit times to keep (applied after merging).
        max_memory_bytes: ``hoodie.memory.merge.max.size``; None for the default.
        use_record_positions: ``hoodie.merge.use.record.positions``: merge by record positions.
    """
    config = table.config
    plain = [
        FileRef(s.partition_path, s.file_id, s.base_file_key, s.base_file.instant_time, s.base_file.size)
        for s in slices
        if not s.has_log_files and s.base_file is not None and s.base_file_key is not None
    ]
    tasks: list[ReadTask | MergedReadTask] = list(
        build_tasks(
            config, plain, schema=schema, full_schema=full_schema, filters=filters,
            commit_time_filter=commit_time_filter,
        )
    )  # fmt: skip
    merging = [s for s in slices if s.has_log_files]
    if merging:
        values, filter_schema = prune(
            config, [s.partition_path for s in merging], full_schema=full_schema, filters=filters
        )
        merger = table_merger(table)
        key_field = record_key_field(table)
        for s in merging:
            if s.partition_path not in values:
                continue
            size = (s.base_file.size or 0 if s.base_file is not None else 0) + sum(log.size or 0 for log in s.log_files)
            tasks.append(
                MergedReadTask(
                    base_file_key=s.base_file_key,
                    log_file_keys=tuple(s.log_file_keys),
                    validity=validity,
                    merger=merger,
                    merge_schema=full_schema,
                    schema=schema,
                    partition_path=s.partition_path,
                    partition_values=values[s.partition_path],
                    file_id=s.file_id,
                    instant_time=s.base_instant_time,
                    ordering_fields=config.ordering_fields,
                    record_key_field=key_field,
                    max_memory_bytes=max_memory_bytes or DEFAULT_MERGE_MEMORY_BYTES,
                    file_size=size,
                    commit_time_filter=commit_time_filter,
                    row_filter=filters,
                    filter_schema=filter_schema,
                    use_record_positions=use_record_positions,
                )
            )
    return tuple(sorted(tasks, key=lambda t: (t.partition_path, t.file_id)))
