"""The job runner with the local engine, end to end: report numbers, the expected model, hudi-rs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import ConfigError, IncompatibleTableConfigError, JobError
from hudi_framework.jobs import JobReport, run_job
from hudi_framework.jobs.generate import new_trips, step_rng
from hudi_framework.jobs.spec import JobPlan, StepPlan
from hudi_framework.timeline.instant import Action

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
BATCHES = [
    {"operation": "upsert", "updates": 300, "inserts": 200},
    {"operation": "delete", "deletes": 150},
    {"operation": "insert", "inserts": 100},
    {"operation": "insert_overwrite", "inserts": 120, "partitions": 2},
    {"operation": "upsert", "updates": 400},
]


def _settings(base: Path, **overrides: Any) -> HudiSettings:
    values = {"table.base_path": str(base), "write.engine": "local", "job.rows": 1_000, "job.batches": BATCHES}
    return HudiSettings.load(CONFIGS / "quickstart.toml", overrides={**values, **overrides}, env=False)


def _hudi_rs_rows(base: Path) -> int:
    return sum(batch.num_rows for batch in hudi.HudiTableBuilder.from_base_uri(str(base)).build().read())


class _Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def job_planned(self, plan: JobPlan) -> None:
        self.events.append(("planned", str(len(plan.steps))))

    def status(self, message: str) -> None:
        self.events.append(("status", message))

    def step_phase(self, step: StepPlan, phase: int) -> None:
        self.events.append((step.label, step.phases[phase]))

    def step_done(self, step: StepPlan, seconds: float) -> None:
        self.events.append((step.label, "done"))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> JobReport:
    return run_job(_settings(tmp_path_factory.mktemp("job") / "trips"))


def test_report_numbers_follow_the_batches(report: JobReport) -> None:
    load, upsert, delete, insert, overwrite, upsert2 = report.steps
    assert (load.operation, load.rows_in, load.inserted, load.updated) == ("insert", 1_000, 1_000, 0)
    assert (upsert.operation, upsert.rows_in, upsert.inserted, upsert.updated) == ("upsert", 500, 200, 300)
    assert (delete.operation, delete.rows_in, delete.deleted) == ("delete", 150, 150)
    assert (insert.operation, insert.inserted) == ("insert", 100)
    assert (overwrite.operation, overwrite.rows_in, overwrite.inserted) == ("insert_overwrite", 120, 120)
    assert (upsert2.rows_in, upsert2.updated, upsert2.inserted) == (400, 400, 0)
    assert all(step.files_written >= 1 and step.seconds > 0 for step in report.steps)
    # Instants are distinct and in order, one per step, and the timeline holds exactly them.
    times = [step.instant.requested_time for step in report.steps]
    assert times == sorted(set(times))
    assert [i.requested_time for i in report.timeline] == times
    assert report.timeline[4].action is Action.REPLACE_COMMIT
    assert report.created


def test_read_back_matches_the_model_and_hudi_rs(report: JobReport) -> None:
    assert report.read is not None
    assert report.read.matches
    assert report.verified
    assert report.read.rows == report.expected_rows == report.final_rows
    assert report.read.spark_rows is None
    assert _hudi_rs_rows(Path(report.base_path)) == report.read.rows


def test_rows_of_the_overwritten_partitions_are_only_the_new_ones(report: JobReport) -> None:
    rows = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(report.base_path).build().read())
    assert rows.num_rows == report.final_rows
    assert pa.compute.count_distinct(rows.column("trip_id")).as_py() == rows.num_rows


def test_same_settings_same_result(report: JobReport, tmp_path: Path) -> None:
    again = run_job(_settings(tmp_path / "trips"))
    assert again.read is not None
    assert report.read is not None
    assert again.read.checksum == report.read.checksum
    assert [s.rows_in for s in again.steps] == [s.rows_in for s in report.steps]


def test_rerun_overwrites_the_rows_and_extends_the_timeline(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "trips", **{"job.batches": BATCHES[:2]})
    first = run_job(settings)
    recorder = _Recorder()
    second = run_job(settings, observer=recorder)
    assert not second.created
    assert second.steps[0].operation == "insert_overwrite_table"
    assert second.timeline[len(first.timeline)].action is Action.REPLACE_COMMIT
    assert len(second.timeline) == 2 * len(first.timeline)
    assert second.verified
    assert second.read is not None
    assert first.read is not None
    assert second.read.checksum == first.read.checksum
    assert recorder.events[0] == ("planned", "4")
    assert ("load", "write (local)") in recorder.events
    assert recorder.events[-1] == ("read", "done")


def test_existing_table_with_fail_policy(tmp_path: Path) -> None:
    settings = _settings(tmp_path / "trips", **{"job.batches": [], "job.rows": 10})
    run_job(settings)
    failing = _settings(tmp_path / "trips", **{"job.on_existing_table": "fail"})
    with pytest.raises(JobError, match="already has commits"):
        run_job(failing)


def test_existing_table_with_other_keys(tmp_path: Path) -> None:
    run_job(_settings(tmp_path / "trips", **{"job.batches": [], "job.rows": 10}))
    other = _settings(tmp_path / "trips", **{"table.name": "other"})
    with pytest.raises(IncompatibleTableConfigError, match="use another --path"):
        run_job(other)


def test_generated_source_needs_the_trips_keys(tmp_path: Path) -> None:
    with pytest.raises(JobError, match="trip_id"):
        run_job(_settings(tmp_path / "t", **{"table.record_key_fields": ["driver"]}))


def test_verify_off_reads_nothing(tmp_path: Path) -> None:
    report = run_job(_settings(tmp_path / "t", **{"job.verify": False, "job.batches": BATCHES[:1]}))
    assert report.read is None
    assert not report.verified
    assert report.final_rows == report.expected_rows == 1_200


@pytest.mark.parametrize("kind", ["parquet", "csv"])
def test_file_sources(tmp_path: Path, kind: str) -> None:
    data = new_trips(step_rng(11, 0), 0, 600).select(["trip_id", "city", "ts", "distance_km"])
    path = tmp_path / f"trips.{kind}"
    if kind == "parquet":
        pq.write_table(data, path)
    else:
        pa_csv.write_csv(data, path)
    batches = [{"operation": "upsert", "updates": 50, "inserts": 100}, {"operation": "delete", "deletes": 30}]
    overrides = {"job.source": kind, "job.source_path": str(path), "job.rows": 400, "job.batches": batches}
    report = run_job(_settings(tmp_path / "t", **overrides))
    assert [s.rows_in for s in report.steps] == [400, 150, 30]
    assert (report.steps[1].inserted, report.steps[1].updated) == (100, 50)
    assert report.verified
    assert report.final_rows == 470
    assert _hudi_rs_rows(tmp_path / "t") == 470


def test_file_source_runs_out_of_rows(tmp_path: Path) -> None:
    path = tmp_path / "trips.parquet"
    pq.write_table(new_trips(step_rng(11, 0), 0, 100), path)
    overrides = {"job.source": "parquet", "job.source_path": str(path), "job.rows": 100}
    with pytest.raises(JobError, match="no rows"):
        run_job(_settings(tmp_path / "t", **{**overrides, "job.batches": [{"operation": "insert", "inserts": 5}]}))


def test_file_source_must_hold_the_key_fields(tmp_path: Path) -> None:
    path = tmp_path / "trips.parquet"
    pq.write_table(pa.table({"id": ["a"], "city": ["x"], "ts": [1]}), path)
    with pytest.raises(JobError, match="record key"):
        run_job(_settings(tmp_path / "t", **{"job.source": "parquet", "job.source_path": str(path)}))


def test_file_source_with_duplicate_keys(tmp_path: Path) -> None:
    path = tmp_path / "trips.csv"
    pa_csv.write_csv(pa.table({"trip_id": ["a", "a"], "city": ["x", "x"], "ts": [1, 2]}), path)
    with pytest.raises(JobError, match="more than once"):
        run_job(_settings(tmp_path / "t", **{"job.source": "csv", "job.source_path": str(path)}))


def test_a_merge_on_read_job_with_inline_compaction(tmp_path: Path) -> None:
    from hudi_framework.read.reader import read_table
    from hudi_framework.runtime.table import HudiTable

    overrides = {
        "table.type": "MERGE_ON_READ",
        "services.compaction.inline": True,
        "services.compaction.max_delta_commits": 2,
    }
    report = run_job(_settings(tmp_path / "t", **overrides))
    table = HudiTable.open(str(tmp_path / "t"))
    actions = [i.action for i in table.timeline.completed()]
    assert Action.DELTA_COMMIT in actions
    # Inline compaction completed as a commit (compacted=true) after the delta commits.
    compactions = [i for i in table.timeline.completed() if i.action is Action.COMMIT]
    assert compactions
    assert all(table.timeline.read_commit_metadata(i).compacted for i in compactions)
    assert report.read is not None
    ours = read_table(table)
    assert ours.num_rows == report.read.rows == _hudi_rs_rows(tmp_path / "t")


def test_a_base_path_is_required() -> None:
    settings = HudiSettings.load(CONFIGS / "quickstart.toml", env=False, overrides={"table.base_path": None})
    with pytest.raises(ConfigError, match="base path"):
        run_job(settings)
