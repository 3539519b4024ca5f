"""Options of the ``clean`` service: the policy and what it retains.

The kernel builds them from ``services.clean`` (Apache Hudi's ``hoodie.clean.*`` /
``hoodie.cleaner.*`` keys): every field of that section the kernel does not read itself (the
service name, ``automatic`` and ``async_enabled``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, PositiveInt

__all__ = ["CleanServiceOptions", "PolicyName"]

#: Apache Hudi's cleaner policies (``hoodie.clean.policy``).
PolicyName = Literal["KEEP_LATEST_COMMITS", "KEEP_LATEST_FILE_VERSIONS", "KEEP_LATEST_BY_HOURS"]


class CleanServiceOptions(BaseModel):
    """What the clean service decides with (defaults are Apache Hudi's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    policy: PolicyName = "KEEP_LATEST_COMMITS"
    """What to keep."""
    commits_retained: PositiveInt = 10
    """Commits whose file slices are kept (``KEEP_LATEST_COMMITS``)."""
    file_versions_retained: PositiveInt = 3
    """File slices kept per file group (``KEEP_LATEST_FILE_VERSIONS``)."""
    hours_retained: PositiveInt = 24
    """Hours of history kept (``KEEP_LATEST_BY_HOURS``)."""
    max_commits: PositiveInt = 1
    """Commits since the last clean that make :meth:`CleanService.run` clean."""
    incremental: bool = True
    """List only the partitions written since the last clean's retained commit."""
