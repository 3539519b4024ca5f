"""Clean plans and metadata as Avro, the clean trigger, and cleaning run inline by the writer."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import build_components
from hudi_framework.config.services import CleanSettings
from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import CleanError, InstantMetadataError
from hudi_framework.plugin.manager import build_plugin_manager
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services.clean_plan import (
    CleanerPlan,
    CleanFileInfo,
    RetainedInstant,
    decode_cleaner_plan,
    encode_cleaner_plan,
)
from hudi_framework.services.clean_trigger import clean_due, commits_since_last_clean
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.avro_container import AvroSchemaName, read_container, schema_text, write_container
from hudi_framework.timeline.clean_metadata import (
    CleanMetadata,
    CleanPartitionMetadata,
    decode_clean_metadata,
    encode_clean_metadata,
)
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.cleaner import execute_clean
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import create_savepoint, delete_savepoint
from hudi_framework.write.service_host import ServiceHost
from hudi_framework.write.table_services import run_inline_services
from hudi_framework.write.transaction import timeline_writer
from hudi_services_cleaning import CleanService, CleanServiceOptions, build_clean_plan
from hudi_services_cleaning.incremental import partitions_to_clean

PLAN = CleanerPlan(
    earliest_instant_to_retain=RetainedInstant("20260101030000000", "deltacommit"),
    last_completed_commit="20260101050000000",
    policy="KEEP_LATEST_COMMITS",
    files={
        "p1": (CleanFileInfo("p1/a_0-0-0_1.parquet", "s3://b/t/p1/a_0-0-0_1.parquet"),),
        "p2": (),
    },
    extra_metadata={"savepointed_timestamps": "20260101010000000"},
)


def test_plan_is_java_shaped_avro_and_round_trips() -> None:
    data = encode_cleaner_plan(PLAN)
    avro = read_container(data)
    assert avro.writer_schema == schema_text(AvroSchemaName.CLEANER_PLAN)
    record = avro.record
    assert record["version"] == 2
    assert record["filesToBeDeletedPerPartition"] == {}  # the version 1 field stays empty
    assert record["filePathsToBeDeletedPerPartition"]["p1"] == [
        {"filePath": "s3://b/t/p1/a_0-0-0_1.parquet", "isBootstrapBaseFile": False}
    ]
    assert record["earliestInstantToRetain"] == {
        "timestamp": "20260101030000000", "action": "deltacommit", "state": "COMPLETED"
    }  # fmt: skip
    assert decode_cleaner_plan(data) == PLAN
    assert PLAN.file_count == 1
    assert PLAN.savepointed_timestamps == ["20260101010000000"]


def test_version_1_plans_are_read() -> None:
    record = {
        "earliestInstantToRetain": None,
        "policy": "KEEP_LATEST_FILE_VERSIONS",
        "filesToBeDeletedPerPartition": {"2020/01/01": ["hdfs://nn/t/2020/01/01/f_1-0-1_2.parquet"]},
        "version": 1,
    }
    plan = decode_cleaner_plan(write_container(AvroSchemaName.CLEANER_PLAN, record))
    assert plan.keys == ["2020/01/01/f_1-0-1_2.parquet"]
    assert plan.earliest_instant_to_retain is None


def test_metadata_records_names_and_counts() -> None:
    metadata = CleanMetadata(
        start_clean_time="20260101060000000",
        time_taken_ms=12,
        earliest_commit_to_retain="20260101030000000",
        last_completed_commit="20260101050000000",
        partitions={
            "p1": CleanPartitionMetadata(
                "p1", "KEEP_LATEST_COMMITS", ("a.parquet", "b.parquet"), ("a.parquet",), ("b.parquet",)
            )
        },
    )
    data = encode_clean_metadata(metadata)
    record = read_container(data).record
    assert record["totalFilesDeleted"] == 1
    assert record["version"] == 2
    assert record["bootstrapPartitionMetadata"] == {}
    assert decode_clean_metadata(data) == metadata
    with pytest.raises(InstantMetadataError, match="expected HoodieCleanMetadata"):
        decode_clean_metadata(encode_cleaner_plan(PLAN))
    with pytest.raises(InstantMetadataError, match="empty"):
        decode_cleaner_plan(b"")


def _cow(tmp_path: Path) -> HudiTable:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    return HudiTable.create(str(tmp_path / "t"), config)


def _batch(ts: int) -> pa.Table:
    return pa.table({"id": ["a", "b"], "city": ["sf", "ny"], "ts": [ts, ts]})


def _settings(**clean: object) -> HudiSettings:
    return HudiSettings(services={"clean": clean})  # type: ignore[arg-type]


def _cleaner(**clean: object) -> CleanService:
    return CleanService(CleanServiceOptions(**_settings(**clean).services.clean.service_options()))


def test_trigger_counts_commits_after_the_last_clean(tmp_path: Path) -> None:
    table = _cow(tmp_path)
    client = WriteClient(table, _settings(automatic=False))
    for ts in range(4):
        client.upsert(_batch(ts))
    timeline = table.reload().timeline
    assert commits_since_last_clean(timeline) == 4
    (result,) = _cleaner(commits_retained=1).run(table)
    assert result.metadata.last_completed_commit == timeline.commits_timeline()[-1].requested_time
    assert commits_since_last_clean(table.reload().timeline) == 0
    client.upsert(_batch(9))
    assert commits_since_last_clean(table.reload().timeline) == 1
    assert clean_due(table.timeline, 1)
    assert not clean_due(table.timeline, 2)


def test_writer_cleans_inline_by_default(tmp_path: Path) -> None:
    table = _cow(tmp_path)
    client = WriteClient(table, _settings(commits_retained=2))
    for ts in range(5):
        client.upsert(_batch(ts))
    cleans = table.reload().timeline.by_action(Action.CLEAN)
    assert [c.state for c in cleans] == [State.COMPLETED] * 2  # after the 4th and 5th commit
    assert len(table.storage.list("sf")) == 1 + 3  # partition metadata, serving slice, 2 retained


@pytest.mark.parametrize(
    "settings",
    [{"automatic": False, "commits_retained": 1}, {"async_enabled": True, "commits_retained": 1}],
)
def test_no_inline_clean_when_off_or_async(tmp_path: Path, settings: dict[str, object]) -> None:
    table = _cow(tmp_path)
    client = WriteClient(table, _settings(**settings))
    for ts in range(4):
        client.upsert(_batch(ts))
    assert table.reload().timeline.by_action(Action.CLEAN) == []


def test_no_inline_clean_without_the_plugin(tmp_path: Path) -> None:
    table = _cow(tmp_path)
    client = WriteClient(table, _settings(automatic=False))
    for ts in range(4):
        client.upsert(_batch(ts))
    settings = _settings(commits_retained=1)
    bare = build_components(settings, build_plugin_manager(disable=["services-cleaning"]))
    assert run_inline_services(table, settings, bare) == []
    (run,) = run_inline_services(table, settings, build_components(settings))
    assert (run.service, run.executed) == ("clean", True)


def test_crashed_clean_is_finished_by_the_next_run(tmp_path: Path) -> None:
    table = _cow(tmp_path)
    client = WriteClient(table, _settings(automatic=False))
    for ts in range(4):
        client.upsert(_batch(ts))
    service = _cleaner(commits_retained=1)
    instant = service.schedule(table)
    assert instant is not None
    # A run that crashed after going inflight and deleting one planned file.
    requested = table.reload().timeline.get(instant, Action.CLEAN)
    timeline_writer(table.storage, table.config).transition_to_inflight(requested)
    plan = decode_cleaner_plan(table.timeline.read_bytes(requested, State.REQUESTED))
    table.storage.delete(plan.keys[0])
    (first, *_) = service.run(table)
    assert first.instant.requested_time == instant
    assert first.deleted == plan.file_count  # a file already gone counts as deleted
    assert not any(table.storage.exists(k) for k in plan.keys)
    assert table.reload().timeline.get(instant, Action.CLEAN).is_completed
    with pytest.raises(CleanError, match="already completed"):
        execute_clean(table, instant)


def _city_batch(city: str, ts: int) -> pa.Table:
    return pa.table({"id": [f"{city}1", f"{city}2"], "city": [city, city], "ts": [ts, ts]})


def _same_plans(table: HudiTable, retained: int) -> tuple[set[str], list[str] | None]:
    table.reload()
    full = build_clean_plan(table, CleanSettings(commits_retained=retained, incremental=False))
    inc = build_clean_plan(table, CleanSettings(commits_retained=retained))
    assert set(inc.keys) == set(full.keys)
    assert inc.earliest_instant_to_retain == full.earliest_instant_to_retain
    retain_from = full.earliest_instant_to_retain
    listed = partitions_to_clean(ServiceHost(table), retain_from.timestamp, []) if retain_from else None
    return set(full.keys), listed


def test_incremental_plans_list_fewer_partitions_and_find_the_same_files(tmp_path: Path) -> None:
    table = _cow(tmp_path)
    client = WriteClient(table, _settings(automatic=False))
    service = _cleaner(commits_retained=2)
    cities = ["sf", "ny", "la", "sf", "sf", "ny", "sf", "sf", "sf", "la"]
    listed_counts = []
    for ts, city in enumerate(cities):
        client.upsert(_city_batch(city, ts))
        keys, listed = _same_plans(table, 2)
        if listed is not None:
            listed_counts.append(len(listed))
        service.run(table)
        assert not any(table.storage.exists(k) for k in keys)
    assert listed_counts
    assert min(listed_counts) < 3  # later plans skip partitions nobody wrote


def test_incremental_plan_revisits_partitions_of_a_deleted_savepoint(tmp_path: Path) -> None:
    table = _cow(tmp_path)
    client = WriteClient(table, _settings(automatic=False))
    service = _cleaner(commits_retained=1)
    client.upsert(_city_batch("la", 0))
    first = client.upsert(_city_batch("la", 1)).instant.requested_time
    create_savepoint(table.reload(), first, user="test")
    for ts in range(2, 6):
        client.upsert(_city_batch("la" if ts == 2 else "sf", ts))
        service.run(table)
    kept = {s.base_file_key for s in table.reload().file_system_view().file_slices(
        table.latest_file_slices(partition="la")[0].file_group_id
    )}  # fmt: skip
    assert len(kept) == 2  # the savepointed slice stayed next to the latest one
    delete_savepoint(table, first)
    client.upsert(_city_batch("sf", 9))
    keys, listed = _same_plans(table, 1)
    assert listed is not None
    assert "la" in listed
    assert keys & kept  # the formerly savepointed slice is planned now
