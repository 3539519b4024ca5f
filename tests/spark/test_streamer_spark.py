"""The streamer on Spark: splits read in executors, SQL and Python transformers, SparkWriteClient."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer import run_streamer
from hudi_framework.streamer.checkpoint import CHECKPOINT_KEY_V2
from tests.unit.streamer.test_streamer import SOURCE_MODULE, land

pytestmark = pytest.mark.spark


def _mor_on_spark(base: str, landing: Path, extra: dict[str, Any]) -> HudiSettings:
    """A merge-on-read table written by the Spark engine from the test landing source."""
    overrides = {
        "table.base_path": base,
        "table.name": "t",
        "table.type": "MERGE_ON_READ",
        "table.record_key_fields": ["id"],
        "table.ordering_fields": ["ts"],
        "write.engine": "spark",
        "plugins.modules": [SOURCE_MODULE],
        "streamer.source": "TestLandingSource",
        "streamer.source_options": {"root": str(landing)},
    }
    return HudiSettings.load(overrides={**overrides, **extra}, env=False)


def test_streamer_on_spark_reads_splits_in_executors_and_transforms_with_sql(spark: Any, tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    land(landing, 0, 3, rows=4)
    base = str(tmp_path / "t")
    settings = _mor_on_spark(
        base,
        landing,
        {
            "streamer.source": "org.example.sources.TestLandingSource",
            "streamer.transformers": [
                "org.apache.hudi.utilities.transform.SqlQueryBasedTransformer",
                f"{SOURCE_MODULE}:flag_frame",
            ],
            "streamer.transformer_sql": "SELECT id, file, ts, file * 10 AS tenfold FROM <SRC> WHERE id % 2 = 0",
            "streamer.continuous": True,
            "streamer.stop_after_idle_rounds": 1,
            "streamer.source_limit": 1,  # one file per round
        },
    )
    report = run_streamer(settings, spark=spark)
    assert report.commits == 3
    assert [r.rows for r in report.rounds if r.committed] == [2, 2, 2]
    ours = read_table(HudiTable.open(base), columns=["id", "tenfold", "flag"]).sort_by("id").to_pylist()
    wanted = [{"id": f * 100 + r, "tenfold": f * 10, "flag": True} for f in range(3) for r in (0, 2)]
    assert ours == wanted
    theirs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(base).build().read(hudi.HudiReadOptions()))
    assert sorted(theirs.column("id").to_pylist()) == [w["id"] for w in wanted]
    table = HudiTable.open(base)
    last = table.timeline.commits_timeline()[-1]
    assert (table.timeline.read_commit_metadata(last).extra_metadata or {})[CHECKPOINT_KEY_V2] == "file:b002.json"


def test_a_continuous_streamer_on_spark_compacts_in_the_background_in_executors(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hudi_framework.spark.service_runner import SparkTaskRunner

    labels: list[str] = []
    real_map = SparkTaskRunner.map

    def spied(self: SparkTaskRunner, fn: Any, tasks: Any, *, work_bytes: int | None = None, label: str = "") -> Any:
        labels.append(label)
        return real_map(self, fn, tasks, work_bytes=work_bytes, label=label)

    monkeypatch.setattr(SparkTaskRunner, "map", spied)
    landing = tmp_path / "landing"
    land(landing, 0, 5, rows=3)
    for f in range(1, 5):  # every file also updates key 1 of the file before it (another file group each time)
        path = landing / f"b{f:03d}.json"
        path.write_text(path.read_text() + f'{{"id": {(f - 1) * 100 + 1}, "file": {f}, "ts": {f}}}\n')
    base = str(tmp_path / "t")
    settings = _mor_on_spark(
        base,
        landing,
        {
            "write.small_file_limit_bytes": 0,
            "services.compaction.max_delta_commits": 2,
            "streamer.continuous": True,
            "streamer.stop_after_idle_rounds": 1,
            "streamer.source_limit": 1,
        },
    )
    report = run_streamer(settings, spark=spark)
    assert report.commits == 5
    assert report.background, "no compaction ran in the background"
    table = HudiTable.open(base)
    assert [i.requested_time for i in table.timeline.completed() if i.action.value == "commit"] == [
        r.instant for r in report.background
    ]
    assert table.timeline.pending() == []
    want = {(f * 100 + r, f) for f in range(5) for r in (0, 2)} | {(f * 100 + 1, min(f + 1, 4)) for f in range(5)}
    ours = read_table(table, columns=["id", "file"]).to_pylist()
    assert sorted((r["id"], r["file"]) for r in ours) == sorted(want)
    theirs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(base).build().read(hudi.HudiReadOptions()))
    assert sorted(zip(theirs.column("id").to_pylist(), theirs.column("file").to_pylist(), strict=True)) == sorted(want)
    # Every background compaction ran its operations as a Spark job of the streamer's session.
    assert sorted(label.split()[1] for label in labels if label.startswith("compaction ")) == sorted(
        r.instant for r in report.background
    )
