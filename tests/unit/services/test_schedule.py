"""Scheduling on Apache Hudi's merge-on-read fixtures: the requested plan per strategy, and its rules."""

from __future__ import annotations

import io
import json

import fastavro
import pytest

from hudi_framework.config.services import CompactionSettings
from hudi_framework.errors import CompactionPlanError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.compaction_plan import decode_compaction_plan
from hudi_framework.timeline.avro_container import AvroSchemaName, schema_text
from hudi_framework.timeline.instant import Action, State
from hudi_services_compaction import build_compaction_plan, schedule_compaction
from tests.unit.services.conftest import V6_WITH_LOGS, V9_WITH_LOGS, CopyTable


def _settings(name: str = "log-file-size", **fields: object) -> CompactionSettings:
    return CompactionSettings(strategy=name, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("fixture_id", [*V6_WITH_LOGS, V9_WITH_LOGS])
def test_plan_names_every_slice_with_log_files(copy_table: CopyTable, fixture_id: str) -> None:
    base = copy_table(fixture_id)
    table = HudiTable.open(str(base))
    expected = {
        (s.file_group_id, s.base_file_name, tuple(s.log_file_names))
        for s in table.latest_file_slices()
        if s.has_log_files
    }
    instant = schedule_compaction(table, _settings("unbounded"))
    assert instant is not None
    requested = table.timeline.get(instant, Action.COMPACTION)
    assert requested.state is State.REQUESTED
    layout_dir = ".hoodie" if table.config.timeline_layout_version == 1 else ".hoodie/timeline"
    data = (base / layout_dir / f"{instant}.compaction.requested").read_bytes()
    # Any Avro reader with Apache Hudi's schema reads the file.
    schema = json.loads(schema_text(AvroSchemaName.COMPACTION_PLAN))
    (record,) = fastavro.reader(io.BytesIO(data), reader_schema=schema)
    assert record["version"] == 2
    assert record["preserveHoodieMetadata"] is False
    plan = decode_compaction_plan(data)
    got = {(op.file_group, op.data_file_name, op.delta_file_names) for op in plan.operations}
    assert got == expected
    for op in plan.operations:
        sizes = [(base / op.partition_path / n).stat().st_size for n in op.delta_file_names]
        base_size = (base / op.partition_path / op.data_file_name).stat().st_size if op.data_file_name else 0
        mb = 1024 * 1024
        assert dict(op.metrics) == {
            "TOTAL_LOG_FILES": float(len(sizes)),
            "TOTAL_IO_MB": float((base_size + sum(sizes)) // mb + (base_size or 125_829_120) // mb),
            "TOTAL_IO_READ_MB": float((base_size + sum(sizes)) // mb),
            "TOTAL_LOG_FILES_SIZE": float(sum(sizes)),
            "TOTAL_IO_WRITE_MB": float((base_size or 125_829_120) // mb),
        }


def test_strategies_choose_different_slices(copy_table: CopyTable) -> None:
    table = HudiTable.open(str(copy_table(V9_WITH_LOGS)))
    instant = "29990101000000000"
    by_size = build_compaction_plan(table, _settings(), instant)
    assert by_size is not None
    sizes = [op.metric("TOTAL_LOG_FILES_SIZE") for op in by_size.operations]
    assert len(sizes) == 2
    assert sizes == sorted(sizes, reverse=True)
    # Only the larger log passes a threshold between the two sizes.
    threshold = int(sum(sizes) / 2)
    larger = build_compaction_plan(table, _settings(logfile_size_threshold_bytes=threshold), instant)
    assert larger is not None
    assert [op.file_group for op in larger.operations] == [by_size.operations[0].file_group]
    assert build_compaction_plan(table, _settings(logfile_size_threshold_bytes=10**9), instant) is None
    # Partitions are yyyy/MM/dd/HH dates: day-based orders them newest first ...
    day = build_compaction_plan(table, _settings("day-based"), instant)
    assert day is not None
    assert [op.partition_path for op in day.operations] == ["2024/01/16/09", "2024/01/15/11"]
    # ... and lists only the newest N partitions, here one without log files: nothing to do (as Java).
    assert build_compaction_plan(table, _settings("day-based", daybased_target_partitions=1), instant) is None


def test_pending_compaction_excludes_its_file_groups(copy_table: CopyTable) -> None:
    table = HudiTable.open(str(copy_table(V6_WITH_LOGS[2])))
    first = schedule_compaction(table, _settings())
    assert first is not None
    assert schedule_compaction(table, _settings()) is None
    # Readers still see the slices: the pending compaction's base instant opens an empty slice.
    assert any(s.has_log_files for s in table.latest_file_slices())


def test_nothing_to_compact_writes_nothing(copy_table: CopyTable) -> None:
    base = copy_table("mor/parquet/v6_simplekeygen_hivestyle_no_metafields")
    table = HudiTable.open(str(base))
    before = sorted(p.name for p in (base / ".hoodie").iterdir())
    assert schedule_compaction(table, _settings()) is None
    assert sorted(p.name for p in (base / ".hoodie").iterdir()) == before


def test_copy_on_write_tables_do_not_compact(copy_table: CopyTable) -> None:
    table = HudiTable.open(str(copy_table("cow/v6_nonpartitioned")))
    with pytest.raises(CompactionPlanError, match="copy-on-write"):
        schedule_compaction(table, _settings())


def test_v6_refuses_while_a_write_is_in_flight(copy_table: CopyTable) -> None:
    base = copy_table(V6_WITH_LOGS[0])
    (base / ".hoodie" / "29990101000000000.deltacommit.requested").write_bytes(b"")
    with pytest.raises(CompactionPlanError, match="in flight"):
        schedule_compaction(HudiTable.open(str(base)), _settings())


def test_a_plan_no_installed_merger_can_run_is_not_scheduled(copy_table: CopyTable) -> None:
    from hudi_framework.table.properties import update_properties

    base = copy_table(V9_WITH_LOGS)
    missing = "0b9b5b0e-0000-4000-8000-00000000dead"  # no installed merger implements it
    table = HudiTable.open(str(base))
    update_properties(table.storage, {"hoodie.record.merge.mode": "CUSTOM", "hoodie.record.merge.strategy.id": missing})
    table = HudiTable.open(str(base))
    with pytest.raises(CompactionPlanError, match=f"record merger is not installed.*{missing}"):
        schedule_compaction(table, _settings("unbounded"))
    assert table.reload().timeline.pending() == []
