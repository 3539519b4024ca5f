"""Table services beside the continuous streamer: compaction decided as HoodieStreamer decides it,
plans executed in a background thread while rounds ingest, backpressure, failures stop the run."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.errors import CompactionExecutionError, ConfigError
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer import RoundReport, async_services, run_streamer
from hudi_framework.streamer.async_services import AsyncServiceRun
from hudi_framework.streamer.service_modes import service_modes
from hudi_framework.timeline.instant import Action
from hudi_framework.vocabulary import TableType
from tests.unit.streamer.test_streamer import land, rows, settings

# Small-file handling off: an update goes to a log file (a small log-free group would be rewritten whole).
MOR = {"table.type": "MERGE_ON_READ", "services.compaction.max_delta_commits": 2, "write.small_file_limit_bytes": 0}


def _updates(tmp_path: Path, files: int) -> None:
    """``files`` files, each updating the same three keys (so every round adds log files)."""
    land(tmp_path / "landing", 0, files)
    for f in range(files):
        text = (tmp_path / "landing" / f"b{f:03d}.json").read_text()
        (tmp_path / "landing" / f"b{f:03d}.json").write_text(text.replace(f'"id": {f * 100}', '"id": 0', 1))


def _continuous(tmp_path: Path, **extra: Any) -> Any:
    limit = extra.pop("source_limit", (tmp_path / "landing" / "b000.json").stat().st_size)  # a file per round
    return settings(tmp_path, continuous=True, source_limit=limit, stop_after_idle_rounds=1, **MOR, **extra)


def _final(files: int) -> list[tuple[int, int]]:
    """Key 0 from the last file, the other two keys of every file."""
    return sorted({(0, files - 1)} | {(f * 100 + r, f) for f in range(files) for r in (1, 2)})


def _compactions(base: Path) -> tuple[list[str], list[str]]:
    timeline = HudiTable.open(str(base)).timeline
    done = sorted(i.requested_time for i in timeline.completed() if i.action is Action.COMMIT)
    pending = sorted(i.requested_time for i in timeline.pending({Action.COMPACTION}))
    return done, pending


# -------------------------------------------------------------------------------------------- modes


@pytest.mark.parametrize(
    ("table_type", "streamer", "services", "want"),
    [
        # HoodieStreamer: one round compacts inline, continuous compacts asynchronously (MOR only).
        (TableType.MERGE_ON_READ, {}, {}, (True, False, False, False)),
        (TableType.MERGE_ON_READ, {"continuous": True}, {}, (False, True, True, True)),
        (TableType.COPY_ON_WRITE, {"continuous": True}, {}, (False, False, False, False)),
        (TableType.MERGE_ON_READ, {"continuous": True, "disable_compaction": True}, {}, (False, False, False, False)),
        (TableType.MERGE_ON_READ, {"disable_compaction": True}, {}, (False, False, False, False)),
        # Set explicitly, the user's choice stands: inline stays inline, schedule_inline only schedules.
        (TableType.MERGE_ON_READ, {"continuous": True}, {"inline": True}, (True, False, False, False)),
        (TableType.MERGE_ON_READ, {"continuous": True}, {"schedule_inline": True}, (False, True, False, False)),
        (TableType.MERGE_ON_READ, {}, {"inline": False}, (False, False, False, False)),
    ],
)
def test_compaction_is_decided_as_hoodie_streamer_decides_it(
    tmp_path: Path, table_type: TableType, streamer: dict[str, Any], services: dict[str, Any], want: tuple[bool, ...]
) -> None:
    given = settings(tmp_path, **streamer, **{f"services.compaction.{k}": v for k, v in services.items()})
    modes = service_modes(given, table_type)
    comp = modes.settings.services.compaction
    assert (comp.inline, comp.schedule_inline, modes.async_compaction, modes.settings.write.serialize_commits) == want
    assert not modes.async_clustering


def test_async_clustering_runs_in_the_background_of_a_continuous_run_only(tmp_path: Path) -> None:
    on = {"services.clustering.async_enabled": True}
    continuous = service_modes(settings(tmp_path, continuous=True, **on), TableType.COPY_ON_WRITE)
    assert continuous.async_clustering
    assert continuous.settings.write.serialize_commits
    once = service_modes(settings(tmp_path, **on), TableType.COPY_ON_WRITE)
    assert not once.async_clustering
    assert not once.settings.write.serialize_commits


def test_disable_compaction_with_compaction_asked_for_is_refused(tmp_path: Path) -> None:
    given = settings(tmp_path, disable_compaction=True, **{"services.compaction.inline": True})
    with pytest.raises(
        ConfigError, match=r"disable_compaction \(--disable-compaction\) contradicts services\.compaction\.inline"
    ):
        service_modes(given, TableType.MERGE_ON_READ)


# -------------------------------------------------------------------------------------------- runs


def test_one_round_runs_compact_inline_by_default(tmp_path: Path) -> None:
    _updates(tmp_path, 3)
    one_file = (tmp_path / "landing" / "b000.json").stat().st_size
    services: list[str] = []
    for _ in range(3):
        services += _round_services(run_streamer(settings(tmp_path, source_limit=one_file, **MOR)).rounds)
    assert [s.split()[0] for s in services] == ["compaction"]
    done, pending = _compactions(tmp_path / "t")
    assert len(done) == 1
    assert pending == []
    assert rows(tmp_path) == _final(3)


def test_disable_compaction_never_compacts(tmp_path: Path) -> None:
    _updates(tmp_path, 4)
    one_file = (tmp_path / "landing" / "b000.json").stat().st_size
    for _ in range(4):
        run_streamer(settings(tmp_path, source_limit=one_file, disable_compaction=True, **MOR))
    assert _compactions(tmp_path / "t") == ([], [])


def test_a_continuous_run_compacts_in_the_background_and_drains_before_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # File f inserts keys f01, f02 and updates (f-1)01: every round leaves logs in another file group,
    # so plans keep coming while the first one is held.
    landing = tmp_path / "landing"
    landing.mkdir()
    for f in range(7):
        ids = [f * 100 + 1, f * 100 + 2] + ([(f - 1) * 100 + 1] if f else [])
        (landing / f"b{f:03d}.json").write_text("".join(json.dumps({"id": i, "file": f, "ts": f}) + "\n" for i in ids))
    gate = _Gate(monkeypatch, release_when_idle=True)  # the first plan runs only once the rounds are over
    limit = (landing / "b006.json").stat().st_size
    report = run_streamer(_continuous(tmp_path, source_limit=limit, max_pending_compactions=10), observer=gate)
    assert report.commits == 7
    done, pending = _compactions(tmp_path / "t")
    assert pending == []  # the run ended by itself (idle): every plan it scheduled was executed
    assert [r.instant for r in report.background] == done
    assert len(done) >= 2
    assert all(r.service == "compaction" for r in report.background)
    # The rounds only scheduled: each plan they wrote is one the background thread executed.
    assert [s.split()[1] for s in _round_services(report.rounds) if s.startswith("compaction ")] == done
    want = {(f * 100 + 2, f) for f in range(7)} | {(f * 100 + 1, min(f + 1, 6)) for f in range(7)}
    assert rows(tmp_path) == sorted(want)


def _round_services(rounds: tuple[RoundReport, ...]) -> list[str]:
    return [s for r in rounds for s in r.services]


class _Gate:
    """Holds the background compaction inside ``execute`` until released, and records rounds."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, release_when_idle: bool = False) -> None:
        self.release_when_idle = release_when_idle
        self.entered = threading.Event()
        self.go = threading.Event()
        self.started: list[int] = []
        real = async_services.open_table_service

        def gated(table: Any, settings: Any, slot: str) -> Any:
            service, host = real(table, settings, slot)
            execute = service.execute

            def held(host: Any, instant: str) -> None:
                self.entered.set()
                assert self.go.wait(30), "the test never released the compaction"
                execute(host, instant)

            setattr(service, "execute", held)  # noqa: B010 - the test swaps the method
            return service, host

        monkeypatch.setattr(async_services, "open_table_service", gated)

    def round_started(self, number: int, resumed_from: str | None) -> None:
        self.started.append(number)

    def round_planned(self, number: int, splits: int) -> None:
        pass

    def round_done(self, report: RoundReport) -> None:
        if self.release_when_idle and not report.committed:
            self.go.set()

    def service_done(self, run: AsyncServiceRun) -> None:
        pass


def test_rounds_commit_while_a_compaction_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _updates(tmp_path, 8)
    gate = _Gate(monkeypatch)
    progressed: list[int] = []

    def release() -> None:
        gate.entered.wait(30)
        first = len(gate.started)
        deadline = time.monotonic() + 20
        while len(gate.started) < first + 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        progressed.append(len(gate.started) - first)
        gate.go.set()

    helper = threading.Thread(target=release)
    helper.start()
    report = run_streamer(_continuous(tmp_path), observer=gate)
    helper.join()
    assert progressed[0] >= 2  # two rounds started (and the first of them committed) while it ran
    assert report.commits == 8
    assert _compactions(tmp_path / "t")[1] == []
    assert rows(tmp_path) == _final(8)


def test_rounds_wait_while_too_many_compactions_are_pending(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _updates(tmp_path, 6)
    gate = _Gate(monkeypatch)
    seen: list[tuple[int, int]] = []

    def release() -> None:
        gate.entered.wait(30)
        before = len(gate.started)
        time.sleep(0.5)
        seen.append((before, len(gate.started)))
        gate.go.set()

    helper = threading.Thread(target=release)
    helper.start()
    report = run_streamer(_continuous(tmp_path, max_pending_compactions=1), observer=gate)
    helper.join()
    before, after = seen[0]
    assert before == after  # no round started while the one allowed plan was pending
    assert report.commits == 6
    assert _compactions(tmp_path / "t")[1] == []


def test_a_failed_background_compaction_stops_the_run_and_keeps_its_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _updates(tmp_path, 6)
    real = async_services.open_table_service

    def failing(table: Any, settings: Any, slot: str) -> Any:
        service, host = real(table, settings, slot)

        def boom(host: Any, instant: str) -> None:
            raise CompactionExecutionError(instant, "", "disk on fire")

        setattr(service, "execute", boom)  # noqa: B010 - the test swaps the method
        return service, host

    monkeypatch.setattr(async_services, "open_table_service", failing)
    with pytest.raises(CompactionExecutionError, match="disk on fire"):
        run_streamer(_continuous(tmp_path))
    done, pending = _compactions(tmp_path / "t")
    assert done == []
    assert len(pending) >= 1
    # The next run (services healthy again) executes the plan left requested.
    monkeypatch.setattr(async_services, "open_table_service", real)
    report = run_streamer(_continuous(tmp_path))
    assert pending[0] in [r.instant for r in report.background]
    assert _compactions(tmp_path / "t")[1] == []
    assert rows(tmp_path) == _final(6)


# -------------------------------------------------------------------------------------------- CLI


@pytest.mark.parametrize("disable", [True, False])
def test_hoodie_streamer_compaction_flags(tmp_path: Path, disable: bool) -> None:
    landing = tmp_path / "landing"
    landing.mkdir()
    args = [
        "streamer", "--target-base-path", str(tmp_path / "t"), "--target-table", "t", "--table-type", "MERGE_ON_READ",
        "--source-class", "JsonDFSSource", "--source-ordering-field", "ts", "--engine", "local",
        "--hoodie-conf", f"hoodie.streamer.source.dfs.root={landing}",
        "--hoodie-conf", "hoodie.datasource.write.recordkey.field=id",
        "--hoodie-conf", "hoodie.parquet.small.file.limit=0",
        "--hoodie-conf", "hoodie.compact.inline.max.delta.commits=1",
        "--max-pending-compactions", "2", "--max-pending-clustering", "3",
        *(["--disable-compaction"] if disable else []),
    ]  # fmt: skip
    for f in range(2):  # the second file updates the first one's key: a log file to compact
        path = landing / f"b{f}.json"
        path.write_text(json.dumps({"id": 1, "file": f, "ts": f}) + "\n")
        os.utime(path, (1_700_000_000 + f, 1_700_000_000 + f))
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
    done, pending = _compactions(tmp_path / "t")
    assert (len(done), pending) == ((0 if disable else 1), [])  # a one-round run compacts inline unless disabled
    bad = CliRunner().invoke(app, [*args, "--max-pending-compactions", "0"])
    assert bad.exit_code != 0
    assert "max-pending-compactions" in bad.output


def test_disable_compaction_flag_with_inline_compaction_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="disable_compaction"):
        run_streamer(settings(tmp_path, disable_compaction=True, **{"services.compaction.inline": True}))


def test_a_continuous_run_clusters_in_the_background(tmp_path: Path) -> None:
    # Copy-on-write, small files kept small (every round's inserts a new file group): the rounds
    # schedule clustering every two commits and the background thread executes the plans.
    _updates(tmp_path, 6)
    extra = {
        "table.type": "COPY_ON_WRITE",
        "write.small_file_limit_bytes": 0,
        "services.clustering.async_enabled": True,
        "services.clustering.async_max_commits": 2,
        "max_pending_clustering": 1,
    }
    one_file = (tmp_path / "landing" / "b000.json").stat().st_size
    given = settings(tmp_path, continuous=True, source_limit=one_file, stop_after_idle_rounds=1, **extra)
    report = run_streamer(given)
    assert report.commits == 6
    timeline = HudiTable.open(str(tmp_path / "t")).timeline
    replaced = sorted(i.requested_time for i in timeline.completed() if i.action is Action.REPLACE_COMMIT)
    assert [r.service for r in report.background] == ["clustering"] * len(replaced)
    assert [r.instant for r in report.background] == replaced
    assert replaced
    assert list(timeline.pending_clustering_plans()) == []
    assert rows(tmp_path) == _final(6)
