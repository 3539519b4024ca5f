"""``WriteClient``: the write operations of a table, on pyarrow data (local engine).

Every operation is one instant (see :mod:`hudi_framework.write.pipeline` for the steps shared
with the Spark engine): keys are generated and validated first (nothing is written for a batch
with a null key or an incompatible schema), duplicates are pre-combined by the table's merger,
keys are tagged by the index, rows are routed to file groups, each file group is written once by
:func:`~hudi_framework.write.file_group_task.write_file_group` (or, for merge-on-read appends,
:func:`~hudi_framework.write.log_task.append_file_group`), and the commit completes last. Any
failure after the instant started deletes what the write produced (by markers) and the instant.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_framework.metadata.index_source import metadata_index_source
from hudi_framework.vocabulary import InsertDupPolicy
from hudi_framework.write.insert_duplicates import insert_dup_policy, without_stored_keys
from hudi_framework.write.moves import stored_reads_for, tag_for_write
from hudi_framework.write.operation import looks_up_existing
from hudi_framework.write.pipeline import WritePipeline, WriteResult
from hudi_framework.write.planner import TARGET, TargetPlan, apply_routing, route_rows, routing_summary, target_rows
from hudi_framework.write.prepare import combine_rows, prepare_rows
from hudi_framework.write.target_task import write_target

if TYPE_CHECKING:
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.metadata.key_changes import FileKeyChanges
    from hudi_framework.timeline.metadata import WriteStat
    from hudi_framework.vocabulary import WriteOperation
    from hudi_framework.write.file_group_task import FileGroupWrite, WriteTaskContext

__all__ = ["WriteClient", "WriteResult"]


class WriteClient(WritePipeline[pa.Table, pa.Table]):
    """Write operations on one table with the in-process (``local``) engine."""

    def _incoming_schema(self, data: pa.Table) -> pa.Schema:
        return data.schema

    def _stage(
        self,
        operation: WriteOperation,
        data: pa.Table,
        schema: pa.Schema,
        slices: Sequence[FileSlice],
        partial_columns: tuple[str, ...] = (),
    ) -> pa.Table:
        session = self.session
        config = self.table.config
        rows = prepare_rows(operation, data, schema, session.keygen)
        policy = insert_dup_policy(session.settings.write, operation)
        if policy is not InsertDupPolicy.NONE:
            rows = without_stored_keys(
                rows, policy, slices, self.table.storage,
                index=session.index, keygen=None if config.populate_meta_fields else session.keygen,
            )  # fmt: skip
        if session.combines(operation):
            rows = combine_rows(
                session.merger, rows, config.ordering_fields, by_partition=session.combines_by_partition
            )
        if looks_up_existing(operation):
            table = self.table
            metadata = metadata_index_source(session.index, table.storage, table.properties, table.timeline)
            stored = stored_reads_for(
                table, session.index, slices, max_memory_bytes=session.settings.merger.max_memory_bytes
            )
            rows = tag_for_write(
                rows, slices, table.storage,
                config=config, index=session.index, merger=session.merger, keygen=session.keygen,
                partial_columns=partial_columns, metadata=metadata, stored=stored,
            )  # fmt: skip
        return rows

    def _summarize(self, staged: pa.Table) -> pa.Table:
        return routing_summary(staged)

    def _write(
        self,
        staged: pa.Table,
        plan: TargetPlan,
        ctx: WriteTaskContext,
        key_changes: dict[str, FileKeyChanges] | None = None,
        log_stats: dict[str, pa.Table | None] | None = None,
    ) -> list[WriteStat]:
        routed = apply_routing(staged, route_rows(staged, plan))
        targets = routed.column(TARGET).combine_chunks()
        rows = routed.drop_columns([TARGET])
        per_target = target_rows(targets, len(plan.targets))
        session = self.session
        storage = self.table.storage
        jobs = [(i, t, idx) for i, (t, idx) in enumerate(zip(plan.targets, per_target, strict=True)) if idx is not None]

        def run(job: tuple[int, FileGroupWrite, npt.NDArray[np.int64]]) -> list[WriteStat]:
            task_id, target, idx = job
            # Each task takes its own rows, so the copy of a large batch is spread over the workers.
            return write_target(
                storage, session.merger, ctx, target, rows.take(pa.array(idx)), task_partition_id=task_id,
                write_token=f"{task_id}-0-0", keygen=session.keygen, key_changes=key_changes,
                log_stats=log_stats,
            )  # fmt: skip

        # Whole tasks (read, merge, encode: mostly Arrow and Parquet work that releases the GIL) run
        # side by side, one per core, as Spark runs them on executors; stats keep plan order.
        workers = min(len(jobs), os.cpu_count() or 1)
        if workers <= 1:
            return [stat for job in jobs for stat in run(job)]
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="hudi-write") as pool:
            futures = [pool.submit(run, job) for job in jobs]
            try:
                return [stat for future in futures for stat in future.result()]
            except BaseException:
                # The commit fails: tasks not started yet never start (the rollback removes the rest).
                for future in futures:
                    future.cancel()
                raise
