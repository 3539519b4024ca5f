"""The default run leaves out tests marked ``slow`` (longer variants of behaviours a faster test
also covers: more kills, more rounds, a million rows). ``HUDI_TEST_SLOW=1`` runs them, and so does a
``-m`` expression naming ``slow`` (``-m slow`` runs only them)."""

from __future__ import annotations

import os
from typing import Final

import pytest

#: Environment variable that runs the ``slow`` tests too (``1``).
SLOW_ENV: Final = "HUDI_TEST_SLOW"


def run_slow(config: pytest.Config) -> bool:
    """Whether this run keeps the ``slow`` tests: asked for by the variable or by ``-m``."""
    return os.environ.get(SLOW_ENV, "").strip() == "1" or "slow" in (config.getoption("markexpr", "") or "")


def slow_items(items: list[pytest.Item]) -> list[pytest.Item]:
    return [item for item in items if item.get_closest_marker("slow") is not None]
