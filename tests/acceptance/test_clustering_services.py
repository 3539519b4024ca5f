"""When clustering runs (inline, scheduled by writers, run by ``hudi-fw clustering``) and how writers
live with a pending one (optimistic concurrency control, v6 writes in flight)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework import open_table_service
from hudi_framework.cli.app import app
from hudi_framework.config import HudiSettings
from hudi_framework.errors import ClusteringPlanError, WriteConflictError
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.from_settings import table_config_from_settings
from hudi_framework.timeline.instant import Action
from hudi_framework.write import client as client_module
from hudi_framework.write.client import WriteClient

runner = CliRunner()


def _settings(path: Path, version: int = 9, **extra: Any) -> HudiSettings:
    overrides = {
        "table.base_path": str(path),
        "table.name": "c",
        "table.version": version,
        "table.record_key_fields": ["id"],
        "table.partition_fields": ["city"],
        "table.ordering_fields": ["ts"],
        "write.small_file_limit_bytes": 0,  # every insert opens new file groups
        **extra,
    }
    return HudiSettings.load(overrides=overrides, env=False)


def _rows(start: int, n: int, ts: int = 1) -> pa.Table:
    ids = [f"k{i:03d}" for i in range(start, start + n)]
    return pa.table({
        "id": ids, "city": ["sf" if i % 2 else "ny" for i in range(start, start + n)],
        "ts": pa.array([ts] * n, pa.int64()), "v": [f"{i}-{ts}" for i in ids],
    })  # fmt: skip


def _create(settings: HudiSettings) -> tuple[HudiTable, WriteClient]:
    table = HudiTable.create(settings.table.base_path or "", table_config_from_settings(settings))
    return table, WriteClient(table, settings)


def _snapshot(table: HudiTable) -> list[tuple[str, str]]:
    got = read_table(table.reload())
    return sorted(zip(got.column("id").to_pylist(), got.column("v").to_pylist(), strict=True))


def _clusterings(table: HudiTable) -> list[str]:
    timeline = table.reload().timeline
    return [
        i.requested_time
        for i in timeline.completed({Action.REPLACE_COMMIT})
        if timeline.read_commit_metadata(i).operation_type == "CLUSTER"
    ]


@pytest.mark.parametrize("version", [9, 6])
def test_inline_clustering_every_max_commits(tmp_path: Path, version: int) -> None:
    settings = _settings(tmp_path / "t", version, **{"services.clustering.inline": True,
                                                      "services.clustering.max_commits": 2})  # fmt: skip
    table, client = _create(settings)
    expected: dict[str, str] = {}
    runs = []
    for n in range(4):
        rows = _rows(10 * n, 6)
        result = client.insert(rows)
        runs.append([r.service for r in result.services])
        expected.update(zip(rows.column("id").to_pylist(), rows.column("v").to_pylist(), strict=True))
    # Due after the 2nd commit, then after 2 more commits since that clustering.
    assert runs == [[], ["clustering"], [], ["clustering"]]
    assert len(_clusterings(table)) == 2
    assert _snapshot(table) == sorted(expected.items())
    # The second clustering took the first one's output and the two new inserts' groups: one per city.
    assert len(table.latest_file_slices()) == 2


def test_schedule_inline_then_cli_runs_the_plan(tmp_path: Path) -> None:
    base = tmp_path / "t"
    settings = _settings(base, **{"services.clustering.schedule_inline": True,
                                  "services.clustering.async_max_commits": 3})  # fmt: skip
    table, client = _create(settings)
    for n in range(3):
        client.insert(_rows(10 * n, 4))
    pending = sorted(i.requested_time for i in table.reload().timeline.pending_clustering_plans())
    assert len(pending) == 1
    before = _snapshot(table)

    shown = json.loads(runner.invoke(app, ["clustering", "show", str(base), "--json"]).output)
    assert [(r["instant"], r["state"]) for r in shown] == [(pending[0], "requested")]
    plan = runner.invoke(app, ["clustering", "show", str(base), "--instant", pending[0], "--json"])
    assert plan.exit_code == 0, plan.output
    assert sum(len(g["file_ids"]) for g in json.loads(plan.output)["groups"]) == 6
    result = runner.invoke(app, ["clustering", "run", str(base)])
    assert result.exit_code == 0, result.output
    assert _clusterings(table) == pending
    assert _snapshot(table) == before
    assert len(table.latest_file_slices()) == 2
    result = runner.invoke(app, ["clustering", "run", str(base)])
    assert "no pending clustering" in result.output


def test_cli_schedule_with_sort_columns_then_run(tmp_path: Path) -> None:
    base = tmp_path / "t"
    table, client = _create(_settings(base))
    for n in range(3):
        client.insert(_rows(10 * n, 4, ts=10 - n))
    opt = "hoodie.clustering.plan.strategy.sort.columns=ts"
    result = runner.invoke(app, ["clustering", "schedule", str(base), "-o", opt])
    assert result.exit_code == 0, result.output
    assert "scheduled" in result.output
    (pending,) = table.reload().timeline.pending_clustering_plans()
    detail = json.loads(runner.invoke(app, ["clustering", "show", str(base), "--instant",
                                            pending.requested_time, "--json"]).output)  # fmt: skip
    assert detail["sort_columns"] == ["ts"]
    assert runner.invoke(app, ["clustering", "run", str(base), "--instant", pending.requested_time]).exit_code == 0
    result = runner.invoke(
        app, ["clustering", "schedule", str(base), "-o", "hoodie.clustering.plan.strategy.small.file.limit=0"]
    )
    assert "nothing to cluster" in result.output


def test_occ_write_loses_to_a_clustering_scheduled_while_it_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Java's SimpleConcurrentFileWritesConflictResolutionStrategy: a write conflicts with a
    clustering scheduled after it started on the file groups it writes; it fails, nothing changes."""
    occ = {"write.concurrency_mode": "optimistic_concurrency_control", "lock.provider": "in-process"}
    settings = _settings(tmp_path / "t", **occ)
    table, client = _create(settings)
    client.insert(_rows(0, 6))
    before = _snapshot(table)
    scheduled: list[str] = []
    once = threading.Lock()
    original = client_module.write_target

    def clustering_meanwhile(*args: Any, **kwargs: Any) -> Any:
        with once:  # file groups are written side by side; the first one schedules
            if not scheduled:  # the writer has planned and started; a clustering job schedules now
                service, host = open_table_service(HudiTable.open(str(tmp_path / "t")), settings, "clustering")
                scheduled.append(service.schedule(host) or "")
        return original(*args, **kwargs)

    monkeypatch.setattr(client_module, "write_target", clustering_meanwhile)
    with pytest.raises(WriteConflictError) as info:
        client.upsert(_rows(0, 2, ts=2))
    assert scheduled[0] in str(info.value)
    monkeypatch.undo()
    assert _snapshot(table) == before
    service, host = open_table_service(table.reload(), settings, "clustering")
    service.execute(host, scheduled[0])
    assert _snapshot(table) == before
    client.upsert(_rows(0, 2, ts=2))  # on the clustered file groups now
    assert _snapshot(table)[:2] == [("k000", "k000-2"), ("k001", "k001-2")]


def test_v6_does_not_schedule_while_a_write_is_in_flight(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "t", 6)
    table, client = _create(settings)
    client.insert(_rows(0, 4))
    from hudi_framework.write.transaction import timeline_writer

    timeline_writer(table.storage, table.config).create_requested(Action.COMMIT)
    service, host = open_table_service(table.reload(), settings, "clustering")
    with pytest.raises(ClusteringPlanError, match="still in flight"):
        service.schedule(host)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_inserts_never_go_into_a_file_group_under_pending_clustering(tmp_path: Path, table_type: str) -> None:
    """With small-file packing on, inserts would fill the small file groups the clustering is about to
    replace, and completing it would drop them: they go to new file groups instead."""
    settings = _settings(tmp_path / "t", **{"table.type": table_type, "write.small_file_limit_bytes": 100 << 20})
    table, client = _create(settings)
    client.insert(_rows(0, 4))
    client.insert(_rows(4, 4))  # packed into the first insert's small files
    clustered = {s.file_id for s in table.reload().latest_file_slices()}
    service, host = open_table_service(table, settings, "clustering")
    planned = service.schedule(host)
    assert planned is not None
    client.insert(_rows(8, 4))
    touched = {s.file_id for s in table.reload().latest_file_slices() if s.base_instant_time > planned}
    assert touched
    assert touched.isdisjoint(clustered)
    service.execute(host, planned)
    assert [k for k, _ in _snapshot(table)] == [f"k{i:03d}" for i in range(12)]
