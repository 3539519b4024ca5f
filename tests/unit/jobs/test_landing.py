"""``job.ingest = "streamer"``: each step lands as a Parquet file and one streamer round ingests it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.errors import JobError
from hudi_framework.jobs import run_job
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer import run_streamer
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2
from hudi_framework.vocabulary import WriteOperation

CONFIGS = Path(__file__).resolve().parents[3] / "configs"
BATCHES = [
    {"operation": "upsert", "updates": 50, "inserts": 20},
    {"operation": "delete", "deletes": 30},
]


def _settings(base: Path, **overrides: Any) -> HudiSettings:
    values = {"table.base_path": str(base), "write.engine": "local", "job.rows": 200, "job.batches": BATCHES}
    return HudiSettings.load(CONFIGS / "quickstart.toml", overrides={**values, **overrides}, env=False)


def _checkpoints(base: Path) -> list[str | None]:
    table = HudiTable.open(str(base))
    timeline = table.timeline
    return [
        dict(timeline.read_commit_metadata(i).extra_metadata or {}).get(CHECKPOINT_KEY_V2)
        for i in timeline.commits_timeline()
    ]


def test_the_quickstart_lands_its_steps_and_the_streamer_commits_their_checkpoints(tmp_path: Path) -> None:
    base = tmp_path / "trips"
    settings = _settings(base)
    assert settings.job.ingest.value == "streamer"
    report = run_job(settings)
    assert report.verified
    landing = tmp_path / "trips.landing"
    landed = sorted(landing.iterdir())
    assert [p.name for p in landed] == [f"hudi-fw-job-{n:05d}.parquet" for n in (1, 2, 3)]
    assert [pq.ParquetFile(p).metadata.num_rows for p in landed] == [s.rows_in for s in report.steps]
    # Each commit records the modification time of the file it ingested, as the streamer's checkpoint.
    assert _checkpoints(base) == [str(p.stat().st_mtime_ns // 1_000_000) for p in landed]
    _, upsert, delete = report.steps
    assert (upsert.inserted, upsert.updated) == (20, 50)
    # The delete batch landed as flagged rows the streamer upserted: the job still reports a delete.
    assert (delete.operation, delete.result.operation, delete.deleted) == ("delete", WriteOperation.UPSERT, 30)
    # The table's checkpoint covers every landed file: the streamer finds nothing new.
    streamer = HudiSettings.load(
        overrides={
            "table.base_path": str(base),
            "table.name": "trips",
            "table.type": "COPY_ON_WRITE",
            "table.record_key_fields": ["trip_id"],
            "table.partition_fields": ["city"],
            "table.ordering_fields": ["ts"],
            "write.engine": "local",
            "streamer.source": "ParquetDFSSource",
            "streamer.source_options": {"hoodie.streamer.source.dfs.root": str(landing)},
        },
        env=False,
    )
    assert run_streamer(streamer).commits == 0


def test_a_rerun_reloads_directly_then_lands_again(tmp_path: Path) -> None:
    base = tmp_path / "trips"
    first = run_job(_settings(base))
    second = run_job(_settings(base))
    assert second.verified
    assert second.read is not None
    assert first.read is not None
    assert second.read.checksum == first.read.checksum
    assert second.steps[0].operation == "insert_overwrite_table"
    checkpoints = _checkpoints(base)
    assert checkpoints[3] is None  # the overwrite carries no checkpoint
    assert all(c is not None for c in checkpoints[:3] + checkpoints[4:])
    assert len(list((tmp_path / "trips.landing").iterdir())) == 2  # the first run's files were removed


def test_a_landing_directory_holding_other_files_is_refused_before_any_write(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    landing.mkdir()
    (landing / "orders.json").write_text('{"id": 1}\n')
    with pytest.raises(JobError, match=r"orders\.json"):
        run_job(_settings(tmp_path / "trips", **{"job.landing_path": str(landing)}))
    assert HudiTable.open(str(tmp_path / "trips")).latest_commit() is None
    assert (landing / "orders.json").exists()


def test_direct_ingestion_lands_nothing_and_records_no_checkpoint(tmp_path: Path) -> None:
    base = tmp_path / "trips"
    report = run_job(_settings(base, **{"job.ingest": "direct"}))
    assert report.verified
    assert not (tmp_path / "trips.landing").exists()
    assert _checkpoints(base) == [None, None, None]
    assert report.steps[2].result.operation is WriteOperation.DELETE


@pytest.mark.parametrize("inline", [False, True])
def test_the_jobs_compaction_settings_rule_not_the_streamers_default(tmp_path: Path, inline: bool) -> None:
    # HoodieStreamer compacts a merge-on-read table inline by default in one-round runs; the job
    # ingesting through the streamer compacts only as its services settings say, as a direct write does.
    base = tmp_path / "trips"
    upserts = [{"operation": "upsert", "updates": 10, "inserts": 5}] * 6
    overrides = {"table.type": "MERGE_ON_READ", "job.batches": upserts, "services.compaction.max_delta_commits": 2}
    if inline:
        overrides["services.compaction.inline"] = True
    report = run_job(_settings(base, **overrides))
    assert report.verified
    compactions = [i for i in HudiTable.open(str(base)).timeline.completed() if i.action.value == "commit"]
    assert bool(compactions) is inline
