"""Hypothesis example budgets of the slow property tests.

A property test whose examples add up to seconds asks :func:`examples` for its ``max_examples``: the
default run draws a quarter of the full count (at least :data:`MIN_EXAMPLES`), which still crosses
every strategy's shape; ``HUDI_TEST_HYPOTHESIS=full`` draws the full count. Cheap property tests keep
their fixed counts.
"""

from __future__ import annotations

import os
from typing import Final

#: Environment variable that gives the slow property tests their full example count (``full``).
FULL_HYPOTHESIS_ENV: Final = "HUDI_TEST_HYPOTHESIS"
#: The fewest examples a slow property test draws in the default run.
MIN_EXAMPLES: Final = 25


def full_hypothesis() -> bool:
    return os.environ.get(FULL_HYPOTHESIS_ENV, "").strip().lower() == "full"


def examples(full: int) -> int:
    """``max_examples`` of a slow property test: ``full`` with ``HUDI_TEST_HYPOTHESIS=full``, else a
    quarter of it (at least :data:`MIN_EXAMPLES`, at most ``full``)."""
    return full if full_hypothesis() else min(full, max(full // 4, MIN_EXAMPLES))
