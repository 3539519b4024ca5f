"""The ``hudi-incr`` source (plugins/hudi_sources_hudi): an upstream table's commits, batch by batch, exactly once."""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework import Components, HudiSettings, HudiTable, WriteClient, new_table_config
from hudi_framework.contracts.source import Source, SourceContext
from hudi_framework.errors import CheckpointError, PluginConfigError, SourceError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.testing import SourceContract
from hudi_framework.testing.source_contract import consume, read_plan


def _registry() -> ComponentRegistry:
    return ComponentRegistry.from_manager(build_plugin_manager())


def _build(options: dict[str, Any]) -> Source:
    return _registry().build(ComponentKind.SOURCE, "HoodieIncrSource", options)


@pytest.fixture
def context() -> SourceContext:
    return Components.from_settings(HudiSettings())


class _Upstream:
    """An upstream table; each call upserts 3 new keys and updates one earlier key."""

    def __init__(self, base: Path, table_type: str, version: int) -> None:
        config = new_table_config(
            "up",
            table_type=table_type,
            version=version,
            record_key_fields=["id"],
            partition_fields=["city"],
            ordering_fields=["ts"],
        )
        self.client = WriteClient(HudiTable.create(str(base), config))
        self.calls = 0

    def __call__(self) -> Sequence[Any]:
        n = self.calls
        ids = [f"k{n * 3 + i}" for i in range(3)]
        self.client.upsert(
            pa.table(
                {
                    "id": ids,
                    "city": ["sf", "ny", "sf"],
                    "ts": pa.array([n] * 3, pa.int64()),
                    "v": [float(n)] * 3,
                }
            )
        )
        self.client = WriteClient(self.client.table.reload())
        self.calls += 1
        return ids


@pytest.fixture(params=[("COPY_ON_WRITE", 8), ("MERGE_ON_READ", 8), ("COPY_ON_WRITE", 6)], ids=["cow8", "mor8", "cow6"])
def upstream(tmp_path: Path, request: pytest.FixtureRequest) -> _Upstream:
    table_type, version = request.param
    return _Upstream(tmp_path / "up", table_type, version)


class TestHoodieIncrContract(SourceContract):
    BAD_CHECKPOINTS = ("topic,0:1", "2024-01-01", "")

    @pytest.fixture
    def source(self, upstream: _Upstream) -> Source:
        return _build({"hoodie.streamer.source.hoodieincr.path": upstream.client.table.base_uri})

    @pytest.fixture
    def land(self, upstream: _Upstream) -> Callable[[], Sequence[Any]]:
        return upstream


def test_checkpoint_is_the_last_completion_time_read(upstream: _Upstream, context: SourceContext) -> None:
    for _ in range(4):
        upstream()
    source = _build({"hoodie.streamer.source.hoodieincr.path": upstream.client.table.base_uri, "num_instants": 3})
    plan = source.plan(None, limit=None, context=context)
    commits = HudiTable.open(upstream.client.table.base_uri).timeline.commits_timeline()
    version = upstream.client.table.config.version
    keys = sorted(i.completion_time if version >= 8 else i.requested_time for i in commits)
    assert plan.checkpoint == keys[2]  # three instants per batch
    rest = source.plan(plan.checkpoint, limit=None, context=context)
    assert rest.checkpoint == keys[3]
    table = read_plan(source, rest, context)
    assert table is not None
    assert sorted(table.column("id").to_pylist()) == ["k10", "k11", "k9"]


def test_meta_fields_dropped_but_partition_path_unless_all(tmp_path: Path, context: SourceContext) -> None:
    up = _Upstream(tmp_path / "up", "COPY_ON_WRITE", 8)
    up()
    default = _build({"path": up.client.table.base_uri})
    table = read_plan(default, default.plan(None, limit=None, context=context), context)
    assert table is not None
    assert [c for c in table.column_names if c.startswith("_hoodie")] == ["_hoodie_partition_path"]
    everything = _build({"path": up.client.table.base_uri, "drop_all_meta_fields": "true"})
    plan = everything.plan(None, limit=None, context=context)
    table = read_plan(everything, plan, context)
    assert table is not None
    assert sorted(table.column_names) == ["city", "id", "ts", "v"]
    assert plan.schema is not None
    assert plan.schema.names == table.column_names


def test_updates_arrive_in_their_latest_state_once(tmp_path: Path, context: SourceContext) -> None:
    up = _Upstream(tmp_path / "up", "MERGE_ON_READ", 8)
    up()
    source = _build({"path": up.client.table.base_uri})
    first, checkpoint = consume(source, context, None, limit=None)
    up.client.upsert(pa.table({"id": ["k0"], "city": ["sf"], "ts": pa.array([9], pa.int64()), "v": [9.0]}))
    second, _ = consume(source, context, checkpoint, limit=None)
    rows = [r for t in second for r in t.select(["id", "v"]).to_pylist()]
    assert rows == [{"id": "k0", "v": 9.0}]
    assert sum(t.num_rows for t in first) == 3


def test_read_latest_strategy_starts_at_the_latest_commit(tmp_path: Path, context: SourceContext) -> None:
    up = _Upstream(tmp_path / "up", "COPY_ON_WRITE", 8)
    up()
    up()
    source = _build(
        {
            "path": up.client.table.base_uri,
            "hoodie.streamer.source.hoodieincr.missing.checkpoint.strategy": "READ_LATEST",
        }
    )
    tables, _ = consume(source, context, None, limit=None)
    assert sorted(i for t in tables for i in t.column("id").to_pylist()) == ["k3", "k4", "k5"]


def test_bad_checkpoint_and_missing_table(tmp_path: Path, context: SourceContext) -> None:
    up = _Upstream(tmp_path / "up", "COPY_ON_WRITE", 8)
    source = _build({"path": up.client.table.base_uri})
    with pytest.raises(CheckpointError, match="instant or completion time"):
        source.plan("1700000000000.5", limit=None, context=context)
    nowhere = _build({"path": str(tmp_path / "nothing")})
    with pytest.raises(SourceError, match="cannot open the upstream table"):
        nowhere.plan(None, limit=None, context=context)


def test_options_are_validated() -> None:
    with pytest.raises(PluginConfigError, match="num_instants"):
        _build({"path": "/x", "hoodie.streamer.source.hoodieincr.num_instants": "0"})
    with pytest.raises(PluginConfigError, match="missing"):
        _build({"path": "/x", "hoodie.deltastreamer.source.hoodieincr.missing.checkpoint.strategy": "SOMETIMES"})
    assert _registry().get(ComponentKind.SOURCE, "org.apache.hudi.utilities.sources.HoodieIncrSource").spec.name == (
        "hudi-incr"
    )


def test_v6_stops_before_a_write_in_flight(tmp_path: Path, context: SourceContext) -> None:
    up = _Upstream(tmp_path / "up", "COPY_ON_WRITE", 6)
    up()
    up()
    timeline = HudiTable.open(up.client.table.base_uri).timeline
    second = timeline.commits_timeline()[-1]
    # Turn the second commit back into an inflight one: its rows are not readable yet.
    timeline_dir = tmp_path / "up" / ".hoodie"
    (timeline_dir / f"{second.requested_time}.commit").rename(tmp_path / "held.commit")
    source = _build({"path": up.client.table.base_uri})
    plan = source.plan(None, limit=None, context=context)
    table = read_plan(source, plan, context)
    assert table is not None
    assert sorted(table.column("id").to_pylist()) == ["k0", "k1", "k2"]
    (tmp_path / "held.commit").rename(timeline_dir / f"{second.requested_time}.commit")
    rest, _ = consume(source, context, plan.checkpoint, limit=None)
    assert sorted(i for t in rest for i in t.column("id").to_pylist()) == ["k3", "k4", "k5"]


def test_split_ids_name_the_file_group_and_window(tmp_path: Path, context: SourceContext) -> None:
    up = _Upstream(tmp_path / "up", "COPY_ON_WRITE", 8)
    up()
    uri = f"file://{tmp_path}/up"
    plan = _build({"path": uri}).plan(None, limit=None, context=context)
    file_ids = {str(s.payload["file_id"]) for s in plan.splits}
    assert sorted(s.id.split("@")[0].rsplit("/", 2)[1] for s in plan.splits) == ["ny", "sf"]
    assert all(s.id.startswith(f"file://{tmp_path}/up/") for s in plan.splits)
    assert all(s.id.endswith(f"@(,{plan.checkpoint}]") for s in plan.splits)
    assert {s.id.split("@")[0].rsplit("/", 1)[1] for s in plan.splits} == file_ids


def test_compaction_in_the_stream_repeats_no_row(tmp_path: Path, context: SourceContext) -> None:
    config = new_table_config(
        "up", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"]
    )
    settings = HudiSettings(services={"compaction": {"inline": True, "max_delta_commits": 2}})
    table = HudiTable.create(str(tmp_path / "up"), config)
    source = _build({"path": table.base_uri, "num_instants": 1})
    checkpoint: str | None = None
    seen: list[tuple[str, float]] = []
    for n in range(3):
        v = float(n)
        batch = pa.table({"id": ["a", f"n{n}"], "city": ["sf", "ny"], "ts": pa.array([n, n], pa.int64()), "v": [v, v]})
        WriteClient(table.reload(), settings).upsert(batch)
        tables, checkpoint = consume(source, context, checkpoint, limit=None)
        seen += [(r["id"], r["v"]) for t in tables for r in t.select(["id", "v"]).to_pylist()]
    actions = {i.action.value for i in HudiTable.open(table.base_uri).timeline.commits_timeline()}
    assert "commit" in actions  # compactions completed between the batches
    expected = [(key, float(n)) for n in range(3) for key in ("a", f"n{n}")]
    assert sorted(seen) == sorted(expected)


def test_a_used_source_pickles_without_its_table(tmp_path: Path, context: SourceContext) -> None:
    up = _Upstream(tmp_path / "up", "COPY_ON_WRITE", 8)
    up()
    source = _build({"path": up.client.table.base_uri})
    plan = source.plan(None, limit=None, context=context)
    copy = pickle.loads(pickle.dumps(source))
    table = read_plan(copy, plan, context)
    assert table is not None
    assert sorted(table.column("id").to_pylist()) == ["k0", "k1", "k2"]
