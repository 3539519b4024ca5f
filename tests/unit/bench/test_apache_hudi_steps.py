"""Apache Hudi's steps in the benchmark, without a JVM: what they ask its driver for (the same inputs and
settings as ours), how they are skipped when it cannot be provisioned, how the worker times them
(session outside the timer) and how the report holds them against ours."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import apache_hudi_session, registry, spark_session
from bench.dataset import Inputs
from bench.report import RATIOS, apache_hudi_table, markdown, ratios_table
from bench.runner import Result, shared_states
from bench.step import Step, StepContext
from bench.systems import apache_hudi, ours
from bench.systems import spark as spark_steps
from bench.worker import measure
from tests.oracle.provision import OracleUnavailableError


def _ctx(tmp_path: Path, client: Any = None) -> StepContext:
    return StepContext(Inputs(tmp_path / "inputs"), tmp_path / "work", apache_hudi=client)


class _FakeClient:
    """Records the requests a step sends to Apache Hudi's driver."""

    def __init__(self, compaction: list[dict[str, str | None]] | None = None) -> None:
        self.requests: list[dict[str, Any]] = []
        self.queries: list[str] = []
        done: list[dict[str, str | None]] = [{"timestamp": "20261127000000000", "state": "COMPLETED"}]
        self._compaction: list[dict[str, str | None]] = done if compaction is None else compaction

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        return {"ok": True}

    def sql(self, query: str) -> list[dict[str, str | None]]:
        self.queries.append(query)
        return self._compaction


def test_its_steps_cover_load_upserts_compaction_and_reads_on_its_own_session() -> None:
    steps = {s.name: s for s in apache_hudi.STEPS}
    assert sorted(steps) == [
        "bulk_insert", "cow_read", "cow_read_warm", "cow_upsert", "mor_compaction", "mor_read", "mor_upsert",
    ]  # fmt: skip
    assert {(s.system, s.engine, s.requires) for s in steps.values()} == {
        ("apache-hudi", "apache-hudi", apache_hudi_session.unavailable)
    }
    # Prepared once per size and shared: the upsert and the read start from the same bulk insert.
    states = shared_states(apache_hudi.STEPS)
    assert states["apache-hudi:cow_read"] == states["apache-hudi:cow_upsert"] == "apache-hudi:cow_upsert"
    assert states["apache-hudi:mor_read"] == states["apache-hudi:mor_compaction"] == "apache-hudi:mor_compaction"
    assert "apache-hudi:bulk_insert" not in states
    # Only the warm read runs unmeasured work first, in its own session.
    assert [s.name for s in apache_hudi.STEPS if s.warm is not None] == ["cow_read_warm"]


def test_the_warm_read_reads_a_copy_first_then_the_table(tmp_path: Path) -> None:
    client = _FakeClient()
    ctx = _ctx(tmp_path, client)
    (ctx.work / "table" / ".hoodie").mkdir(parents=True)
    step = next(s for s in apache_hudi.STEPS if s.name == "cow_read_warm")
    assert step.warm is not None
    step.warm(ctx)
    assert step.run(ctx) == {}
    warm, measured = client.requests
    assert (warm["op"], warm["path"]) == ("scan", str(ctx.work / "warm_table"))
    assert (measured["op"], measured["path"]) == ("scan", str(ctx.work / "table"))
    assert (ctx.work / "warm_table" / ".hoodie").is_dir()


def test_the_upsert_sends_our_batch_file_with_our_index_and_no_metadata_table(tmp_path: Path) -> None:
    client = _FakeClient()
    ctx = _ctx(tmp_path, client)
    assert next(s for s in apache_hudi.STEPS if s.name == "cow_upsert").run(ctx) == {}
    assert next(s for s in apache_hudi.STEPS if s.name == "mor_upsert").run(ctx) == {}
    cow, mor = client.requests
    assert (cow["op"], cow["operation"], cow["data"], cow["path"]) == (
        "write", "upsert", str(ctx.inputs.changes), str(ctx.work / "table"),
    )  # fmt: skip
    assert cow["options"] == {
        "hoodie.table.name": "bench",
        "hoodie.datasource.write.table.type": "COPY_ON_WRITE",
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "region",
        "hoodie.datasource.write.precombine.field": "ts",
        "hoodie.metadata.enable": "false",
        "hoodie.index.type": "BLOOM",
    }
    # Merge-on-read: the batch goes to log files, as ours does (small-file handling off).
    assert mor["options"] == cow["options"] | {
        "hoodie.datasource.write.table.type": "MERGE_ON_READ",
        "hoodie.parquet.small.file.limit": "0",
    }
    assert ours.MOR_SETTINGS.items() <= mor["options"].items()
    assert ours.SETTINGS.items() <= cow["options"].items()


def test_bulk_insert_and_reads(tmp_path: Path) -> None:
    client = _FakeClient()
    ctx = _ctx(tmp_path, client)
    apache_hudi.bulk_insert(ctx)
    apache_hudi.snapshot_read(ctx)
    load, scan = client.requests
    assert (load["operation"], load["data"]) == ("bulk_insert", str(ctx.inputs.base))
    assert scan == {"op": "scan", "path": str(ctx.work / "table"), "options": {"hoodie.metadata.enable": "false"}}


def test_compaction_is_its_procedure_and_must_complete(tmp_path: Path) -> None:
    client = _FakeClient()
    ctx = _ctx(tmp_path, client)
    assert apache_hudi.compaction(ctx) == {"instant": "20261127000000000"}
    assert client.queries == [
        f"CALL run_compaction(op => 'scheduleAndExecute', path => '{ctx.work / 'table'}', "
        "options => 'hoodie.compact.inline.max.delta.commits=1')"
    ]
    with pytest.raises(RuntimeError, match="did not complete one compaction"):
        apache_hudi.compaction(_ctx(tmp_path, _FakeClient(compaction=[])))


def test_a_prepared_state_is_written_by_apache_hudi_in_a_session_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sessions: list[_FakeClient] = []

    def fake_start() -> apache_hudi_session.Started:
        sessions.append(_FakeClient())
        return apache_hudi_session.Started(sessions[-1], 1.0, 0.5, tmp_path / "scratch")  # type: ignore[arg-type]

    monkeypatch.setattr(apache_hudi_session, "start", fake_start)
    monkeypatch.setattr(apache_hudi_session, "stop", lambda started, timeout=30.0: None)
    ctx = _ctx(tmp_path)
    apache_hudi.upserted_mor(ctx)
    apache_hudi.load_cow(ctx)
    written = [
        [(r["operation"], r["options"]["hoodie.datasource.write.table.type"]) for r in s.requests] for s in sessions
    ]
    assert written == [
        [("bulk_insert", "MERGE_ON_READ"), ("upsert", "MERGE_ON_READ")],
        [("bulk_insert", "COPY_ON_WRITE")],
    ]


def test_its_session_has_our_spark_settings_without_start_up_tuning() -> None:
    assert spark_session.CONF.items() <= apache_hudi_session.CONF.items()
    assert apache_hudi_session.CONF["spark.driver.memory"] == "1g"
    assert "TieredStopAtLevel" not in apache_hudi_session.CONF["spark.driver.extraJavaOptions"]


def test_it_is_skipped_with_the_reason_when_it_cannot_be_provisioned_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def offline() -> None:
        raise OracleUnavailableError("cannot download https://repo1.maven.org/x.jar: no network\nmore")

    monkeypatch.setattr(apache_hudi_session, "provision", offline)
    steps = {s.key: s for s in [*apache_hudi.STEPS, *spark_steps.STEPS]}
    kept, skipped = registry.runnable(steps)
    assert sorted(kept) == sorted(s.key for s in spark_steps.STEPS)
    assert skipped == [
        "apache_hudi (cannot provision Apache Hudi offline: cannot download https://repo1.maven.org/x.jar: no network)"
    ]
    report = markdown([], machine="m", command="c", skipped=skipped, plot_file=None)
    assert "Skipped (not installed, or not available here): apache_hudi (cannot provision" in report


def test_each_requirement_is_checked_once_and_only_for_selected_steps() -> None:
    checked: list[str] = []

    def needs_a() -> str | None:
        checked.append("a")
        return None

    def needs_b() -> str | None:
        checked.append("b")
        return "b is missing"

    def run(ctx: StepContext) -> dict[str, Any]:
        return {}

    steps = [Step("a", "x", run, requires=needs_a), Step("a", "y", run, requires=needs_a), Step("c", "z", run)]
    steps.append(Step("b", "x", run, requires=needs_b))
    kept, skipped = registry.runnable({s.key: s for s in steps})
    assert (sorted(kept), skipped, checked) == (["a:x", "a:y", "c:z"], ["b is missing"], ["a", "b"])
    assert registry.runnable({"c:z": steps[2]}) == ({"c:z": steps[2]}, [])
    assert checked == ["a", "b"]


def test_the_worker_times_the_step_inside_a_started_session_and_reports_start_up_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = _FakeClient()
    events: list[str] = []

    def fake_start() -> apache_hudi_session.Started:
        events.append("start")
        return apache_hudi_session.Started(client, 12.5, 1.5, tmp_path)  # type: ignore[arg-type]

    def fake_stop(started: apache_hudi_session.Started, timeout: float = 30.0) -> None:
        events.append("stop")

    def run(ctx: StepContext) -> dict[str, Any]:
        events.append("run")
        assert ctx.apache_hudi is client
        assert ctx.spark is None
        return {"rows": 3}

    monkeypatch.setattr(apache_hudi_session, "start", fake_start)
    monkeypatch.setattr(apache_hudi_session, "stop", fake_stop)
    out = measure(Step("apache-hudi", "x", run, engine="apache-hudi"), _ctx(tmp_path))
    assert events == ["start", "run", "stop"]
    assert (out["startup_s"], out["warmup_s"], out["counters"]) == (12.5, 1.5, {"rows": 3})
    assert out["wall_s"] < 12.5
    assert out["jvm_peak_rss_mb"] >= 0


def _result(key: str, wall: float) -> Result:
    return Result(key=key, rows=10, wall_s=wall, cpu_s=wall, peak_rss_mb=50.0, runs=3)


def test_the_report_holds_our_spark_engine_to_1x_and_our_local_engine_to_half_of_apache_hudi() -> None:
    results = [
        _result("apache-hudi:cow_upsert", 10.0),
        _result("ours-spark:cow_upsert", 9.0),
        _result("ours:cow_upsert", 6.0),
        _result("apache-hudi:cow_read", 2.0),
        _result("ours-spark:cow_read", 2.5),
        _result("ours:cow_read", 0.2),
        _result("apache-hudi:cow_read_warm", 1.0),
        _result("ours-spark:cow_read_warm", 0.8),
        _result("ours-spark:cow_read_unprimed", 3.0),
    ]
    rows = {line.split("|")[1].strip(): line for line in ratios_table(results).splitlines()[2:]}
    assert "| <= 1.0 | 0.90 met |" in rows["COW upsert+delete on Spark: ours-spark / Apache Hudi"]
    assert "| <= 1.0 | 1.25 **not met** |" in rows["COW read on Spark: ours-spark / Apache Hudi"]
    assert "| <= 1.0 | 0.80 met |" in rows["COW read on Spark, a session's later read: ours-spark / Apache Hudi"]
    assert "| <= 0.5 | 0.60 **not met** |" in rows["COW upsert+delete: ours (local) / Apache Hudi"]
    assert "| <= 0.5 | 0.10 met |" in rows["COW read: ours (local) / Apache Hudi"]
    # A session without the planner prestart is reported beside them, held to no target.
    assert "| - | 1.50 |" in rows["COW read on Spark, a session without planner prestart: ours-spark / Apache Hudi"]
    assert "| n/a |" in rows["MOR read on Spark: ours-spark / Apache Hudi"]
    # Every ratio against Apache Hudi names steps that exist.
    keys = {s.key for s in [*apache_hudi.STEPS, *spark_steps.STEPS, *ours.STEPS]}
    against = [r for r in RATIOS if r.denominator.startswith("apache-hudi:")]
    assert len(against) == 11
    assert all({r.numerator, r.denominator} <= keys for r in against)


def test_the_side_by_side_table_puts_its_times_beside_ours_with_our_share() -> None:
    results = [
        _result("ours:cow_upsert", 1.0),
        _result("ours-spark:cow_upsert", 4.0),
        Result("apache-hudi:cow_upsert", 10, 8.0, 8.0, 50.0, 3, startup_s=12.0, warmup_s=3.0),
        _result("apache-hudi:mor_compaction", 5.0),
    ]
    table = apache_hudi_table(results).splitlines()
    assert table[2] == "| 10 | cow_upsert | 8.00 (12.0 + 3.0) | 1.00 | 4.00 | 0.12 | 0.50 |"
    assert table[3] == "| 10 | mor_compaction | 5.00 | - | - | - | - |"
    assert len(table) == 4
    report = markdown(results, machine="m", command="c", skipped=[], plot_file=None)
    assert "## Against Apache Hudi on Spark" in report
    assert apache_hudi_table([_result("ours:cow_upsert", 1.0)]) == ""
    assert "Against Apache Hudi" not in markdown(
        [_result("ours:cow_upsert", 1.0)], machine="m", command="c", skipped=[], plot_file=None
    )
