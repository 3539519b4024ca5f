"""Options of the ``compaction`` service: its strategy and the strategy's thresholds.

The kernel builds them from ``services.compaction`` (Apache Hudi's ``hoodie.compaction.*`` keys):
every field of that section the kernel does not read itself (the triggers and the service name).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, NonNegativeInt, PositiveInt, model_validator

__all__ = ["CompactionServiceOptions", "StrategyChoice"]


class StrategyChoice(BaseModel):
    """The strategy by registered name (``log-file-size``...); a bare name is accepted.

    Attributes:
        name: The strategy's name.
        options: Must stay empty: the strategies are configured by the service's own fields.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "log-file-size"
    options: dict[str, JsonValue] = Field(default_factory=dict, max_length=0)

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value


class CompactionServiceOptions(BaseModel):
    """What the compaction service decides with (defaults are Apache Hudi's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    strategy: StrategyChoice = Field(default_factory=StrategyChoice)
    """Which file slices a plan picks (``hoodie.compaction.strategy``)."""
    target_io_mb: PositiveInt = 512_000
    """IO budget of one plan, in MB (bounded-IO strategies; ``hoodie.compaction.target.io``)."""
    logfile_size_threshold_bytes: NonNegativeInt = 0
    """Slices whose log files total fewer bytes are not compacted (``log-file-size``)."""
    logfile_num_threshold: NonNegativeInt = 0
    """Slices with fewer log files are not compacted (``log-file-num``)."""
    daybased_target_partitions: PositiveInt = 10
    """Latest date partitions one plan covers (``day-based``)."""
    skip_corrupt_log_blocks: bool = False
    """Compact slices whose corrupt log blocks may hold committed rows, dropping those rows for good."""
