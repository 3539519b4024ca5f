"""Packing read tasks into engine splits (hudi_framework.read.splits)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hudi_framework.read.splits import SplitSizing, pack_tasks

MB = 1024 * 1024


@dataclass(frozen=True)
class _Task:
    name: str
    file_size: int | None


def _tasks(*sizes: int | None) -> list[_Task]:
    return [_Task(f"t{i}", size) for i, size in enumerate(sizes)]


def _names(splits: list[list[_Task]]) -> list[list[str]]:
    return [[t.name for t in split] for split in splits]


def test_small_files_share_splits_up_to_the_parallelism() -> None:
    # The bench table's shape: four 1.9 MB files and four small ones, 2 slots.
    tasks = _tasks(2 * MB, 200_000, 2 * MB, 200_000, 2 * MB, 200_000, 2 * MB, 200_000)
    splits = pack_tasks(tasks, SplitSizing(min_splits=2))
    assert _names(splits) == [["t0", "t1", "t4", "t5"], ["t2", "t3", "t6", "t7"]]


def test_nearly_equal_files_fill_exactly_the_parallelism() -> None:
    # Sizes a few bytes apart: the last file must not open a third split over a rounding difference.
    tasks = _tasks(434_068, 434_068, 434_068, 434_069, 434_073, 434_075, 434_083, 434_076)
    assert [len(s) for s in pack_tasks(tasks, SplitSizing(min_splits=2))] == [4, 4]


def test_large_files_are_split_by_the_maximum_bytes() -> None:
    tasks = _tasks(*[100 * MB] * 6)
    splits = pack_tasks(tasks, SplitSizing(min_splits=2))
    # 6 x 104 MB over a 128 MB maximum: one file per split, whatever the parallelism.
    assert _names(splits) == [[f"t{i}"] for i in range(6)]


def test_one_task_per_split_when_the_parallelism_asks_for_more() -> None:
    splits = pack_tasks(_tasks(MB, MB, MB), SplitSizing(min_splits=8))
    assert _names(splits) == [["t0"], ["t1"], ["t2"]]


def test_unknown_sizes_weigh_their_open_cost() -> None:
    splits = pack_tasks(_tasks(None, None, None, None), SplitSizing(min_splits=2))
    assert _names(splits) == [["t0", "t2"], ["t1", "t3"]]


def test_no_tasks_no_splits() -> None:
    assert pack_tasks([], SplitSizing(min_splits=2)) == []


def test_without_a_parallelism_the_cpu_count_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("hudi_framework.read.splits.os.cpu_count", lambda: 3)
    splits = pack_tasks(_tasks(*[MB] * 9), SplitSizing())
    assert [len(s) for s in splits] == [3, 3, 3]


@pytest.mark.parametrize(
    "kwargs", [{"max_split_bytes": 0}, {"open_cost_bytes": -1}, {"min_splits": 0}], ids=["max", "open", "min"]
)
def test_bad_sizing_is_refused(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        SplitSizing(**kwargs)


@given(
    sizes=st.lists(st.one_of(st.none(), st.integers(0, 300 * MB)), max_size=60),
    min_splits=st.integers(1, 16),
    open_cost=st.integers(0, 8 * MB),
)
def test_every_task_lands_in_exactly_one_split_in_plan_order(
    sizes: list[int | None], min_splits: int, open_cost: int
) -> None:
    tasks = _tasks(*sizes)
    sizing = SplitSizing(open_cost_bytes=open_cost, min_splits=min_splits)
    splits = pack_tasks(tasks, sizing)
    flat = [t.name for split in splits for t in split]
    assert sorted(flat) == sorted(t.name for t in tasks)
    assert all(splits)
    index = {t.name: i for i, t in enumerate(tasks)}
    for split in splits:
        order = [index[t.name] for t in split]
        assert order == sorted(order)
    assert [index[s[0].name] for s in splits] == sorted(index[s[0].name] for s in splits)
    # Never more splits than tasks; a split over the maximum holds one task alone.
    weights = [(t.file_size or 0) + open_cost for t in tasks]
    if tasks:
        bound = sizing.max_split_bytes
        assert len(splits) <= len(tasks)
        weight = {t.name: w for t, w in zip(tasks, weights, strict=True)}
        assert all(len(s) == 1 for s in splits if sum(weight[t.name] for t in s) > bound)
