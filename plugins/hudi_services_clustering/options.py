"""Options of the ``clustering`` service: the plan strategy's limits and the execution's row order.

The kernel builds them from ``services.clustering`` (Apache Hudi's ``hoodie.clustering.*`` keys):
every field of that section the kernel does not read itself (the triggers, the update strategy and
the service name). Defaults are Apache Hudi's.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, NonNegativeInt, PositiveInt

__all__ = ["ClusteringServiceOptions"]


class ClusteringServiceOptions(BaseModel):
    """What the clustering service plans with (defaults are Apache Hudi's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    small_file_limit_bytes: NonNegativeInt = 314_572_800
    """Slices whose base file is smaller are candidates (``hoodie.clustering.plan.strategy.small.file.limit``)."""
    target_file_max_bytes: PositiveInt = 1_073_741_824
    """Bytes per output file group (``hoodie.clustering.plan.strategy.target.file.max.bytes``)."""
    max_bytes_per_group: PositiveInt = 2_147_483_648
    """Input bytes of one group at most (``hoodie.clustering.plan.strategy.max.bytes.per.group``)."""
    max_num_groups: PositiveInt = 30
    """Groups per plan at most (``hoodie.clustering.plan.strategy.max.num.groups``)."""
    sort_columns: tuple[str, ...] = ()
    """Columns rows are ordered by (``hoodie.clustering.plan.strategy.sort.columns``)."""
    layout_optimize_strategy: Literal["linear", "z-order", "hilbert"] = "linear"
    """How the sort columns order rows (``hoodie.layout.optimize.strategy``)."""
    preserve_commit_metadata: bool = True
    """Rows keep their commit time and sequence number (``hoodie.clustering.preserve.commit.metadata``)."""
    single_group_clustering_enabled: bool = True
    """Plan a group of one slice too (``hoodie.clustering.plan.strategy.single.group.clustering.enabled``)."""
    partition_regex_pattern: str | None = None
    """Only partitions fully matching it (``hoodie.clustering.plan.strategy.partition.regex.pattern``)."""
    partition_selected: tuple[str, ...] = ()
    """Only these partitions (``hoodie.clustering.plan.strategy.partition.selected``)."""
