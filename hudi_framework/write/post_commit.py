"""Steps after a commit: once the completed instant is written the write has succeeded, so a step
that fails afterwards (reloading the table, an inline table service, a cleanup, releasing the lock)
is reported, never raised.

Raising would tell the caller the write failed; a caller that retries an insert or bulk_insert then
writes its rows twice. A failed step is logged, issued as a
:class:`~hudi_framework.errors.PostCommitWarning` and recorded as a :class:`PostCommitFailure`
that the write's result carries. ``BaseException``\\s that are not ``Exception``\\s (an interrupt)
still propagate.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from hudi_framework.errors import PostCommitWarning

__all__ = ["PostCommitFailure", "PostCommitSteps"]

_log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PostCommitFailure:
    """A step after the commit that failed; the write itself is committed.

    Attributes:
        step: What failed (``reload``, ``compaction``, ``clean``, ``markers``, ``heartbeat``,
            ``lock release``, ``release``, ``staging cleanup``, or ``hudi_commit_completed of
            plugin '<name>'``: an observer of the commit).
        error: What it raised.
    """

    step: str
    error: Exception

    def __str__(self) -> str:
        return f"{self.step}: {type(self.error).__name__}: {self.error}"


@dataclass
class PostCommitSteps:
    """Runs the steps after the commit of ``instant``, recording failures instead of raising them."""

    instant: str
    failures: list[PostCommitFailure] = field(default_factory=list)

    def run(self, step: str, fn: Callable[[], T]) -> T | None:
        """``fn()``, or None after recording its failure as ``step``."""
        try:
            return fn()
        except Exception as e:
            self.record(step, e)
            return None

    def record(self, step: str, error: Exception) -> None:
        """Record (log and warn) that ``step`` failed with ``error``."""
        self.failures.append(PostCommitFailure(step, error))
        _log.warning("write %s committed; %s after the commit failed: %s", self.instant, step, error)
        warnings.warn(PostCommitWarning(self.instant, step, error), stacklevel=3)
