"""``HoodieCompactionPlan``: Apache Hudi's plans decode, re-encode byte for byte, and metrics follow Java."""

from __future__ import annotations

import io
import json

import fastavro
import pytest

from hudi_framework.errors import CompactionPlanError, InstantMetadataError
from hudi_framework.layout.file_group import BaseFile, FileGroupId, FileSlice, LogFile
from hudi_framework.layout.naming import parse_data_file_name
from hudi_framework.services.compaction_plan import (
    CompactionOperation,
    CompactionPlan,
    decode_compaction_plan,
    encode_compaction_plan,
    slice_metrics,
)
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, schema_text
from tests.unit.services.conftest import CopyTable

JAVA_PLAN = "20260307162618152.compaction.requested"


def _java_plan(copy_table: CopyTable) -> bytes:
    base = copy_table("mor/avro/v9_txns_simple_meta")
    return (base / ".hoodie" / "timeline" / JAVA_PLAN).read_bytes()


def test_java_plan_decodes(copy_table: CopyTable) -> None:
    plan = decode_compaction_plan(_java_plan(copy_table))
    assert plan.version == 2
    assert [str(g) for g in plan.file_groups] == [
        "region=us/3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0",
        "region=apac/c3b646cc-8602-47c5-b010-3fe002241298-0",
    ]
    us = plan.operations[0]
    assert us.base_instant_time == "20260307162557587"
    assert us.data_file_name == "3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0_1-27-53_20260307162557587.parquet"
    assert us.delta_file_names == (
        ".3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0_20260307162604102.log.1_0-52-126",
        ".3e93c8a9-fda0-4e8a-91dc-b4ade7dab76d-0_20260307162606034.log.1_0-78-180",
    )
    assert us.metrics["TOTAL_LOG_FILES_SIZE"] == 3855.0


def test_java_plan_reencodes_byte_for_byte(copy_table: CopyTable) -> None:
    data = _java_plan(copy_table)
    java = read_container(data)
    ours = read_container(encode_compaction_plan(decode_compaction_plan(data)))
    assert ours.writer_schema == java.writer_schema
    assert ours.datum == java.datum


def test_metrics_of_the_java_plan_are_recomputed(copy_table: CopyTable) -> None:
    base = copy_table("mor/avro/v9_txns_simple_meta")
    op = decode_compaction_plan((base / ".hoodie" / "timeline" / JAVA_PLAN).read_bytes()).operations[0]
    sizes = {}
    for name in (op.data_file_name or "", *op.delta_file_names):
        sizes[op.file_group.key(name)] = (base / op.partition_path / name).stat().st_size
    assert slice_metrics(op.file_slice(sizes), 125_829_120) == dict(op.metrics)


def _slice(base_size: int | None, log_sizes: list[int]) -> FileSlice:
    fg = FileGroupId("p", "f-0")
    base_name = parse_data_file_name("f-0_0-0-0_001.parquet")
    base = BaseFile(base_name, base_size) if base_size is not None else None  # type: ignore[arg-type]
    logs = [LogFile(parse_data_file_name(f".f-0_00{i}.log.1_0-0-0"), s) for i, s in enumerate(log_sizes, 2)]  # type: ignore[arg-type]
    return FileSlice.create(fg, "001", base, logs)


def test_metrics_round_down_to_megabytes_and_default_the_write_size() -> None:
    mb = 1024 * 1024
    with_base = slice_metrics(_slice(3 * mb + 5, [mb, mb // 2]), 120 * mb)
    assert with_base == {
        "TOTAL_LOG_FILES": 2.0, "TOTAL_IO_MB": 7.0, "TOTAL_IO_READ_MB": 4.0,
        "TOTAL_LOG_FILES_SIZE": float(mb + mb // 2), "TOTAL_IO_WRITE_MB": 3.0,
    }  # fmt: skip
    log_only = slice_metrics(_slice(None, [10]), 120 * mb)
    assert log_only["TOTAL_IO_WRITE_MB"] == 120.0
    assert log_only["TOTAL_IO_MB"] == 120.0


def test_plan_round_trip_and_schema() -> None:
    op = CompactionOperation.from_slice(_slice(100, [7, 8]), {"TOTAL_LOG_FILES": 2.0})
    plan = CompactionPlan(operations=(op,))
    data = encode_compaction_plan(plan)
    # An independent Avro reader with the Java schema reads the file.
    records = list(
        fastavro.reader(io.BytesIO(data), reader_schema=json.loads(schema_text(AvroSchemaName.COMPACTION_PLAN)))
    )
    assert records[0]["operations"][0]["deltaFilePaths"] == [".f-0_002.log.1_0-0-0", ".f-0_003.log.1_0-0-0"]
    assert records[0]["version"] == 2
    assert decode_compaction_plan(data) == plan


def test_bad_plans_raise() -> None:
    with pytest.raises(InstantMetadataError):
        decode_compaction_plan(b"")
    with pytest.raises(CompactionPlanError, match="fileId"):
        CompactionPlan.from_record({"operations": [{"baseInstantTime": "1", "fileId": None}]})
    bad = CompactionOperation(FileGroupId("", "f"), "1", ("not-a-log",))
    with pytest.raises(CompactionPlanError, match="not a log file name"):
        bad.file_slice()


def test_version_1_paths_reduce_to_names() -> None:
    op = CompactionOperation.from_record(
        {"baseInstantTime": "1", "fileId": "f-0", "partitionPath": "p",
         "dataFilePath": "/data/t/p/f-0_0-0-0_1.parquet", "deltaFilePaths": ["/data/t/p/.f-0_1.log.1_0-0-0"]}
    )  # fmt: skip
    assert op.data_file_name == "f-0_0-0-0_1.parquet"
    assert op.delta_file_names == (".f-0_1.log.1_0-0-0",)


def test_a_log_compaction_plan_carries_its_executor_and_round_trips() -> None:
    from hudi_framework.write.log_compactor import LOG_COMPACTION_EXECUTOR

    op = CompactionOperation(
        FileGroupId("p", "fg-0"), "20250101000000000", (".fg-0_20250101000000001.log.1_0-0-0",), None
    )
    plan = CompactionPlan((op,), preserve_hoodie_metadata=True, compactor_class_name=LOG_COMPACTION_EXECUTOR)
    data = encode_compaction_plan(plan)
    record = read_container(data).record
    assert record["strategy"] == {"compactorClassName": LOG_COMPACTION_EXECUTOR, "strategyParams": {}, "version": 1}
    assert record["preserveHoodieMetadata"] is True
    decoded = decode_compaction_plan(data)
    assert decoded.compactor_class_name == LOG_COMPACTION_EXECUTOR
    assert [o.file_group for o in decoded.operations] == [op.file_group]
    assert decode_compaction_plan(encode_compaction_plan(CompactionPlan((op,)))).compactor_class_name is None
