"""The default run's slow subset (tests/slow_subset.py): ``slow`` tests run only when asked for."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tests.slow_subset import SLOW_ENV, run_slow, slow_items


def _config(markexpr: str) -> Any:
    return SimpleNamespace(getoption=lambda name, default=None: markexpr if name == "markexpr" else default)


def _item(name: str, *markers: str) -> Any:
    return SimpleNamespace(name=name, get_closest_marker=lambda m: m if m in markers else None)


def test_slow_items_are_those_marked_slow() -> None:
    items = [_item("a", "slow"), _item("b", "spark"), _item("c", "s3", "slow"), _item("d")]
    assert [i.name for i in slow_items(items)] == ["a", "c"]


@pytest.mark.parametrize(
    ("env", "markexpr", "runs"),
    [
        (None, "", False),
        ("0", "", False),
        ("1", "", True),
        (None, "slow", True),
        (None, "spark and not slow", True),  # the expression decides which run
        (None, "spark", False),
    ],
)
def test_slow_tests_run_when_asked_for(
    monkeypatch: pytest.MonkeyPatch, env: str | None, markexpr: str, runs: bool
) -> None:
    if env is None:
        monkeypatch.delenv(SLOW_ENV, raising=False)
    else:
        monkeypatch.setenv(SLOW_ENV, env)
    assert run_slow(_config(markexpr)) is runs
