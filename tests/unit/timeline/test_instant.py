from __future__ import annotations

import pytest

from hudi_framework.timeline.instant import COMPLETES_AS, Action, Instant, State


def test_completes_as_maps_table_services_to_commit_actions() -> None:
    assert Action.COMPACTION.completes_as is Action.COMMIT
    assert Action.CLUSTERING.completes_as is Action.REPLACE_COMMIT
    assert Action.LOG_COMPACTION.completes_as is Action.DELTA_COMMIT
    assert Action.CLEAN.completes_as is Action.CLEAN
    with pytest.raises(TypeError):
        COMPLETES_AS[Action.CLEAN] = Action.COMMIT  # type: ignore[index]


def test_with_state_completing_switches_to_completed_action() -> None:
    pending = Instant("20240101000000000", Action.COMPACTION, State.INFLIGHT)
    done = pending.with_state(State.COMPLETED, "20240101000000001")
    assert done == Instant("20240101000000000", Action.COMMIT, State.COMPLETED, "20240101000000001")
    assert done.comparable_action is pending.comparable_action is Action.COMMIT
    assert done.is_completed
    assert pending.is_pending


def test_sort_key_orders_by_time_then_state() -> None:
    a = Instant("2", Action.COMMIT, State.COMPLETED)
    b = Instant("1", Action.COMMIT, State.COMPLETED)
    c = Instant("2", Action.COMMIT, State.REQUESTED)
    assert sorted([a, b, c], key=Instant.sort_key) == [b, c, a]
    assert [s.rank for s in State] == [0, 1, 2]


def test_str() -> None:
    assert str(Instant("1", Action.COMMIT, State.COMPLETED, "2")) == "[1 -> 2] commit.completed"
    assert str(Instant("1", Action.CLEAN, State.REQUESTED)) == "[1] clean.requested"
