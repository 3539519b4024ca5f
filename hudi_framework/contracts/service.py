"""The table service contract (compaction, clustering, cleaning, archival)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

__all__ = ["TableService"]


class TableService(ABC):
    """A service that plans work as a requested instant and executes it later."""

    #: Timeline action the service creates (``compaction``, ``clean``...).
    action: str = ""

    @abstractmethod
    def schedule(self, table: Any) -> str | None:
        """Plan work on ``table`` (a ``HudiTable``); return the requested instant, or None if idle."""

    @abstractmethod
    def execute(self, table: Any, instant: str) -> None:
        """Run the plan of ``instant`` and complete it."""
