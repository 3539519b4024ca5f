"""The warnings the project issues."""

from __future__ import annotations

__all__ = ["HudiDeprecationWarning", "PostCommitWarning"]


class HudiDeprecationWarning(DeprecationWarning):
    """A deprecated Apache Hudi setting that still works (for example a legacy payload class)."""


class PostCommitWarning(UserWarning):
    """Write ``instant`` committed and ``step`` after its commit failed with ``error`` (see
    ``WriteResult.post_commit_failures``). The write is *not* failed: retrying it writes its rows again."""

    def __init__(self, instant: str, step: str, error: BaseException) -> None:
        self.instant, self.step, self.error = instant, step, error
        super().__init__(f"write {instant} committed, but {step} after the commit failed: {error!r}")
