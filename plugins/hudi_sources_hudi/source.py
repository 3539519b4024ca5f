"""``hudi-incr``: the incremental stream of another Hudi table (Apache Hudi's ``HoodieIncrSource``).

Each batch is an incremental read of the upstream table over ``(checkpoint, end]``, where ``end`` is
the key of the ``num_instants``-th completed commit after the checkpoint: its completion time on
table version 8 and later (Apache Hudi's v2 streamer checkpoint), its instant (requested) time on
version 6. The checkpoint reached is ``end``. Splits are the tasks of that read (one per file group
slice), identified by partition and file id; an executor plans the same window again (completed
commits in a closed window do not change) and runs its task.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

import pyarrow as pa
from typing_extensions import override

from hudi_framework import HudiTable, Instant, QueryType, ReadOptions, ReadPlan, plan_read, run_task
from hudi_framework.contracts.source import Source, SourceContext, SourcePlan, SourceSplit
from hudi_framework.errors import CheckpointError, HudiError, SourceError
from hudi_sources_hudi.options import HoodieIncrOptions, MissingCheckpointStrategy

NAME: Final = "hudi-incr"
#: Apache Hudi's meta columns; ``_hoodie_partition_path`` is kept unless all are dropped.
META_FIELDS: Final = (
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
)
_KEPT_META = "_hoodie_partition_path"
#: Table version from which windows are sliced by completion time.
_COMPLETION_TIME_VERSION: Final = 8
_INSTANT_DIGITS = frozenset("0123456789")
#: Windows kept planned: a long-running executor reads batch after batch.
_PLANS_KEPT: Final = 8


class HoodieIncrSource(Source):
    """Follows the table at ``options.path``; see the module docs."""

    def __init__(self, options: HoodieIncrOptions) -> None:
        """Follow the table ``options`` names."""
        self.options = options
        # Plans by window, so an executor reading several splits of one batch plans it once.
        self._plans: dict[tuple[str | None, str], ReadPlan] = {}
        # The table as last opened and the context it came from (reads reuse it; plans reopen).
        self._opened: tuple[SourceContext, HudiTable] | None = None

    def __getstate__(self) -> dict[str, object]:
        # Shipped to another process: the opened table and plans stay behind (they hold clients).
        return {"options": self.options, "_plans": {}, "_opened": None}

    def _open(self, context: SourceContext, *, fresh: bool = True) -> HudiTable:
        if not fresh and self._opened is not None and self._opened[0] is context:
            return self._opened[1]
        try:
            storage = self._opened[1].storage if self._opened is not None and self._opened[0] is context else None
            table = HudiTable.open(self.options.path, storage=storage or context.storage(self.options.path))
        except HudiError as e:
            raise SourceError(NAME, f"cannot open the upstream table {self.options.path!r}: {e}") from e
        self._opened = (context, table)
        return table

    @override
    def plan(self, checkpoint: str | None, *, limit: int | None, context: SourceContext) -> SourcePlan:
        _check(checkpoint)
        table = self._open(context)
        by_completion = table.config.version >= _COMPLETION_TIME_VERSION
        timeline = table.timeline
        completed = timeline.commits_timeline()
        if not by_completion:
            # By instant time, a write still in flight would land behind a checkpoint taken past it:
            # stop before the earliest one, as Apache Hudi's incremental source does.
            pending = [i.requested_time for i in timeline.commits_timeline(include_pending=True) if i.is_pending]
            if pending:
                completed = [i for i in completed if i.requested_time < min(pending)]
        commits = sorted(((_key(i, by_completion=by_completion), i) for i in completed), key=lambda pair: pair[0])
        begin = checkpoint
        if checkpoint is None and self.options.missing_checkpoint_strategy is MissingCheckpointStrategy.READ_LATEST:
            # Only the latest commit: start just before it.
            begin = commits[-2][0] if len(commits) > 1 else None
        new = [(key, instant) for key, instant in commits if begin is None or key > begin]
        taken = 0
        while taken < len(new):
            taken = _more(table, new, taken, self.options.num_instants, limit)
            end = new[taken - 1][0]
            read = self._window(table, begin, end)
            if read.tasks:
                return SourcePlan(self._splits(read, begin, end), end, _output_schema(read.schema, self.options))
        # Nothing to read, or only commits without rows to read: those are looked at again next time.
        return SourcePlan((), checkpoint)

    def _window(self, table: HudiTable, begin: str | None, end: str) -> ReadPlan:
        cached = self._plans.get((begin, end))
        if cached is not None:
            return cached
        options = ReadOptions(query_type=QueryType.INCREMENTAL, begin=begin, end=end)
        try:
            read = plan_read(table, options)
        except HudiError as e:
            raise SourceError(NAME, f"cannot plan the incremental read of ({begin}, {end}]: {e}") from e
        if len(self._plans) >= _PLANS_KEPT:
            self._plans.clear()
        self._plans[(begin, end)] = read
        return read

    def _splits(self, read: ReadPlan, begin: str | None, end: str) -> tuple[SourceSplit, ...]:
        return tuple(
            SourceSplit(
                "/".join(filter(None, (self.options.path.rstrip("/"), t.partition_path, t.file_id)))
                + f"@({begin or ''},{end}]",
                {"begin": begin, "end": end, "index": n, "partition": t.partition_path, "file_id": t.file_id},
                t.file_size or 0,
            )
            for n, t in enumerate(read.tasks)
        )

    @override
    def read(self, split: SourceSplit, context: SourceContext) -> Iterator[pa.RecordBatch]:
        begin, end, index = split.payload.get("begin"), split.payload.get("end"), split.payload.get("index")
        if not (isinstance(end, str) and isinstance(index, int) and (begin is None or isinstance(begin, str))):
            raise SourceError(NAME, f"split {split.id!r} is not a hudi-incr split")
        # A window planned before was planned on a table that held its end; a new one needs a fresh look.
        known = (begin, end) in self._plans
        table = self._open(context, fresh=not known)
        read = self._window(table, begin, end)
        task = read.tasks[index] if index < len(read.tasks) else None
        if task is None or (task.partition_path, task.file_id) != (
            split.payload.get("partition"),
            split.payload.get("file_id"),
        ):
            raise SourceError(NAME, f"split {split.id!r} is no longer in the upstream table's window")
        schema = _output_schema(read.schema, self.options)
        try:
            batches = [b.select(schema.names) for b in run_task(task, table.storage)]
        except HudiError as e:
            raise SourceError(NAME, f"cannot read split {split.id!r}: {e}") from e
        yield from batches


def _key(instant: Instant, *, by_completion: bool) -> str:
    if by_completion and instant.completion_time is not None:
        return instant.completion_time
    return instant.requested_time


def _more(table: HudiTable, new: Sequence[tuple[str, Instant]], taken: int, count: int, limit: int | None) -> int:
    """How many of ``new`` the window holds after adding up to ``count`` more commits (at least one),
    stopping before the bytes they wrote exceed ``limit``."""
    stop = min(len(new), taken + count)
    if limit is None:
        return stop
    total = 0
    for n in range(taken, stop):
        metadata = table.timeline.read_commit_metadata(new[n][1])
        total += sum(s.total_write_bytes or 0 for s in metadata.write_stats())
        if total > limit and n > taken:
            return n
        if total >= limit:
            return n + 1
    return stop


def _output_schema(schema: pa.Schema, options: HoodieIncrOptions) -> pa.Schema:
    dropped = set(META_FIELDS) if options.drop_all_meta_fields else set(META_FIELDS) - {_KEPT_META}
    return pa.schema([f for f in schema if f.name not in dropped])


def _check(checkpoint: str | None) -> None:
    if checkpoint is None:
        return
    if not checkpoint or not set(checkpoint) <= _INSTANT_DIGITS:
        raise CheckpointError(NAME, checkpoint, "expected an instant or completion time (yyyyMMddHHmmssSSS)")


def hoodie_incr_source(options: HoodieIncrOptions) -> HoodieIncrSource:
    """``hudi-incr``."""
    return HoodieIncrSource(options)
