"""Compaction strategies order and filter operations as Apache Hudi's strategies of the same name."""

from __future__ import annotations

import pytest

from hudi_framework.config.services import CompactionSettings
from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import CompactionPlanError, UnknownComponentError
from hudi_framework.layout.file_group import FileGroupId
from hudi_framework.services.compaction_plan import CompactionOperation
from hudi_services_compaction.strategies import build_strategy, partition_date


def _op(partition: str, file_id: str, *, log_size: float, logs: float = 1, io_mb: float = 0) -> CompactionOperation:
    metrics = {"TOTAL_LOG_FILES": logs, "TOTAL_IO_MB": io_mb, "TOTAL_LOG_FILES_SIZE": log_size}
    return CompactionOperation(FileGroupId(partition, file_id), "001", (f".{file_id}_001.log.1_0-0-0",), None, metrics)


def _ids(ops: list[CompactionOperation]) -> list[str]:
    return [op.file_id for op in ops]


OPS = [
    _op("a", "f1", log_size=100, logs=1, io_mb=300),
    _op("a", "f2", log_size=900, logs=3, io_mb=300),
    _op("b", "f3", log_size=500, logs=2, io_mb=300),
    _op("b", "f4", log_size=10, logs=5, io_mb=300),
]


def _strategy(name: str, **fields: object) -> object:
    return build_strategy(CompactionSettings(strategy=name, **fields))  # type: ignore[arg-type]


def test_log_file_size_orders_by_log_size_and_applies_the_threshold() -> None:
    assert _ids(_strategy("log-file-size").order_and_filter(OPS)) == ["f2", "f3", "f1", "f4"]  # type: ignore[attr-defined]
    limited = _strategy("log-file-size", logfile_size_threshold_bytes=100)
    assert _ids(limited.order_and_filter(OPS)) == ["f2", "f3", "f1"]  # type: ignore[attr-defined]


def test_bounded_io_keeps_the_operation_that_crosses_the_budget() -> None:
    assert _ids(_strategy("bounded-io", target_io_mb=600).order_and_filter(OPS)) == ["f1", "f2"]  # type: ignore[attr-defined]
    assert _ids(_strategy("bounded-io", target_io_mb=601).order_and_filter(OPS)) == ["f1", "f2", "f3"]  # type: ignore[attr-defined]
    # log-file-size is bounded too: the two largest logs fit 600 MB.
    assert _ids(_strategy("log-file-size", target_io_mb=600).order_and_filter(OPS)) == ["f2", "f3"]  # type: ignore[attr-defined]


def test_log_file_num_orders_by_count() -> None:
    strategy = _strategy("log-file-num", logfile_num_threshold=2)
    assert _ids(strategy.order_and_filter(OPS)) == ["f4", "f2", "f3"]  # type: ignore[attr-defined]


def test_unbounded_takes_everything_in_order() -> None:
    assert _ids(_strategy("unbounded").order_and_filter(OPS)) == ["f1", "f2", "f3", "f4"]  # type: ignore[attr-defined]


def test_day_based_takes_the_newest_partitions() -> None:
    ops = [
        _op("2024/01/01", "old", log_size=1),
        _op("2024/03/01", "new", log_size=1),
        _op("2024/02/01", "mid", log_size=1),
        _op("2024/03/01", "new2", log_size=1),
    ]
    strategy = _strategy("day-based", daybased_target_partitions=2)
    assert _ids(strategy.order_and_filter(ops)) == ["new", "new2", "mid"]  # type: ignore[attr-defined]
    assert strategy.filter_partitions(["2024/01/01", "2024/03/01", "2024/02/01"]) == ["2024/03/01", "2024/02/01"]  # type: ignore[attr-defined]


def test_day_based_reads_hive_style_dates_and_rejects_others() -> None:
    assert str(partition_date("year=2024/month=01/day=16")) == "2024-01-16"
    assert str(partition_date("2024/01/16/09")) == "2024-01-16"
    with pytest.raises(CompactionPlanError, match="not a yyyy/MM/dd date"):
        partition_date("region=us")


def test_apache_hudi_class_names_select_strategies() -> None:
    package = "org.apache.hudi.table.action.compact.strategy."
    for cls, name in [
        ("LogFileSizeBasedCompactionStrategy", "log-file-size"),
        ("BoundedIOCompactionStrategy", "bounded-io"),
        ("DayBasedCompactionStrategy", "day-based"),
        ("UnBoundedCompactionStrategy", "unbounded"),
    ]:
        settings = HudiSettings.from_hoodie_options({"hoodie.compaction.strategy": package + cls}, env=False)
        assert type(build_strategy(settings.services.compaction)).name == name
    options = {
        "hoodie.compaction.logfile.size.threshold": "1024",
        "hoodie.compaction.daybased.target.partitions": "3",
        "hoodie.compaction.target.io": "700",
    }
    compaction = HudiSettings.from_hoodie_options(options, env=False).services.compaction
    assert (compaction.logfile_size_threshold_bytes, compaction.daybased_target_partitions) == (1024, 3)
    assert compaction.target_io_mb == 700


def test_unsupported_strategy_names_the_installed_ones() -> None:
    with pytest.raises(UnknownComponentError, match="log-file-size"):
        build_strategy(CompactionSettings(strategy="acme-strategy"))  # type: ignore[arg-type]
