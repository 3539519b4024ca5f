"""Structured Streaming: ``writeStream.format("hudi")`` (one commit per micro-batch, exactly once across
restarts) and ``readStream.format("hudi")`` (every change once, offsets in the query's checkpoint)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.runtime.table import HudiTable
from hudi_framework.spark.stream_write import SINK_CHECKPOINT_KEY

pytestmark = pytest.mark.spark

SCHEMA = "id STRING, city STRING, ts LONG, v DOUBLE"
COLUMNS = ["id", "city", "ts", "v"]


def _opts(table_type: str) -> dict[str, str]:
    return {
        "hoodie.table.name": "t",
        "hoodie.datasource.write.table.type": table_type,
        "hoodie.datasource.write.recordkey.field": "id",
        "hoodie.datasource.write.partitionpath.field": "city",
        "hoodie.datasource.write.precombine.field": "ts",
    }


def _land_rows(n: int) -> list[dict[str, Any]]:
    """File ``n`` of the source: 3 new keys, and (after the first) updates of k000-k002."""
    rows = [{"id": f"k{n * 3 + i:03d}", "city": ["sf", "ny"][i % 2], "ts": n, "v": float(n)} for i in range(3)]
    rows += [{"id": f"k{i:03d}", "city": ["sf", "ny"][i % 2], "ts": n, "v": n + 0.5} for i in range(3) if n > 0]
    return rows


def _land(src: Path, n: int) -> list[dict[str, Any]]:
    """Land file ``n`` of the source (:func:`_land_rows`) in ``src``."""
    rows = _land_rows(n)
    (src / f"part-{n:03d}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return rows


def _applied_once(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    latest: dict[str, dict[str, Any]] = {}
    for row in rows:  # files land in order, so later rows are newer
        latest[row["id"]] = row
    return sorted(tuple(r[c] for c in COLUMNS) for r in latest.values())


def _sink(spark: Any, src: Path, path: Path, checkpoint: Path, table_type: str) -> None:
    query = (
        spark.readStream.schema(SCHEMA)
        .option("maxFilesPerTrigger", 1)
        .json(str(src))
        .writeStream.format("hudi")
        .options(**_opts(table_type))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start(str(path))
    )
    query.awaitTermination()
    assert query.exception() is None


def _ours(spark: Any, path: Path) -> list[tuple[Any, ...]]:
    return sorted(tuple(r) for r in spark.read.format("hudi").load(str(path)).select(*COLUMNS).collect())


def _hudi_rs(path: Path) -> list[tuple[Any, ...]]:
    batches = hudi.HudiTableBuilder.from_base_uri(str(path)).build().read()
    table = pa.Table.from_batches(batches).select(COLUMNS)
    return sorted(tuple(r.values()) for r in table.to_pylist())


def _checkpoints(path: Path) -> list[str]:
    timeline = HudiTable.open(str(path)).timeline
    values = []
    for instant in timeline.commits_timeline():
        extra = timeline.read_commit_metadata(instant).extra_metadata or {}
        if SINK_CHECKPOINT_KEY in extra:
            values.append(extra[SINK_CHECKPOINT_KEY])
    return values


def _follow(spark: Any, path: Path, downstream: Path, checkpoint: Path) -> list[tuple[Any, ...]]:
    """Run the downstream query (a Hudi stream into Parquet files) to the table's latest offset; all it wrote."""
    query = (
        spark.readStream.format("hudi")
        .load(str(path))
        .select(*COLUMNS)
        .writeStream.format("parquet")
        .option("path", str(downstream))
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    assert query.exception() is None
    return sorted(tuple(r) for r in spark.read.parquet(str(downstream)).collect())


def _changes(*windows: range) -> list[tuple[Any, ...]]:
    """What a downstream reader sees of micro-batch windows holding the commits of these files: each
    record changed in a window once, in its latest state as of the window's end."""
    return sorted(row for files in windows for row in _applied_once([r for n in files for r in _land_rows(n)]))


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_sink_and_source_restarted_mid_stream_apply_and_see_every_batch_once(
    spark: Any, tmp_path: Path, table_type: str
) -> None:
    src, path, checkpoint = tmp_path / "src", tmp_path / "t", tmp_path / "ck"
    downstream, read_checkpoint = tmp_path / "down", tmp_path / "ck-read"
    src.mkdir()
    landed = [row for n in range(3) for row in _land(src, n)]
    _sink(spark, src, path, checkpoint, table_type)
    assert _checkpoints(path) == [f'{{"default_single_writer":"{b}"}}' for b in range(3)]
    # A downstream query sees the table's history; one window here, as every commit precedes its start.
    assert _follow(spark, path, downstream, read_checkpoint) == _changes(range(3))
    # The sink stops after batch 2's Hudi commit but before Spark records it: the restart replays it.
    for name in ("2", ".2.crc"):
        (checkpoint / "commits" / name).unlink()
    landed += [row for n in range(3, 5) for row in _land(src, n)]
    _sink(spark, src, path, checkpoint, table_type)
    # Batch 2 was skipped (not committed twice); 3 and 4 were committed once each.
    assert _checkpoints(path) == [f'{{"default_single_writer":"{b}"}}' for b in range(5)]
    expected = _applied_once(landed)
    assert len(expected) == 15
    assert _ours(spark, path) == expected
    assert _hudi_rs(path) == expected
    # Restarted from its checkpoint, the downstream query adds only batches 3 and 4's changes.
    assert _follow(spark, path, downstream, read_checkpoint) == _changes(range(3), range(3, 5))


def _doc_example(heading: str) -> str:
    """The Python example under ``heading`` in docs/spark.md."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "spark.md").read_text(encoding="utf-8")
    section = doc.split(f"## {heading}\n", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_docs_streaming_examples_run(spark: Any, tmp_path: Path) -> None:
    landing = tmp_path / "landing" / "trips"
    landing.mkdir(parents=True)
    landed = _land(landing, 0) + _land(landing, 1)

    def run(heading: str, *, trigger: str = "") -> Any:
        code = _doc_example(heading).replace('"/', f'"{tmp_path}/')
        if trigger:
            code = code.replace(trigger, "availableNow=True")
        namespace: dict[str, Any] = {"spark": spark}
        exec(compile(code, f"docs/spark.md: {heading}", "exec"), namespace)
        namespace["query"].awaitTermination()
        return namespace["query"]

    run("Structured Streaming: sink", trigger='processingTime="1 minute"')
    assert _ours(spark, tmp_path / "data" / "trips") == _applied_once(landed)
    run("Structured Streaming: source")
    changes = spark.read.parquet(str(tmp_path / "data" / "trips_changes")).select(*COLUMNS).collect()
    assert sorted(tuple(r) for r in changes) == _applied_once(landed)  # one window: the latest states
