"""The DFS sources (plugins/hudi_sources_dfs): listing, limits, exactly-once checkpoints, formats, errors."""

from __future__ import annotations

import datetime as dt
import io
import pickle
import time
from collections.abc import Callable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework import Components, HudiSettings
from hudi_framework.contracts.source import Source, SourceContext
from hudi_framework.errors import CheckpointError, PluginConfigError, SourceError
from hudi_framework.plugin import ComponentKind, ComponentRegistry, build_plugin_manager
from hudi_framework.testing import SourceContract
from hudi_framework.testing.source_contract import consume, read_plan
from tests.unit.sources.dfs_landing import encode, land_file, rows

BASE_MS = 1_700_000_000_000
FORMATS = ("json", "csv", "parquet", "avro")


def _registry() -> ComponentRegistry:
    return ComponentRegistry.from_manager(build_plugin_manager())


def _build(name: str, options: dict[str, Any]) -> Source:
    return _registry().build(ComponentKind.SOURCE, name, options)


@pytest.fixture
def context() -> SourceContext:
    return Components.from_settings(HudiSettings())


def _options(fmt: str, root: Path) -> dict[str, Any]:
    options: dict[str, Any] = {"hoodie.streamer.source.dfs.root": str(root)}
    if fmt == "csv":
        options["hoodie.streamer.csv.header"] = "true"
    return options


class _Lander:
    """Lands one file per call, each a second after the last, with 3 fresh rows."""

    def __init__(self, root: Path, fmt: str) -> None:
        self.root, self.fmt, self.calls = root, fmt, 0

    def __call__(self) -> Sequence[Any]:
        batch = rows(self.calls * 3, 3)
        land_file(
            self.root,
            f"day={self.calls}/part-{self.calls}.{self.fmt}",
            encode(self.fmt, batch),
            BASE_MS + self.calls * 1000,
        )
        self.calls += 1
        return [r["id"] for r in batch]


class DfsContract(SourceContract):
    FORMAT = "json"
    BAD_CHECKPOINTS = ("topic,0:12", "")

    @pytest.fixture
    def source(self, tmp_path: Path) -> Source:
        return _build(f"{self.FORMAT}-dfs", _options(self.FORMAT, tmp_path / "landing"))

    @pytest.fixture
    def land(self, tmp_path: Path) -> Callable[[], Sequence[Any]]:
        return _Lander(tmp_path / "landing", self.FORMAT)


class TestJsonContract(DfsContract):
    FORMAT = "json"


class TestCsvContract(DfsContract):
    FORMAT = "csv"


class TestParquetContract(DfsContract):
    FORMAT = "parquet"


class TestAvroContract(DfsContract):
    FORMAT = "avro"


# ------------------------------------------------------------------------------------------ registry
@pytest.mark.parametrize(
    ("alias", "name"),
    [
        ("JsonDFSSource", "json-dfs"),
        ("org.apache.hudi.utilities.sources.JsonDFSSource", "json-dfs"),
        ("CsvDFSSource", "csv-dfs"),
        ("org.apache.hudi.utilities.sources.CsvDFSSource", "csv-dfs"),
        ("ParquetDFSSource", "parquet-dfs"),
        ("org.apache.hudi.utilities.sources.ParquetDFSSource", "parquet-dfs"),
        ("AvroDFSSource", "avro-dfs"),
        ("org.apache.hudi.utilities.sources.AvroDFSSource", "avro-dfs"),
    ],
)
def test_apache_hudi_class_names_resolve(alias: str, name: str) -> None:
    assert _registry().get(ComponentKind.SOURCE, alias).spec.name == name


def test_older_deltastreamer_keys_and_field_names_are_accepted(tmp_path: Path) -> None:
    for options in ({"hoodie.deltastreamer.source.dfs.root": str(tmp_path)}, {"root": str(tmp_path)}):
        source = _build("json-dfs", options)
        assert source.options.root == str(tmp_path)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({}, "root"),
        ({"root": "/x", "hoodie.streamer.source.kafka.topic": "t"}, "hoodie.streamer.source.kafka.topic"),
        (
            {"root": "/x", "hoodie.streamer.source.input.selector": "DatePartitionPathSelector"},
            "input.selector",
        ),
    ],
)
def test_bad_options_name_the_option(options: dict[str, Any], named: str) -> None:
    with pytest.raises(PluginConfigError, match=named):
        _build("json-dfs", options)


def test_unsupported_csv_option_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PluginConfigError, match=r"hoodie\.streamer\.csv\.comment"):
        _build("csv-dfs", {"root": str(tmp_path), "hoodie.streamer.csv.comment": "#"})


# ------------------------------------------------------------------------------------------ planning
def _land_groups(root: Path, sizes_by_mtime: list[list[int]]) -> None:
    """Land JSON files: group ``g`` gets files sharing mtime BASE_MS + g, each padded to its size."""
    for g, sizes in enumerate(sizes_by_mtime):
        for i, size in enumerate(sizes):
            line = b'{"id": %d}\n' % (g * 100 + i)
            land_file(root, f"g{g}-f{i}.json", line + b" " * (size - len(line)), BASE_MS + g)


def _planned(source: Source, context: SourceContext, checkpoint: str | None, limit: int | None) -> list[str]:
    plan = source.plan(checkpoint, limit=limit, context=context)
    return [s.payload["key"] for s in plan.splits]  # type: ignore[misc]


def test_limit_takes_whole_mtime_groups(tmp_path: Path, context: SourceContext) -> None:
    _land_groups(tmp_path, [[100], [100, 100, 100], [100]])
    source = _build("json-dfs", {"root": str(tmp_path)})
    # 150 bytes fit only the first group; the second (300 bytes) is never split.
    assert _planned(source, context, None, 150) == ["g0-f0.json"]
    assert _planned(source, context, None, 250) == ["g0-f0.json"]
    assert _planned(source, context, None, 400) == ["g0-f0.json", "g1-f0.json", "g1-f1.json", "g1-f2.json"]
    # A group larger than the limit is still taken whole when it comes first.
    assert _planned(source, context, str(BASE_MS), 10) == ["g1-f0.json", "g1-f1.json", "g1-f2.json"]
    plan = source.plan(str(BASE_MS), limit=10, context=context)
    assert plan.checkpoint == str(BASE_MS + 1)
    assert [s.size_hint for s in plan.splits] == [100, 100, 100]


def test_equal_mtime_group_is_read_exactly_once_across_resumes(tmp_path: Path, context: SourceContext) -> None:
    _land_groups(tmp_path, [[50, 50], [60, 60, 60, 60], [50], [70, 70]])
    source = _build("json-dfs", {"root": str(tmp_path)})
    tables, _ = consume(source, context, None, limit=1)
    ids = [i for t in tables for i in t.column("id").to_pylist()]
    assert sorted(ids) == sorted([0, 1, 100, 101, 102, 103, 200, 300, 301])
    assert len(tables) == 4  # one batch per modification time


def test_hidden_names_are_ignored(tmp_path: Path, context: SourceContext) -> None:
    land_file(tmp_path, "a.json", b'{"id": 1}\n', BASE_MS)
    land_file(tmp_path, "_SUCCESS", b"", BASE_MS)
    land_file(tmp_path, ".a.json.crc", b"x", BASE_MS)
    land_file(tmp_path, "_temporary/0/b.json", b'{"id": 2}\n', BASE_MS)
    land_file(tmp_path, ".hidden/c.json", b'{"id": 3}\n', BASE_MS)
    source = _build("json-dfs", {"root": str(tmp_path)})
    assert _planned(source, context, None, None) == ["a.json"]


def test_files_landing_after_the_checkpoint_are_picked_up(tmp_path: Path, context: SourceContext) -> None:
    source = _build("json-dfs", {"root": str(tmp_path)})
    land_file(tmp_path, "a.json", b'{"id": 1}\n', BASE_MS)
    first = source.plan(None, limit=None, context=context)
    assert first.checkpoint == str(BASE_MS)
    land_file(tmp_path, "b.json", b'{"id": 2}\n', BASE_MS + 5)
    second = source.plan(first.checkpoint, limit=None, context=context)
    assert [s.payload["key"] for s in second.splits] == ["b.json"]
    assert second.checkpoint == str(BASE_MS + 5)
    # Apache Hudi's checkpoint of an empty first run (Long.MIN_VALUE) reads everything.
    assert len(source.plan("-9223372036854775808", limit=None, context=context).splits) == 2


def test_missing_root_plans_nothing(tmp_path: Path, context: SourceContext) -> None:
    source = _build("json-dfs", {"root": str(tmp_path / "nothing-yet")})
    assert source.plan("123", limit=None, context=context).checkpoint == "123"


@pytest.mark.parametrize("checkpoint", ["topic,0:100", "12.5", "abc"])
def test_bad_checkpoint_raises_checkpoint_error(tmp_path: Path, context: SourceContext, checkpoint: str) -> None:
    source = _build("json-dfs", {"root": str(tmp_path)})
    with pytest.raises(CheckpointError, match="epoch milliseconds") as caught:
        source.plan(checkpoint, limit=None, context=context)
    assert caught.value.checkpoint == checkpoint
    assert caught.value.source == "json-dfs"


# ------------------------------------------------------------------------------------------ reading
@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_reads_its_rows(tmp_path: Path, context: SourceContext, fmt: str) -> None:
    written = rows(0, 5)
    land_file(tmp_path, f"a.{fmt}", encode(fmt, written), BASE_MS)
    source = _build(f"{fmt}-dfs", _options(fmt, tmp_path))
    table = read_plan(source, source.plan(None, limit=None, context=context), context)
    assert table is not None
    assert table.select(["id", "rider", "fare"]).to_pylist() == written


@pytest.mark.parametrize("fmt", FORMATS)
def test_unreadable_file_raises_source_error_naming_it(tmp_path: Path, context: SourceContext, fmt: str) -> None:
    land_file(tmp_path, f"broken.{fmt}", b"\x00\x01 not a file {", BASE_MS)
    source = _build(f"{fmt}-dfs", _options(fmt, tmp_path))
    plan = source.plan(None, limit=None, context=context)
    with pytest.raises(SourceError, match=r"broken\." + fmt) as caught:
        list(source.read(plan.splits[0], context))
    assert caught.value.source == f"{fmt}-dfs"


def test_file_deleted_after_planning_raises_source_error(tmp_path: Path, context: SourceContext) -> None:
    path = land_file(tmp_path, "gone.json", b'{"id": 1}\n', BASE_MS)
    source = _build("json-dfs", {"root": str(tmp_path)})
    plan = source.plan(None, limit=None, context=context)
    path.unlink()
    with pytest.raises(SourceError, match=r"gone\.json"):
        list(source.read(plan.splits[0], context))


def _csv_rows(tmp_path: Path, context: SourceContext, content: str, **options: str) -> list[dict[str, Any]]:
    land_file(tmp_path, "a.csv", content.encode(), BASE_MS)
    keys = {f"hoodie.streamer.csv.{k}": v for k, v in options.items()}
    source = _build("csv-dfs", {"root": str(tmp_path), **keys})
    table = read_plan(source, source.plan(None, limit=None, context=context), context)
    assert table is not None
    return table.to_pylist()


def test_csv_without_header_takes_sparks_column_names(tmp_path: Path, context: SourceContext) -> None:
    assert _csv_rows(tmp_path, context, "1,a\n2,b\n") == [{"_c0": 1, "_c1": "a"}, {"_c0": 2, "_c1": "b"}]


def test_csv_separator_header_and_null_value(tmp_path: Path, context: SourceContext) -> None:
    got = _csv_rows(tmp_path, context, "id\tname\n1\tNA\n2\tbo\n", sep="\\t", header="true", nullValue="NA")
    assert got == [{"id": 1, "name": None}, {"id": 2, "name": "bo"}]


def test_csv_infer_schema_off_keeps_text(tmp_path: Path, context: SourceContext) -> None:
    got = _csv_rows(tmp_path, context, "id,fare\n007,1.50\n", header="true", inferSchema="false")
    assert got == [{"id": "007", "fare": "1.50"}]


def test_csv_quote_escape_and_multiline(tmp_path: Path, context: SourceContext) -> None:
    content = "id,note\n1,'it''s'\n2,'two\nlines'\n"
    got = _csv_rows(tmp_path, context, content, header="true", quote="'", escape="'", multiLine="true")
    assert got == [{"id": 1, "note": "it's"}, {"id": 2, "note": "two\nlines"}]


def test_avro_keeps_declared_types_and_logical_types(tmp_path: Path, context: SourceContext) -> None:
    schema = {
        "type": "record",
        "name": "Event",
        "namespace": "acme",
        "fields": [
            {"name": "id", "type": "int"},
            {"name": "note", "type": ["null", "string"], "default": None},
            {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
            {"name": "day", "type": {"type": "int", "logicalType": "date"}},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 2}},
            {"name": "kind", "type": {"type": "enum", "name": "Kind", "symbols": ["A", "B"]}},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "attrs", "type": {"type": "map", "values": "long"}},
            {
                "name": "where",
                "type": {"type": "record", "name": "Place", "fields": [{"name": "city", "type": "string"}]},
            },
        ],
    }
    at = dt.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=dt.UTC)
    record = {
        "id": 1,
        "note": None,
        "at": at,
        "day": dt.date(2024, 2, 29),
        "amount": Decimal("12.34"),
        "kind": "B",
        "tags": ["x", "y"],
        "attrs": {"k": 7},
        "where": {"city": "Oslo"},
    }
    sink = io.BytesIO()
    fastavro.writer(sink, fastavro.parse_schema(schema), [record])
    land_file(tmp_path, "e.avro", sink.getvalue(), BASE_MS)
    source = _build("avro-dfs", {"root": str(tmp_path)})
    table = read_plan(source, source.plan(None, limit=None, context=context), context)
    assert table is not None
    assert table.schema.field("id").type == pa.int32()
    assert table.schema.field("note").type == pa.string()
    assert table.schema.field("at").type == pa.timestamp("us", tz="UTC")
    assert table.schema.field("amount").type == pa.decimal128(9, 2)
    # Nullable only where the Avro type is a union with null, as Apache Hudi's Spark converters say.
    assert not table.schema.field("id").nullable
    assert table.schema.field("note").nullable
    assert table.schema.field("attrs").type == pa.map_(pa.string(), pa.field("value", pa.int64(), nullable=False))
    row = table.to_pylist()[0]
    assert row["at"] == at
    assert row["amount"] == Decimal("12.34")
    assert row["kind"] == "B"
    assert row["attrs"] == [("k", 7)]
    assert row["where"] == {"city": "Oslo"}


def test_avro_all_null_column_keeps_its_type(tmp_path: Path, context: SourceContext) -> None:
    written = [{"id": 1, "rider": None, "fare": 1.0}]
    land_file(tmp_path, "a.avro", encode("avro", written), BASE_MS)
    source = _build("avro-dfs", {"root": str(tmp_path)})
    table = read_plan(source, source.plan(None, limit=None, context=context), context)
    assert table is not None
    assert table.schema.field("rider").type == pa.string()


def test_option_keys_route_a_properties_file() -> None:
    from hudi_framework.contracts.source import option_keys

    model = _registry().get(ComponentKind.SOURCE, "CsvDFSSource").spec.load_options_model()
    keys = option_keys(model)
    assert {"root", "hoodie.streamer.source.dfs.root", "hoodie.deltastreamer.source.dfs.root"} <= keys
    assert {"hoodie.streamer.csv.sep", "hoodie.deltastreamer.csv.header", "null_value"} <= keys
    assert "hoodie.streamer.source.kafka.topic" not in keys
    props = {"hoodie.streamer.source.dfs.root": "/x", "hoodie.streamer.csv.sep": "|", "hoodie.table.name": "t"}
    options = model.model_validate({k: v for k, v in props.items() if k in keys})
    assert (options.root, options.sep) == ("/x", "|")  # type: ignore[attr-defined]


def test_settle_leaves_recent_files_for_a_later_batch(tmp_path: Path, context: SourceContext) -> None:
    now_ms = int(time.time() * 1000)
    land_file(tmp_path, "old.json", b'{"id": 1}\n', now_ms - 60_000)
    land_file(tmp_path, "recent.json", b'{"id": 2}\n', now_ms)
    settled = _build("json-dfs", {"root": str(tmp_path), "settle_ms": 30_000})
    plan = settled.plan(None, limit=None, context=context)
    assert [s.payload["key"] for s in plan.splits] == ["old.json"]
    assert plan.checkpoint == str(now_ms - 60_000)
    assert settled.plan(plan.checkpoint, limit=None, context=context).empty
    # Without settling (Apache Hudi's behaviour) both are taken at once.
    eager = _build("json-dfs", {"root": str(tmp_path)})
    assert len(eager.plan(None, limit=None, context=context).splits) == 2


def test_parquet_streams_row_groups(tmp_path: Path, context: SourceContext) -> None:
    table = pa.table({"id": pa.array(range(150_000), pa.int64())})
    sink = io.BytesIO()
    pq.write_table(table, sink, row_group_size=50_000)
    land_file(tmp_path, "a.parquet", sink.getvalue(), BASE_MS)
    source = _build("parquet-dfs", {"root": str(tmp_path)})
    batches = list(source.read(source.plan(None, limit=None, context=context).splits[0], context))
    assert len(batches) > 1  # streamed, not one table
    assert pa.Table.from_batches(batches).equals(table)


def test_a_used_source_pickles_without_its_storage(tmp_path: Path, context: SourceContext) -> None:
    land_file(tmp_path, "a.json", b'{"id": 1}\n', BASE_MS)
    source = _build("json-dfs", {"root": str(tmp_path)})
    plan = source.plan(None, limit=None, context=context)
    copy = pickle.loads(pickle.dumps(source))
    assert [b.to_pylist() for b in copy.read(plan.splits[0], context)] == [[{"id": 1}]]


def _parquet(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()


def test_a_parquet_plan_carries_the_footers_schema_unified(tmp_path: Path, context: SourceContext) -> None:
    narrow = pa.table({"id": pa.array([1], pa.int32()), "rider": ["a"]})
    wide = pa.table({"id": pa.array([2], pa.int64()), "rider": ["b"], "tip": [0.5]})
    land_file(tmp_path, "a.parquet", _parquet(narrow), BASE_MS)
    land_file(tmp_path, "b.parquet", _parquet(wide), BASE_MS + 1000)
    land_file(tmp_path, "empty.parquet", _parquet(pa.table({"other": pa.array([], pa.string())})), BASE_MS + 2000)
    plan = _build("parquet-dfs", {"root": str(tmp_path)}).plan(None, limit=None, context=context)
    assert len(plan.splits) == 3
    # The widened id, the column only one file has; the empty file's schema is not the batch's.
    assert plan.schema == pa.schema([("id", pa.int64()), ("rider", pa.string()), ("tip", pa.float64())])


def test_a_parquet_plan_of_empty_files_has_no_schema_and_other_formats_none(
    tmp_path: Path, context: SourceContext
) -> None:
    land_file(tmp_path / "p", "empty.parquet", _parquet(pa.table({"id": pa.array([], pa.int64())})), BASE_MS)
    assert _build("parquet-dfs", {"root": str(tmp_path / "p")}).plan(None, limit=None, context=context).schema is None
    land_file(tmp_path / "j", "a.json", encode("json", rows(0, 2)), BASE_MS)
    assert _build("json-dfs", {"root": str(tmp_path / "j")}).plan(None, limit=None, context=context).schema is None


def test_a_parquet_file_without_a_footer_plans_without_a_schema_and_fails_its_read(
    tmp_path: Path, context: SourceContext
) -> None:
    land_file(tmp_path, "a.parquet", _parquet(pa.table({"id": [1]})), BASE_MS)
    land_file(tmp_path, "broken.parquet", b"PAR1 not a parquet file", BASE_MS + 1000)
    source = _build("parquet-dfs", {"root": str(tmp_path)})
    plan = source.plan(None, limit=None, context=context)
    assert plan.schema is None
    with pytest.raises(SourceError, match=r"broken\.parquet"):
        list(source.read(plan.splits[1], context))
