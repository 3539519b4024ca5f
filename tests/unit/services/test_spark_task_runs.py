"""How the Spark service runner cuts service tasks into Spark tasks (no Spark needed): contiguous
runs of nearly equal length, every task once, in order, each run pickled on its own."""

from __future__ import annotations

import pickle

from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.spark.service_runner import _cut


@given(tasks=st.lists(st.integers(), min_size=1, max_size=200), runs=st.integers(min_value=1, max_value=64))
def test_runs_cover_every_task_once_in_order(tasks: list[int], runs: int) -> None:
    runs = min(runs, len(tasks))
    cut = [pickle.loads(run) for run in _cut(tasks, runs)]
    assert len(cut) == runs
    assert [item for run in cut for item in run] == list(enumerate(tasks))
    sizes = [len(run) for run in cut]
    assert max(sizes) - min(sizes) <= 1


def test_a_shared_object_is_pickled_once_per_run() -> None:
    shared = list(range(10_000))
    tasks = [(shared, i) for i in range(8)]
    (one_run,) = _cut(tasks, 1)
    assert len(one_run) < 2 * len(pickle.dumps(shared))
