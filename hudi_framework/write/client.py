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
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from hudi_framework.write.file_group_task import MergedFileGroup, merge_file_group
from hudi_framework.write.moves import tag_for_write
from hudi_framework.write.operation import looks_up_existing
from hudi_framework.write.pipeline import WritePipeline, WriteResult
from hudi_framework.write.planner import TARGET, TargetPlan, apply_routing, route_rows, routing_summary, target_rows
from hudi_framework.write.prepare import combine_rows, prepare_rows
from hudi_framework.write.target_task import write_target

if TYPE_CHECKING:
    from hudi_framework.layout.file_group import FileSlice
    from hudi_framework.timeline.metadata import WriteStat
    from hudi_framework.write.file_group_task import WriteTaskContext
    from hudi_framework.write.operation import WriteOperation

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
        rows = prepare_rows(operation, data, schema, session.keygen)
        if session.combines(operation):
            rows = combine_rows(
                session.merger, rows, self.table.config.ordering_fields, by_partition=session.combines_by_partition
            )
        if looks_up_existing(operation):
            rows = tag_for_write(
                rows, slices, self.table.storage,
                config=self.table.config, index=session.index, merger=session.merger, keygen=session.keygen,
                partial_columns=partial_columns,
            )  # fmt: skip
        return rows

    def _summarize(self, staged: pa.Table) -> pa.Table:
        return routing_summary(staged)

    def _write(self, staged: pa.Table, plan: TargetPlan, ctx: WriteTaskContext) -> list[WriteStat]:
        routed = apply_routing(staged, route_rows(staged, plan))
        targets = routed.column(TARGET).combine_chunks()
        rows = routed.drop_columns([TARGET])
        per_target = target_rows(targets, len(plan.targets))
        session = self.session
        storage = self.table.storage
        jobs = [(i, t, idx) for i, (t, idx) in enumerate(zip(plan.targets, per_target, strict=True)) if idx is not None]

        def rows_of(idx: npt.NDArray[np.int64]) -> pa.Table:
            # Each task takes its own rows (in the merge-ahead thread when it has one), so the copy
            # of a large batch is spread over the workers instead of done up front.
            return rows.take(pa.array(idx))

        def merge_ahead(job: int) -> Future[MergedFileGroup] | None:
            # Later copy-on-write tasks' reads and merges (no side effects) overlap this task's write;
            # tasks still write their markers and files one after another.
            if job >= len(jobs) or jobs[job][1].append:
                return None
            task_id, target, idx = jobs[job]

            def merged() -> MergedFileGroup:
                return merge_file_group(
                    storage, session.merger, ctx, target, rows_of(idx), task_partition_id=task_id, keygen=session.keygen
                )

            return ahead.submit(merged)

        stats = []
        # Reading and merging a file group costs more than encoding it, so with a second core two
        # groups are merged ahead; at most lookahead + 1 merged groups are held at once.
        lookahead = 2 if (os.cpu_count() or 1) > 1 else 1
        with ThreadPoolExecutor(max_workers=lookahead) as ahead:
            pending = deque(merge_ahead(job) for job in range(lookahead))
            for job, (task_id, target, idx) in enumerate(jobs):
                current = pending.popleft()
                pending.append(merge_ahead(job + lookahead))
                # A task merged ahead never reads ``incoming`` again: it gets no copy of its rows.
                incoming = rows_of(idx) if current is None else rows.schema.empty_table()
                stats.append(
                    write_target(
                        storage, session.merger, ctx, target, incoming, task_partition_id=task_id,
                        write_token=f"{task_id}-0-0", keygen=session.keygen,
                        merged=current.result if current is not None else None,
                    )
                )  # fmt: skip
        return stats
