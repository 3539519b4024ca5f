"""``HoodieClusteringPlan`` in a clustering's requested file: our encoding round-trips, and Apache Hudi's decodes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hudi_framework.errors import ClusteringPlanError, InstantMetadataError
from hudi_framework.layout.file_group import FileGroupId
from hudi_framework.services.clustering_plan import (
    LAYOUT_OPTIMIZE_STRATEGY_PARAM,
    SORT_AND_SIZE_EXECUTION_STRATEGY,
    SORT_COLUMNS_PARAM,
    ClusteringGroup,
    ClusteringPlan,
    SliceInfo,
    decode_clustering_plan,
    encode_clustering_plan,
)
from hudi_framework.timeline.avro_container import read_container
from hudi_framework.timeline.transitions import empty_requested_replace_metadata
from tests.fixture_tables import FixtureTable, all_fixture_tables

BASE = "f1-0_0-1-2_20240101000000000.parquet"
LOG = ".f2-0_20240101000000000.log.1_0-1-2"


def _plan() -> ClusteringPlan:
    return ClusteringPlan(
        input_groups=(
            ClusteringGroup(
                slices=(
                    SliceInfo(FileGroupId("p=1", "f1-0"), BASE, (), f"file:/t/p=1/{BASE}"),
                    SliceInfo(FileGroupId("p=1", "f2-0"), None, (LOG,), "", (f"file:/t/p=1/{LOG}",)),
                ),
                num_output_file_groups=2,
                metrics={"TOTAL_IO_MB": 3.0},
            ),
        ),
        strategy_params={SORT_COLUMNS_PARAM: "ts, city", LAYOUT_OPTIMIZE_STRATEGY_PARAM: "z-order"},
    )


def test_round_trip_keeps_every_field() -> None:
    plan = _plan()
    data = encode_clustering_plan(plan)
    assert decode_clustering_plan(data) == plan
    record = read_container(data).record
    assert record["operationType"] == "CLUSTER"
    assert record["version"] == 1
    raw = record["clusteringPlan"]
    assert raw["strategy"]["strategyClassName"] == SORT_AND_SIZE_EXECUTION_STRATEGY
    assert raw["preserveHoodieMetadata"] is True
    assert raw["missingSchedulePartitions"] == []  # as Apache Hudi 1.x writes it
    # Files are named by full path in the plan, by name once decoded.
    assert raw["inputGroups"][0]["slices"][0]["dataFilePath"] == f"file:/t/p=1/{BASE}"
    assert raw["inputGroups"][0]["slices"][1]["dataFilePath"] == ""
    decoded = decode_clustering_plan(data)
    assert decoded.sort_columns == ("ts", "city")
    assert decoded.layout_strategy == "z-order"
    assert decoded.input_groups[0].slices[1].data_file_name is None
    assert decoded.input_groups[0].slices[1].file_names == frozenset({LOG})
    assert decoded.file_groups == [FileGroupId("p=1", "f1-0"), FileGroupId("p=1", "f2-0")]


def test_an_insert_overwrite_requested_file_is_not_a_clustering_plan() -> None:
    with pytest.raises(ClusteringPlanError, match="no clustering plan"):
        decode_clustering_plan(empty_requested_replace_metadata(), path="x.replacecommit.requested")
    with pytest.raises(InstantMetadataError):
        decode_clustering_plan(b"", path="x.clustering.requested")


def test_a_slice_without_file_id_is_refused() -> None:
    record = _plan().to_record()
    record["inputGroups"][0]["slices"][0]["fileId"] = None
    with pytest.raises(ClusteringPlanError, match="without fileId"):
        ClusteringPlan.from_record(record)


def _fixture(name: str) -> FixtureTable:
    return next(t for t in all_fixture_tables() if t.id == name)


def test_apache_hudi_plan_decodes(extract_fixture: Callable[[FixtureTable], tuple[Path, Path | None]]) -> None:
    """``CALL run_clustering`` of Apache Hudi 1.x (fixture cow/v9_txns_simple_meta)."""
    base, _ = extract_fixture(_fixture("cow/v9_txns_simple_meta"))
    requested = sorted((base / ".hoodie" / "timeline").glob("*.clustering.requested"))
    assert len(requested) == 1
    plan = decode_clustering_plan(requested[0].read_bytes(), path=str(requested[0]))
    assert plan.strategy_class == SORT_AND_SIZE_EXECUTION_STRATEGY
    assert plan.preserve_hoodie_metadata
    assert plan.sort_columns == ()
    assert [g.partition_path for g in plan.input_groups] == ["region=apac", "region=eu", "region=us"]
    assert all(g.num_output_file_groups == 1 for g in plan.input_groups)
    for group in plan.input_groups:
        for info in group.slices:
            assert info.data_file_name
            assert info.data_file_name.startswith(info.file_id)
            assert info.data_file_path.endswith(f"{info.partition_path}/{info.data_file_name}")
    # Re-encoding Apache Hudi's plan gives its record back (field for field).
    again = read_container(encode_clustering_plan(plan)).record["clusteringPlan"]
    assert again == read_container(requested[0].read_bytes()).record["clusteringPlan"]


def test_group_metrics_sum_bytes_then_round_down_to_mb_as_java() -> None:
    from hudi_framework.layout.file_group import BaseFile, FileSlice, LogFile
    from hudi_framework.layout.naming import BaseFileName, LogFileName
    from hudi_framework.write.clustering_scheduler import SliceCandidate, _group_metrics

    mb = 1024 * 1024
    half = FileSlice.create(
        FileGroupId("p", "f1-0"), "20240101000000000", BaseFile(BaseFileName.parse(BASE), mb // 2),
        [LogFile(LogFileName.parse(".f1-0_20240101000000000.log.1_0-1-2"), mb // 2 + 7)],
    )  # fmt: skip
    logs_only = FileSlice.create(
        FileGroupId("p", "f2-0"), "20240101000000000", None, [LogFile(LogFileName.parse(LOG), 3 * mb)]
    )
    got = _group_metrics([SliceCandidate(half, 10 * mb), SliceCandidate(logs_only, 10 * mb)])
    # Read: 0.5 + 0.5 + 3 MB (+7 bytes) = 4 MB; write: 0.5 MB + the default 10 MB = 10 MB (rounded down once).
    assert got == {
        "TOTAL_LOG_FILES": 2.0, "TOTAL_IO_MB": 14.0, "TOTAL_IO_READ_MB": 4.0,
        "TOTAL_LOG_FILES_SIZE": float(mb // 2 + 7 + 3 * mb), "TOTAL_IO_WRITE_MB": 10.0,
    }  # fmt: skip
