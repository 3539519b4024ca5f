"""The streamer on the local engine: rounds, checkpoints in commit metadata, overrides, the loop."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.config import HudiSettings
from hudi_framework.errors import (
    CheckpointError,
    ConfigError,
    IncompatibleTableConfigError,
    SchemaMismatchError,
    SourceError,
    StreamerError,
    UnknownComponentError,
)
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.streamer import RoundReport, StopSignal, run_streamer
from hudi_framework.streamer.checkpoint import (
    CHECKPOINT_KEY_V1,
    CHECKPOINT_KEY_V2,
    RESET_KEY_V2,
    latest_checkpoint,
    resolve_resume,
)
from hudi_framework.table.from_settings import table_config_from_settings as config_of
from hudi_framework.write.client import WriteClient

SOURCE_MODULE = "tests.unit.streamer.landing_source"


def land(landing: Path, first: int, count: int, rows: int = 3) -> None:
    landing.mkdir(exist_ok=True)
    for f in range(first, first + count):
        lines = [json.dumps({"id": f * 100 + r, "file": f, "ts": f}) for r in range(rows)]
        (landing / f"b{f:03d}.json").write_text("\n".join(lines) + "\n")


def settings(tmp_path: Path, **streamer: Any) -> HudiSettings:
    overrides: dict[str, Any] = {
        "table.base_path": str(tmp_path / "t"),
        "table.name": "t",
        "table.record_key_fields": ["id"],
        "table.ordering_fields": ["ts"],
        "write.engine": "local",
        "plugins.modules": [SOURCE_MODULE],
        "streamer.source": "TestLandingSource",
        "streamer.source_options": {"hoodie.streamer.source.dfs.root": str(tmp_path / "landing")},
    }
    overrides.update({k if "." in k else f"streamer.{k}": v for k, v in streamer.items()})
    return HudiSettings.load(overrides=overrides, env=False)


def rows(tmp_path: Path) -> list[tuple[int, int]]:
    table = read_table(HudiTable.open(str(tmp_path / "t")), columns=["id", "file"])
    return sorted((r["id"], r["file"]) for r in table.to_pylist())


def expected(*files: int, rows: int = 3) -> list[tuple[int, int]]:
    return sorted((f * 100 + r, f) for f in files for r in range(rows))


def extra(tmp_path: Path) -> list[dict[str, str]]:
    table = HudiTable.open(str(tmp_path / "t"))
    return [
        dict(table.timeline.read_commit_metadata(i).extra_metadata or {}) for i in table.timeline.commits_timeline()
    ]


def test_one_round_takes_up_to_the_limit_and_records_the_checkpoint_in_its_commit(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 3)
    two = sum((tmp_path / "landing" / f"b00{f}.json").stat().st_size for f in (0, 1))
    report = run_streamer(settings(tmp_path, source_limit=two))
    assert [r.checkpoint for r in report.rounds] == ["file:b001.json"]
    assert report.stopped_by == "one round"
    assert rows(tmp_path) == expected(0, 1)
    [meta] = extra(tmp_path)
    assert meta[CHECKPOINT_KEY_V2] == "file:b001.json"
    assert RESET_KEY_V2 not in meta
    assert "schema" in meta  # the writer's own entries stay


def test_the_next_run_resumes_from_the_table_and_an_empty_round_commits_nothing(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 2)
    run_streamer(settings(tmp_path))
    land(tmp_path / "landing", 2, 1)
    second = run_streamer(settings(tmp_path))
    assert second.rounds[0].resumed_from == "file:b001.json"
    assert rows(tmp_path) == expected(0, 1, 2)
    third = run_streamer(settings(tmp_path))
    assert third.rounds[0].instant is None
    assert third.rounds[0].checkpoint == "file:b002.json"
    assert len(extra(tmp_path)) == 2


def test_continuous_runs_until_idle_and_max_rounds_stops_it_earlier(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 4)
    size = (tmp_path / "landing" / "b000.json").stat().st_size
    capped = run_streamer(settings(tmp_path, source_limit=size, continuous=True, max_rounds=2))
    assert (capped.stopped_by, capped.commits) == ("max rounds", 2)
    rest = run_streamer(settings(tmp_path, source_limit=size, continuous=True, stop_after_idle_rounds=1))
    assert (rest.stopped_by, rest.commits, len(rest.rounds)) == ("idle", 2, 3)
    assert rows(tmp_path) == expected(0, 1, 2, 3)
    assert [m[CHECKPOINT_KEY_V2] for m in extra(tmp_path)] == [f"file:b{f:03d}.json" for f in range(4)]


def test_a_stop_signal_ends_a_continuous_run_after_the_current_round(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 3)
    size = (tmp_path / "landing" / "b000.json").stat().st_size
    stop = StopSignal()

    class StopAfterFirst:
        def round_started(self, number: int, resumed_from: str | None) -> None:
            pass

        def round_planned(self, number: int, splits: int) -> None:
            if number == 1:
                stop.stop("SIGTERM")  # arrives mid-round: the round still commits

        def round_done(self, report: RoundReport) -> None:
            pass

    report = run_streamer(
        settings(tmp_path, source_limit=size, continuous=True, min_sync_interval_seconds=60),
        observer=StopAfterFirst(),
        stop=stop,
    )
    assert (report.stopped_by, report.commits) == ("SIGTERM", 1)
    assert rows(tmp_path) == expected(0)


def test_checkpoint_override_applies_once_and_is_recorded_as_the_reset_key(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 3)
    run_streamer(settings(tmp_path))
    again = run_streamer(settings(tmp_path, operation="insert", checkpoint="file:b001.json"))
    assert again.rounds[0].resumed_from == "file:b001.json"
    metas = extra(tmp_path)
    assert metas[-1][RESET_KEY_V2] == "file:b001.json"
    assert metas[-1][CHECKPOINT_KEY_V2] == "file:b002.json"
    # The same override again: the table's checkpoint wins (nothing new, no commit).
    third = run_streamer(settings(tmp_path, checkpoint="file:b001.json"))
    assert third.rounds[0].resumed_from == "file:b002.json"
    assert third.commits == 0
    # file 2 was inserted twice (insert never deduplicates): the override re-read it, as asked.
    assert rows(tmp_path) == sorted(expected(0, 1, 2) + expected(2))


def test_version_6_tables_use_the_v1_keys(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 1)
    run_streamer(settings(tmp_path, **{"table.version": 6}))
    [meta] = extra(tmp_path)
    assert meta[CHECKPOINT_KEY_V1] == "file:b000.json"
    assert CHECKPOINT_KEY_V2 not in meta
    land(tmp_path / "landing", 1, 1)
    assert run_streamer(settings(tmp_path, **{"table.version": 6})).rounds[0].resumed_from == "file:b000.json"


def test_commits_without_a_checkpoint_are_passed_over_and_a_reset_key_alone_is_refused(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 1)
    s = settings(tmp_path)
    run_streamer(s)
    table = HudiTable.open(str(tmp_path / "t"), settings=s)
    other = pa.table({"id": [999], "file": [99], "ts": [99]})
    WriteClient(table, s).upsert(other)  # a writer that is not the streamer
    assert resolve_resume(table.reload(), None).checkpoint == "file:b000.json"
    WriteClient(table.reload(), s).upsert(other, extra_metadata={RESET_KEY_V2: "file:x"})
    recorded = latest_checkpoint(table.reload())
    assert recorded is not None
    assert recorded.checkpoint is None
    with pytest.raises(StreamerError, match="no checkpoint"):
        resolve_resume(table.reload(), None)
    assert resolve_resume(table.reload(), "file:b000.json").checkpoint == "file:b000.json"


def test_a_foreign_checkpoint_fails_before_anything_is_written(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 1)
    run_streamer(settings(tmp_path))
    with pytest.raises(CheckpointError, match="not a landing checkpoint"):
        run_streamer(settings(tmp_path, checkpoint="kafka,0:12"))
    assert len(extra(tmp_path)) == 1


def test_an_unreadable_split_commits_nothing_and_the_next_run_reads_it_again(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    land(landing, 0, 1)
    run_streamer(settings(tmp_path))
    (landing / "b001.json").write_text("{not json\n")
    with pytest.raises(SourceError, match=re.escape("b001.json")):
        run_streamer(settings(tmp_path))
    land(landing, 1, 1)  # fixed in place
    assert run_streamer(settings(tmp_path)).rounds[0].resumed_from == "file:b000.json"
    assert rows(tmp_path) == expected(0, 1)


def test_a_schema_file_shapes_every_batch(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 1)
    schema = {
        "type": "record",
        "name": "landed",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "file", "type": "long"},
            {"name": "ts", "type": "long"},
            {"name": "note", "type": ["null", "string"], "default": None},
        ],
    }
    avsc = tmp_path / "landed.avsc"
    avsc.write_text(json.dumps(schema))
    run_streamer(settings(tmp_path, schema_file=str(avsc)))
    table = read_table(HudiTable.open(str(tmp_path / "t")), columns=["id", "note"])
    assert table.column("note").null_count == 3
    bad = tmp_path / "bad.avsc"
    bad.write_text(json.dumps({**schema, "fields": [*schema["fields"], {"name": "must", "type": "string"}]}))
    land(tmp_path / "landing", 1, 1)
    with pytest.raises(SchemaMismatchError, match="must"):
        run_streamer(settings(tmp_path, schema_file=str(bad)))


def test_transformers_the_local_engine_cannot_run_are_refused(tmp_path: Path) -> None:
    with pytest.raises(StreamerError, match=re.escape('write.engine = "spark"')):
        run_streamer(settings(tmp_path, transformers="SqlQueryBasedTransformer", transformer_sql="select 1"))
    with pytest.raises(StreamerError, match=re.escape("unknown transformer 'com.acme.Mine'")):
        run_streamer(settings(tmp_path, transformers="com.acme.Mine"))
    with pytest.raises(StreamerError, match=re.escape("needs hoodie.streamer.transformer.sql")):
        run_streamer(settings(tmp_path, transformers="sql"))


def test_a_table_with_other_keys_is_refused(tmp_path: Path) -> None:
    land(tmp_path / "landing", 0, 1)
    run_streamer(settings(tmp_path))
    with pytest.raises(IncompatibleTableConfigError, match="keys"):
        run_streamer(settings(tmp_path, **{"table.record_key_fields": ["file"]}))


def test_hoodie_streamer_keys_reach_the_source_and_the_streamer_section() -> None:
    s = HudiSettings.from_hoodie_options(
        {
            "hoodie.streamer.source.dfs.root": "/landing",
            "hoodie.deltastreamer.csv.sep": ";",
            "hoodie.streamer.transformer.sql": "SELECT * FROM <SRC>",
            "hoodie.deltastreamer.schemaprovider.source.schema.file": "/s.avsc",
        },
        env=False,
    )
    assert s.streamer.source_options == {
        "hoodie.streamer.source.dfs.root": "/landing",
        "hoodie.deltastreamer.csv.sep": ";",
    }
    assert (s.streamer.transformer_sql, s.streamer.schema_file) == ("SELECT * FROM <SRC>", "/s.avsc")


def test_the_kafka_consumer_keys_of_a_hoodie_streamer_reach_the_source() -> None:
    # HoodieStreamer hands its properties to the Kafka consumer: --hoodie-conf bootstrap.servers=...
    s = HudiSettings.from_hoodie_options(
        {"hoodie.streamer.source.kafka.topic": "t", "bootstrap.servers": "b:9092", "auto.offset.reset": "earliest"},
        env=False,
    )
    assert s.streamer.source_options == {
        "hoodie.streamer.source.kafka.topic": "t",
        "bootstrap.servers": "b:9092",
        "auto.offset.reset": "earliest",
    }


def test_only_upsert_insert_and_bulk_insert_are_streamer_operations(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=re.escape("streamer.operation")):
        settings(tmp_path, operation="delete")


def test_each_round_runs_the_inline_table_services(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    for f in range(4):  # the same keys every file: updates, into log files
        landing.mkdir(exist_ok=True)
        (landing / f"b{f:03d}.json").write_text("\n".join(json.dumps({"id": r, "file": f, "ts": f}) for r in range(3)))
    s = settings(
        tmp_path,
        continuous=True,
        stop_after_idle_rounds=1,
        source_limit=1,
        **{
            "table.type": "MERGE_ON_READ",
            "services.compaction.inline": True,
            "services.compaction.max_delta_commits": 2,
        },
    )
    report = run_streamer(s)
    services = [r.services for r in report.rounds if r.committed]
    assert any(any(name.startswith("compaction ") for name in ran) for ran in services), services
    assert rows(tmp_path) == [(r, 3) for r in range(3)]
    table = HudiTable.open(str(tmp_path / "t"))
    assert any(i.action.value == "commit" for i in table.timeline.commits_timeline())  # the compaction
    assert resolve_resume(table, None).checkpoint == "file:b003.json"  # passed over the compaction's commit


def test_other_hoodie_streamer_keys_stay_unknown() -> None:
    from hudi_framework.errors import UnknownConfigKeyError

    with pytest.raises(UnknownConfigKeyError):
        HudiSettings.from_hoodie_options({"hoodie.deltastreamer.keygen.timebased.timestamp.typo": "x"}, env=False)


def test_python_transformers_run_on_the_local_engine(tmp_path: Path) -> None:
    land(tmp_path / "landing", 1, 1)
    run_streamer(settings(tmp_path, transformers=[f"{SOURCE_MODULE}:double_ts"]))
    table = read_table(HudiTable.open(str(tmp_path / "t")), columns=["id", "ts", "doubled"])
    assert table.sort_by("id").to_pylist() == [{"id": 100 + r, "ts": 2, "doubled": True} for r in range(3)]
    land(tmp_path / "landing", 2, 1)
    with pytest.raises(StreamerError, match=re.escape("returned list, not a pyarrow.Table")):
        run_streamer(settings(tmp_path, transformers=f"{SOURCE_MODULE}:not_a_table"))
    with pytest.raises(StreamerError, match="does not import"):
        run_streamer(settings(tmp_path, transformers=f"{SOURCE_MODULE}:missing"))


def test_splits_without_rows_commit_the_checkpoint_alone(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    land(landing, 0, 1)
    run_streamer(settings(tmp_path))
    (landing / "b001.json").write_text("")
    report = run_streamer(settings(tmp_path))
    assert report.rounds[0].rows == 0
    assert report.rounds[0].committed
    assert [m[CHECKPOINT_KEY_V2] for m in extra(tmp_path)] == ["file:b000.json", "file:b001.json"]
    assert rows(tmp_path) == expected(0)
    assert run_streamer(settings(tmp_path)).rounds[0].resumed_from == "file:b001.json"


def test_a_first_plan_that_only_moves_the_checkpoint_is_kept_so_later_data_is_not_skipped(tmp_path: Path) -> None:
    # A source starting at its latest position (Kafka's auto.offset.reset=latest) plans no rows but a
    # new checkpoint; were it dropped, every round would start at "latest" again and skip whatever
    # arrived in between. With no table and no schema yet, the run carries it to its next rounds.
    landing = tmp_path / "landing"
    land(landing, 0, 2)
    options = {"hoodie.streamer.source.dfs.root": str(landing), "latest": True}

    class LandAfterFirstRound:
        def round_started(self, number: int, resumed_from: str | None) -> None:
            pass

        def round_planned(self, number: int, splits: int) -> None:
            pass

        def round_done(self, report: RoundReport) -> None:
            if report.number == 1:
                land(landing, 2, 1)

    config = settings(tmp_path, source_options=options, continuous=True, max_rounds=2)
    report = run_streamer(config, observer=LandAfterFirstRound())
    assert [r.checkpoint for r in report.rounds] == ["file:b001.json", "file:b002.json"]
    assert rows(tmp_path) == expected(2)


def test_a_moved_checkpoint_is_committed_alone_when_the_table_exists(tmp_path: Path) -> None:
    landing = tmp_path / "landing"
    land(landing, 0, 2)
    config = settings(tmp_path, source_options={"hoodie.streamer.source.dfs.root": str(landing), "latest": True})
    table = HudiTable.create(str(tmp_path / "t"), config_of(config))
    WriteClient(table).upsert(pa.table({"id": [7], "file": [7], "ts": [7]}))  # another writer, no checkpoint
    first = run_streamer(config)  # one round, --once: nothing read, the checkpoint committed alone
    assert first.rounds[0].checkpoint == "file:b001.json"
    assert extra(tmp_path)[-1][CHECKPOINT_KEY_V2] == "file:b001.json"
    land(landing, 2, 1)
    run_streamer(config)  # a new run resumes from the table's checkpoint, not from "latest"
    assert rows(tmp_path) == sorted([*expected(2), (7, 7)])


def test_an_unknown_source_fails_before_any_spark_session_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_spark(*args: object) -> None:
        raise AssertionError("a Spark session was started for a streamer that cannot run")

    monkeypatch.setattr("hudi_framework.streamer.job._start_spark", no_spark)
    config = settings(tmp_path, source="NoSuchSource", **{"write.engine": "spark"})
    with pytest.raises(UnknownComponentError, match="no source named 'NoSuchSource'"):
        run_streamer(config, spark=None)
    assert not (tmp_path / "t").exists()


def test_an_unknown_transformer_fails_before_any_spark_session_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_spark(*args: object) -> None:
        raise AssertionError("a Spark session was started for a streamer that cannot run")

    monkeypatch.setattr("hudi_framework.streamer.job._start_spark", no_spark)
    config = settings(tmp_path, transformers=["NoSuchTransformer"], **{"write.engine": "spark"})
    with pytest.raises(StreamerError, match="NoSuchTransformer"):
        run_streamer(config, spark=None)
    assert not (tmp_path / "t").exists()
