"""The size-based plan strategy: small file slices grouped by size, per partition.

Mirrors Apache Hudi's ``SparkSizeBasedClusteringPlanStrategy`` on ``PartitionAwareClusteringPlanStrategy``:
within each partition the candidates whose base file is under the small-file limit (slices of log
files only always qualify), largest first, are packed into groups of at most ``max_bytes_per_group``
bytes (a slice without base file counts as ``hoodie.parquet.max.file.size``); each group is written
into ``ceil(group bytes / target_file_max_bytes)`` file groups. A last group of a single slice is
kept only when ``single_group_clustering_enabled`` or sort columns are set. A plan holds at most
``max_num_groups`` groups.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from hudi_framework.contracts.clustering import ClusteringCandidateT, PlannedGroup
from hudi_services_clustering.options import ClusteringServiceOptions

__all__ = ["LAYOUT_OPTIMIZE_STRATEGY_PARAM", "SORT_COLUMNS_PARAM", "SizeBasedPlanStrategy"]

#: Plan strategy parameters, Apache Hudi's keys (the execution reads them from the plan).
SORT_COLUMNS_PARAM = "hoodie.clustering.plan.strategy.sort.columns"
LAYOUT_OPTIMIZE_STRATEGY_PARAM = "hoodie.layout.optimize.strategy"


class SizeBasedPlanStrategy:
    """Groups small file slices by size (a contract ``ClusteringSelector``)."""

    def __init__(self, options: ClusteringServiceOptions) -> None:
        """Bind the strategy to the service's options."""
        self.options = options

    @property
    def preserve_hoodie_metadata(self) -> bool:
        """Whether rewritten rows keep their commit metadata."""
        return self.options.preserve_commit_metadata

    def filter_partitions(self, partitions: Sequence[str]) -> list[str]:
        """The selected partitions, else those fully matching the pattern, else all (Java's ``NONE`` filter mode)."""
        opts = self.options
        if opts.partition_selected:
            present = set(partitions)
            return [p for p in opts.partition_selected if p in present]
        if opts.partition_regex_pattern:
            pattern = re.compile(opts.partition_regex_pattern)
            return [p for p in partitions if pattern.fullmatch(p)]
        return list(partitions)

    def strategy_params(self) -> dict[str, str]:
        """The sort columns and their order, when sorting."""
        if not self.options.sort_columns:
            return {}
        return {
            SORT_COLUMNS_PARAM: ",".join(self.options.sort_columns),
            LAYOUT_OPTIMIZE_STRATEGY_PARAM: self.options.layout_optimize_strategy,
        }

    def _outputs(self, size: int) -> int:
        return max(1, math.ceil(size / self.options.target_file_max_bytes))

    def _partition_groups(self, candidates: Sequence[ClusteringCandidateT]) -> list[PlannedGroup[ClusteringCandidateT]]:
        opts = self.options
        eligible = [c for c in candidates if (c.base_file_size or 0) < opts.small_file_limit_bytes]
        eligible.sort(key=lambda c: -c.estimated_size)  # stable: listing order among equal sizes
        groups: list[PlannedGroup[ClusteringCandidateT]] = []
        current: list[ClusteringCandidateT] = []
        total = 0
        for cand in eligible:
            size = cand.estimated_size
            if current and total + size > opts.max_bytes_per_group:
                groups.append(PlannedGroup(tuple(current), self._outputs(total)))
                current, total = [], 0
                if len(groups) >= opts.max_num_groups:
                    return groups
            current.append(cand)
            total += size
        if current and (len(current) > 1 or opts.single_group_clustering_enabled or opts.sort_columns):
            groups.append(PlannedGroup(tuple(current), self._outputs(total)))
        return groups[: opts.max_num_groups]

    def plan_groups(
        self, candidates: Mapping[str, Sequence[ClusteringCandidateT]]
    ) -> list[PlannedGroup[ClusteringCandidateT]]:
        """Every partition's groups, partitions in the order given, at most ``max_num_groups`` in all."""
        out: list[PlannedGroup[ClusteringCandidateT]] = []
        for partition in candidates:
            out.extend(self._partition_groups(candidates[partition]))
        return out[: self.options.max_num_groups]
