"""Inline and async compaction driven by the writer: every N delta commits, triggers, plugin lookup."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework import Components
from hudi_framework.config.services import CompactionSettings
from hudi_framework.config.settings import HudiSettings
from hudi_framework.plugin.registry import ComponentKind, ComponentRegistry
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.services import compaction_due, delta_commits_since_compaction
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, State
from hudi_framework.write.client import WriteClient
from hudi_framework.write.table_services import run_inline_services
from hudi_services_compaction import CompactionService
from tests.unit.services.conftest import V9_WITH_LOGS, CopyTable, canonical, rs_snapshot

COLUMNS = ["id", "city", "ts", "fare"]


def _mor(tmp_path: Path) -> HudiTable:
    config = new_table_config(
        "trips", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    return HudiTable.create(str(tmp_path / "trips"), config)


def _batch(ids: list[str], ts: int) -> pa.Table:
    return pa.table(
        {"id": ids, "city": ["sf" if int(i[1:]) % 2 else "ny" for i in ids], "ts": [ts] * len(ids),
         "fare": [float(ts)] * len(ids)}
    )  # fmt: skip


def _settings(**compaction: object) -> HudiSettings:
    return HudiSettings(services={"compaction": compaction})  # type: ignore[arg-type]


def _compactions(table: HudiTable) -> list[tuple[str, State]]:
    return [(i.requested_time, i.state) for i in table.reload().timeline.by_action(Action.COMMIT)]


def test_inline_compaction_every_n_delta_commits(tmp_path: Path) -> None:
    table = _mor(tmp_path)
    client = WriteClient(table, _settings(inline=True, max_delta_commits=3))
    client.insert(_batch(["k1", "k2", "k3", "k4"], 1))
    client.upsert(_batch(["k1", "k2"], 2))
    assert _compactions(table) == []
    client.upsert(_batch(["k3", "k5"], 3))  # third delta commit: compaction runs inline
    done = _compactions(table)
    assert len(done) == 1
    assert done[0][1] is State.COMPLETED
    assert table.timeline.read_commit_metadata(table.timeline.get(done[0][0])).compacted is True
    assert all(not s.has_log_files for s in table.latest_file_slices())
    rows = canonical(read_table(table).select(COLUMNS))
    expected = canonical(pa.concat_tables([_batch(["k1", "k2"], 2), _batch(["k3", "k5"], 3), _batch(["k4"], 1)]))
    assert rows == expected
    assert canonical(rs_snapshot(Path(table.base_uri.removeprefix("file://"))).select(COLUMNS)) == expected
    client.upsert(_batch(["k1"], 4))  # the count starts again after the compaction
    assert len(_compactions(table)) == 1


def test_schedule_only_leaves_the_plan_for_another_job(tmp_path: Path) -> None:
    table = _mor(tmp_path)
    client = WriteClient(table, _settings(schedule_inline=True, max_delta_commits=2))
    client.insert(_batch(["k1", "k2"], 1))
    client.upsert(_batch(["k1"], 2))
    (pending,) = _compactions(table)
    assert pending[1] is State.REQUESTED
    client.upsert(_batch(["k2"], 3))  # writers append to the new slice while the plan is pending
    before = canonical(read_table(table))
    CompactionService().execute(table, pending[0])
    assert canonical(read_table(table.reload())) == before
    assert canonical(read_table(table).select(COLUMNS)) == canonical(
        pa.concat_tables([_batch(["k1"], 2), _batch(["k2"], 3)])
    )


def test_nothing_runs_unless_configured_and_due(tmp_path: Path, components: Components) -> None:
    table = _mor(tmp_path)
    WriteClient(table).insert(_batch(["k1"], 1))
    assert run_inline_services(table, _settings(), components) == []
    assert run_inline_services(table, _settings(inline=True, max_delta_commits=2), components) == []
    WriteClient(table).upsert(_batch(["k1"], 2))
    (run,) = run_inline_services(table, _settings(inline=True, max_delta_commits=2), components)
    assert run.executed
    assert run.service == "compaction"


def test_trigger_strategies_on_a_fixture_timeline(copy_table: CopyTable) -> None:
    timeline = HudiTable.open(str(copy_table(V9_WITH_LOGS))).timeline
    info = delta_commits_since_compaction(timeline)
    assert info is not None
    assert info.count == 5
    assert info.since == "20260403183858818"
    first = "20260403183858818"
    hour_later = "20260403193858818"
    assert compaction_due(timeline, CompactionSettings(max_delta_commits=5), first)
    assert not compaction_due(timeline, CompactionSettings(max_delta_commits=6), first)
    time = CompactionSettings(trigger_strategy="TIME_ELAPSED", max_delta_seconds=3600)  # type: ignore[arg-type]
    assert not compaction_due(timeline, time, "20260403193858817")
    assert compaction_due(timeline, time, hour_later)
    both = CompactionSettings(trigger_strategy="NUM_AND_TIME", max_delta_commits=5, max_delta_seconds=3600)  # type: ignore[arg-type]
    either = CompactionSettings(trigger_strategy="NUM_OR_TIME", max_delta_commits=6, max_delta_seconds=3600)  # type: ignore[arg-type]
    assert not compaction_due(timeline, both, first)
    assert compaction_due(timeline, both, hour_later)
    assert not compaction_due(timeline, either, first)
    assert compaction_due(timeline, either, hour_later)


def test_after_a_compaction_only_later_delta_commits_count(copy_table: CopyTable) -> None:
    # Apache Hudi compacted this table at 20260307162618152; one delta commit completed after it.
    timeline = HudiTable.open(str(copy_table("mor/avro/v9_txns_simple_meta"))).timeline
    info = delta_commits_since_compaction(timeline)
    assert info is not None
    assert (info.count, info.since) == (1, "20260307162618152")


def test_the_service_is_an_installed_plugin(registry: ComponentRegistry) -> None:
    options = _settings(max_delta_commits=7, target_io_mb=7).services.compaction.service_options()
    service = registry.build(ComponentKind.SERVICE, "compaction", options)
    assert isinstance(service, CompactionService)
    assert service.action == "compaction"
    assert service.options.target_io_mb == 7
    assert "max_delta_commits" not in options  # the trigger is the kernel's


def test_copy_on_write_tables_are_left_alone(tmp_path: Path, components: Components) -> None:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"])
    table = HudiTable.create(str(tmp_path / "cow"), config)
    WriteClient(table, _settings(inline=True, max_delta_commits=1)).insert(_batch(["k1"], 1))
    assert run_inline_services(table, _settings(inline=True, max_delta_commits=1), components) == []


@pytest.mark.parametrize(("strategy", "plans"), [("NUM_COMMITS", 2), ("NUM_COMMITS_AFTER_LAST_REQUEST", 1)])
def test_a_pending_plan_counts_for_after_last_request_only(tmp_path: Path, strategy: str, plans: int) -> None:
    table = _mor(tmp_path)
    client = WriteClient(table, _settings(schedule_inline=True, max_delta_commits=2, trigger_strategy=strategy))
    client.insert(_batch(["k1", "k2"], 1))
    client.upsert(_batch(["k1"], 2))  # second delta commit: plans k1's file group
    client.upsert(_batch(["k2"], 3))  # k2's file group gets a log file
    # NUM_COMMITS counts from the last *completed* compaction (none yet): due again, plans k2's group.
    # NUM_COMMITS_AFTER_LAST_REQUEST counts from the pending plan: one delta commit, not due.
    pending = [c for c in _compactions(table) if c[1] is State.REQUESTED]
    assert len(pending) == plans
