"""The source contract suite: behaviour every :class:`~hudi_framework.contracts.source.Source` must show.

Plugin authors subclass :class:`SourceContract` in a ``Test*`` class and provide three fixtures:

* ``source``: the source under test, built from its options;
* ``context``: the :class:`~hudi_framework.contracts.source.SourceContext` it plans and reads with;
* ``land``: a callable that makes one new batch of data arrive (files land, a commit completes, a
  page appears), strictly after everything landed before, and returns the values of the
  ``KEY`` column of the rows it added (unique across calls).

Optionally set ``KEY`` (default ``"id"``), ``SMALL_LIMIT`` (a limit that makes a plan take less than
everything landed; default 1) and ``BAD_CHECKPOINTS`` (checkpoints the source must refuse with a
``SourceError``, usually a ``CheckpointError``)::

    class TestJsonFiles(SourceContract):
        @pytest.fixture
        def source(self, tmp_path): ...

The suite checks: nothing landed plans nothing; consuming batch after batch with a small limit,
resuming from each plan's checkpoint, reads every landed row exactly once whatever the limit; plans
are deterministic for a checkpoint; a plan with nothing new keeps its checkpoint; splits and schemas
pickle and a split read after pickling gives the same rows; reads yield batches of one schema.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import pyarrow as pa
import pytest

from hudi_framework.contracts.source import Source, SourceContext, SourcePlan
from hudi_framework.errors import SourceError

__all__ = ["Land", "SourceContract", "consume", "read_plan"]

#: Makes one batch of new data arrive; returns the key values of the rows it added.
Land = Callable[[], Sequence[Any]]

#: More rounds than any test needs: a source that never runs dry fails instead of hanging.
_MAX_ROUNDS = 200


def read_plan(source: Source, plan: SourcePlan, context: SourceContext) -> pa.Table | None:
    """Every row of ``plan``'s splits as one table (None when the plan is empty).

    Raises:
        AssertionError: A split's batches do not share one schema.
    """
    tables = []
    for split in plan.splits:
        batches = list(source.read(split, context))
        if not batches:
            continue
        first = batches[0].schema
        assert all(b.schema.equals(first) for b in batches), f"split {split.id} yields several schemas"
        tables.append(pa.Table.from_batches(batches))
    if not tables:
        return None
    return pa.concat_tables(tables, promote_options="permissive")


def consume(
    source: Source, context: SourceContext, checkpoint: str | None, *, limit: int | None
) -> tuple[list[pa.Table], str | None]:
    """Plan, read and advance the checkpoint until a plan is empty, as an ingestion job would.

    Returns:
        The tables read, one per non-empty batch, and the final checkpoint.
    """
    tables: list[pa.Table] = []
    for _ in range(_MAX_ROUNDS):
        plan = source.plan(checkpoint, limit=limit, context=context)
        if plan.empty:
            assert plan.checkpoint == checkpoint, "an empty plan must keep the checkpoint it started from"
            return tables, checkpoint
        table = read_plan(source, plan, context)
        if table is not None:
            tables.append(table)
        checkpoint = plan.checkpoint
    raise AssertionError(f"the source never ran dry in {_MAX_ROUNDS} rounds")


class SourceContract:
    """Subclass in a ``Test*`` class and provide ``source``, ``context`` and ``land`` fixtures."""

    KEY: ClassVar[str] = "id"
    SMALL_LIMIT: ClassVar[int] = 1
    BAD_CHECKPOINTS: ClassVar[tuple[str, ...]] = ()

    def _keys(self, tables: Sequence[pa.Table]) -> list[Any]:
        keys: list[Any] = []
        for table in tables:
            assert self.KEY in table.column_names, f"rows read have no {self.KEY!r} column: {table.column_names}"
            keys += table.column(self.KEY).to_pylist()
        return keys

    def test_nothing_landed_plans_nothing(self, source: Source, context: SourceContext) -> None:
        plan = source.plan(None, limit=None, context=context)
        assert plan.empty
        assert plan.checkpoint is None

    def test_every_row_once_batch_by_batch(self, source: Source, context: SourceContext, land: Land) -> None:
        landed = [*land(), *land(), *land()]
        tables, checkpoint = consume(source, context, None, limit=self.SMALL_LIMIT)
        assert sorted(self._keys(tables)) == sorted(landed)
        assert len(tables) > 1, "a small limit must split what landed into several batches"
        assert checkpoint is not None
        # Resuming from the final checkpoint reads only what lands afterwards.
        later = land()
        again, _ = consume(source, context, checkpoint, limit=None)
        assert sorted(self._keys(again)) == sorted(later)

    def test_no_limit_reads_everything_at_once(self, source: Source, context: SourceContext, land: Land) -> None:
        landed = [*land(), *land()]
        plan = source.plan(None, limit=None, context=context)
        table = read_plan(source, plan, context)
        assert table is not None
        assert sorted(self._keys([table])) == sorted(landed)
        assert source.plan(plan.checkpoint, limit=None, context=context).empty

    def test_plans_are_deterministic(self, source: Source, context: SourceContext, land: Land) -> None:
        land()
        land()
        first = source.plan(None, limit=self.SMALL_LIMIT, context=context)
        second = source.plan(None, limit=self.SMALL_LIMIT, context=context)
        assert first.splits == second.splits
        assert first.checkpoint == second.checkpoint
        resumed = source.plan(first.checkpoint, limit=None, context=context)
        assert resumed == source.plan(first.checkpoint, limit=None, context=context)

    def test_splits_pickle_and_read_alike(self, source: Source, context: SourceContext, land: Land) -> None:
        land()
        plan = source.plan(None, limit=None, context=context)
        assert not plan.empty
        shipped = pickle.loads(pickle.dumps(plan))
        assert shipped == plan
        for split, copy in zip(plan.splits, shipped.splits, strict=True):
            mine = pa.Table.from_batches(list(source.read(split, context)))
            theirs = pa.Table.from_batches(list(source.read(copy, context)))
            assert mine.equals(theirs)

    def test_bad_checkpoints_are_refused(self, source: Source, context: SourceContext) -> None:
        for checkpoint in self.BAD_CHECKPOINTS:
            with pytest.raises(SourceError):
                source.plan(checkpoint, limit=None, context=context)
