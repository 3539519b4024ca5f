"""The size-based clustering plan strategy (Apache Hudi's ``SparkSizeBasedClusteringPlanStrategy``)."""

from __future__ import annotations

from dataclasses import dataclass

from hudi_services_clustering.options import ClusteringServiceOptions
from hudi_services_clustering.strategies import SizeBasedPlanStrategy

MB = 1024 * 1024


@dataclass(frozen=True)
class Cand:
    partition_path: str
    file_id: str
    base_file_size: int | None
    max_file_size: int = 120 * MB

    @property
    def estimated_size(self) -> int:
        return self.base_file_size if self.base_file_size is not None else self.max_file_size


def _groups(cands: list[Cand], **options: object) -> list[tuple[list[str], int]]:
    strategy = SizeBasedPlanStrategy(ClusteringServiceOptions.model_validate(options))
    by_partition: dict[str, list[Cand]] = {}
    for c in cands:
        by_partition.setdefault(c.partition_path, []).append(c)
    return [([c.file_id for c in g.slices], g.num_output_file_groups) for g in strategy.plan_groups(by_partition)]


def test_small_files_largest_first_in_groups_of_at_most_max_bytes() -> None:
    cands = [Cand("p", "a", 10 * MB), Cand("p", "b", 40 * MB), Cand("p", "c", 30 * MB), Cand("p", "d", 500 * MB)]
    # d is over the small-file limit; 40 + 30 fit in 75 MB, 10 starts a new group.
    got = _groups(cands, small_file_limit_bytes=100 * MB, max_bytes_per_group=75 * MB, target_file_max_bytes=50 * MB)
    assert got == [(["b", "c"], 2), (["a"], 1)]


def test_a_single_slice_last_group_needs_single_group_clustering_or_sorting() -> None:
    cands = [Cand("p", "a", 40 * MB), Cand("p", "b", 30 * MB), Cand("p", "c", 10 * MB)]
    opts = {"max_bytes_per_group": 75 * MB, "single_group_clustering_enabled": False}
    assert _groups(cands, **opts) == [(["a", "b"], 1)]
    assert _groups(cands, **opts, sort_columns=("ts",)) == [(["a", "b"], 1), (["c"], 1)]


def test_log_only_slices_count_as_max_file_size_and_as_zero_bytes_for_the_limit() -> None:
    cands = [Cand("p", "a", None), Cand("p", "b", 1 * MB)]
    got = _groups(cands, small_file_limit_bytes=1 * MB, target_file_max_bytes=100 * MB)
    assert got == [(["a"], 2)]  # b's base file is not under the limit; a is, and counts 120 MB
    assert _groups(cands, small_file_limit_bytes=0) == []  # as Java: 0 bytes is not under 0


def test_max_num_groups_bounds_the_plan_across_partitions() -> None:
    cands = [Cand(p, f"{p}{i}", 10 * MB) for p in ("x", "y") for i in range(3)]
    got = _groups(cands, max_bytes_per_group=10 * MB, max_num_groups=4)
    assert [ids for ids, _ in got] == [["x0"], ["x1"], ["x2"], ["y0"]]


def test_partition_filters() -> None:
    options = ClusteringServiceOptions(partition_regex_pattern="2024/0[12]/.*")
    parts = ["2024/01/01", "2024/02/09", "2024/03/01", "x2024/01/01"]
    assert SizeBasedPlanStrategy(options).filter_partitions(parts) == ["2024/01/01", "2024/02/09"]
    selected = ClusteringServiceOptions(partition_selected=("2024/03/01", "nope"), partition_regex_pattern=".*")
    assert SizeBasedPlanStrategy(selected).filter_partitions(parts) == ["2024/03/01"]


def test_strategy_params_carry_the_sort_order_only_when_sorting() -> None:
    assert SizeBasedPlanStrategy(ClusteringServiceOptions()).strategy_params() == {}
    sorted_ = SizeBasedPlanStrategy(
        ClusteringServiceOptions(sort_columns=("a", "b"), layout_optimize_strategy="hilbert")
    )
    assert sorted_.strategy_params() == {
        "hoodie.clustering.plan.strategy.sort.columns": "a,b",
        "hoodie.layout.optimize.strategy": "hilbert",
    }
