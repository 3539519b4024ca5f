"""Schema evolution on write (local engine): new nullable columns and nested members are added, types
widen as Apache Hudi allows, older files read back with nulls and casts on every read path (our reader,
merged MOR slices, compaction, clustering, log compaction, time travel, incremental) and in hudi-rs;
incompatible changes fail before anything is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hudi_framework import HudiSettings
from hudi_framework.errors import (
    ColumnTypeError,
    NewColumnError,
    SchemaEvolutionConflictError,
    SchemaMismatchError,
)
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.concurrent_writers import race_upserts

TABLE_TYPES = ("COPY_ON_WRITE", "MERGE_ON_READ")
COLUMNS = ["id", "q", "s", "tags", "attrs", "tip"]


def _create(path: Path, table_type: str) -> HudiTable:
    config = new_table_config(
        "t", table_type=table_type, record_key_fields=["id"], partition_fields=["p"], ordering_fields=["ts"]
    )
    return HudiTable.create(str(path), config)


def _first(ids: list[str], ts: int = 1) -> pa.Table:
    n = len(ids)
    return pa.table(
        {
            "id": ids,
            "p": ["x" if i % 2 else "y" for i in range(n)],
            "ts": pa.array([ts] * n, pa.int64()),
            "q": pa.array(range(n), pa.int32()),
            "s": pa.array([{"m": i} for i in range(n)], pa.struct([("m", pa.int32())])),
            "tags": pa.array([[{"a": i}] for i in range(n)], pa.list_(pa.struct([("a", pa.int32())]))),
            "attrs": pa.array(
                [[("k", {"a": i})] for i in range(n)], pa.map_(pa.string(), pa.struct([("a", pa.int32())]))
            ),
        }
    )


def _evolved(ids: list[str], ts: int = 2) -> pa.Table:
    """The first batch's columns with q widened to long, a new member everywhere nested, and a new column tip."""
    n = len(ids)
    member = pa.struct([("a", pa.int32()), ("b", pa.string())])
    return pa.table(
        {
            "id": ids,
            "p": ["x" if i % 2 else "y" for i in range(n)],
            "ts": pa.array([ts] * n, pa.int64()),
            "q": pa.array([10**12 + i for i in range(n)], pa.int64()),
            "s": pa.array(
                [{"m": i, "n": f"n{i}"} for i in range(n)], pa.struct([("m", pa.int32()), ("n", pa.string())])
            ),
            "tags": pa.array([[{"a": i, "b": "t"}] for i in range(n)], pa.list_(member)),
            "attrs": pa.array([[("k", {"a": i, "b": "v"})] for i in range(n)], pa.map_(pa.string(), member)),
            "tip": pa.array([0.5 * i for i in range(n)], pa.float64()),
        }
    )


def _rows(table: pa.Table) -> list[dict[str, Any]]:
    return table.select(COLUMNS).sort_by("id").to_pylist()


def _hudi_rs(path: Path) -> list[dict[str, Any]]:
    batches = hudi.HudiTableBuilder.from_base_uri(str(path)).build().read(hudi.HudiReadOptions())
    return _rows(pa.Table.from_batches(batches))


def _expected_after_evolution() -> list[dict[str, Any]]:
    """k0 and k1 rewritten by the evolved batch; k2 and k3 as first written, read with nulls and casts."""
    new = _evolved(["k0", "k1"]).to_pylist()
    old = _first(["k0", "k1", "k2", "k3"]).to_pylist()[2:]
    for r in old:
        r["s"] = {**r["s"], "n": None}
        r["tags"] = [{**t, "b": None} for t in r["tags"]]
        r["attrs"] = [(k, {**v, "b": None}) for k, v in r["attrs"]]
        r["tip"] = None
    return sorted(({c: r[c] for c in COLUMNS} for r in new + old), key=lambda r: r["id"])


def _state(path: Path) -> tuple[list[str], list[tuple[str, bytes]]]:
    """Every file under the table with its bytes, and the timeline: what a refused write must not change."""
    files = sorted((str(p.relative_to(path)), p.read_bytes()) for p in path.rglob("*") if p.is_file())
    table = HudiTable.open(str(path))
    return [f"{i.requested_time}.{i.action.value}.{i.state.value}" for i in table.timeline.instants], files


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_new_columns_nested_members_and_widened_types_read_everywhere(tmp_path: Path, table_type: str) -> None:
    table = _create(tmp_path, table_type)
    first = WriteClient(table).upsert(_first(["k0", "k1", "k2", "k3"]))
    WriteClient(table.reload()).upsert(_evolved(["k0", "k1"]))
    table = table.reload()

    schema = table.schema()
    assert schema.names == ["id", "p", "ts", "q", "s", "tags", "attrs", "tip"]  # new columns after the table's
    assert schema.field("q").type == pa.int64()
    assert schema.field("s").type == pa.struct([("m", pa.int32()), ("n", pa.string())])
    assert schema.field("tags").type.value_type.names == ["a", "b"]
    assert schema.field("attrs").type.item_type.names == ["a", "b"]
    # The commit records the evolved schema; the create schema stays as the table was created.
    latest = table.timeline.read_commit_metadata(table.latest_commit())  # type: ignore[arg-type]
    assert [f["name"] for f in json.loads(latest.extra_metadata["schema"])["fields"]][-1] == "tip"
    assert "tip" not in (table.config.create_schema or "")

    expected = _expected_after_evolution()
    assert _rows(read_table(table)) == expected
    assert _hudi_rs(tmp_path) == expected
    # Time travel to the first commit uses that commit's schema, as Apache Hudi's resolver does.
    old = read_table(table, as_of=first.instant.requested_time)
    assert "tip" not in old.column_names
    assert old.schema.field("q").type == pa.int32()
    # An incremental read of the evolved commit alone (after the first's completion time, tables v8+).
    changes = read_table(table, query_type="incremental", begin=first.instant.completion_time)
    assert _rows(changes) == expected[:2]
    # Filters on added and widened columns, with data skipping on the metadata table's column stats
    # (older files have no stats for tip and int stats for q): no file is wrongly pruned.
    skipping = {"hoodie.enable.data.skipping": "true"}
    for options in ({}, skipping):
        assert sorted(read_table(table, filters=[("tip", "is null", None)], options=options)["id"].to_pylist()) == [
            "k2",
            "k3",
        ]
        assert sorted(read_table(table, filters=[("q", ">", 2)], options=options)["id"].to_pylist()) == [
            "k0",
            "k1",
            "k3",
        ]


def test_compaction_log_compaction_and_clustering_rewrite_older_files_in_the_new_schema(tmp_path: Path) -> None:
    table = _create(tmp_path, "MERGE_ON_READ")
    WriteClient(table).upsert(_first(["k0", "k1", "k2", "k3"]))
    logs = HudiSettings(services={"log_compaction": {"inline": True, "blocks_threshold": 2}})  # type: ignore[arg-type]
    WriteClient(table.reload()).upsert(_first(["k2"], ts=0))  # an older log block of the first schema
    ran = WriteClient(table.reload(), logs).upsert(_evolved(["k0", "k1"])).services
    table = table.reload()
    assert [(r.service, r.executed) for r in ran] == [("log_compaction", True)]
    expected = _expected_after_evolution()
    assert _rows(read_table(table)) == expected

    compact = HudiSettings(services={"compaction": {"inline": True, "max_delta_commits": 1}})  # type: ignore[arg-type]
    ran = WriteClient(table, compact).upsert(_evolved(["k0", "k1"], ts=1)).services  # older than stored: no change
    table = table.reload()
    assert ("compaction", True) in [(r.service, r.executed) for r in ran]
    assert all(not s.has_log_files for s in table.latest_file_slices())
    assert _rows(read_table(table)) == expected
    assert _hudi_rs(tmp_path) == expected

    cluster = HudiSettings(services={"clustering": {"inline": True, "max_commits": 1}})  # type: ignore[arg-type]
    ran = WriteClient(table, cluster).upsert(_evolved(["k0", "k1"], ts=1)).services
    table = table.reload()
    assert ("clustering", True) in [(r.service, r.executed) for r in ran]
    assert _rows(read_table(table)) == expected
    assert _hudi_rs(tmp_path) == expected


@pytest.mark.parametrize(
    ("column", "values", "table_type"),
    [
        ("q", pa.array([1], pa.int16()), "int32"),  # promoted into the table's type: no change
        ("q", pa.array(["1"], pa.string()), "string"),  # int data reads as string: the table widens
        ("q", pa.array([1.5], pa.float32()), "float"),
        ("ts", pa.array([1.5], pa.float64()), "double"),
    ],
)
def test_type_changes_follow_hudis_rules(tmp_path: Path, column: str, values: pa.Array, table_type: str) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE")
    WriteClient(table).upsert(_first(["k0", "k1"]))
    batch = _first(["k0"], ts=5)
    batch = batch.set_column(batch.schema.get_field_index(column), column, values)
    WriteClient(table.reload()).upsert(batch)
    table = table.reload()
    assert table.schema().field(column).type == pa.type_for_alias(table_type)
    rows = read_table(table).sort_by("id")
    assert rows.schema.field(column).type == pa.type_for_alias(table_type)
    assert rows.num_rows == 2


@pytest.mark.parametrize(
    ("batch", "error", "column"),
    [
        (lambda b: b.set_column(3, "q", pa.array(["x"] * b.num_rows).cast(pa.binary())), ColumnTypeError, "q"),
        (lambda b: b.set_column(2, "ts", pa.array([1] * b.num_rows, pa.int32())).set_column(
            3, "q", pa.array([True] * b.num_rows)), ColumnTypeError, "q"),
        (lambda b: b.append_column(pa.field("tip", pa.float64(), nullable=False), pa.array([1.0] * b.num_rows)),
         NewColumnError, "tip"),
        (lambda b: b.set_column(4, "s", pa.array([{"m": 1, "z": 2}] * b.num_rows, pa.struct(
            [("m", pa.int32()), pa.field("z", pa.int32(), nullable=False)]))), NewColumnError, "s.z"),
        (lambda b: b.set_column(4, "s", pa.array([{"m": True}] * b.num_rows)), ColumnTypeError, "s.m"),
        (lambda b: b.set_column(5, "tags", pa.array([[1]] * b.num_rows)), ColumnTypeError, "tags.element"),
        (lambda b: b.append_column("nothing", pa.nulls(b.num_rows)), NewColumnError, "nothing"),
    ],
    ids=["int-to-bytes", "long-to-int-and-bool", "required-column", "required-member", "narrowed-member",
         "element-not-record", "null-typed"],
)  # fmt: skip
@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_incompatible_changes_fail_before_anything_is_written(
    tmp_path: Path, table_type: str, batch: Any, error: type[SchemaMismatchError], column: str
) -> None:
    table = _create(tmp_path, table_type)
    WriteClient(table).upsert(_first(["k0", "k1"]))
    before = _state(tmp_path)
    with pytest.raises(error) as raised:
        WriteClient(table.reload()).upsert(batch(_first(["k0", "k2"], ts=3)))
    assert raised.value.column == column
    if isinstance(raised.value, ColumnTypeError):
        assert raised.value.incoming in str(raised.value) or raised.value.table is None
    assert _state(tmp_path) == before


@pytest.mark.parametrize("table_type", TABLE_TYPES)
def test_a_batch_lacking_a_column_keeps_it_in_the_table_schema(tmp_path: Path, table_type: str) -> None:
    table = _create(tmp_path, table_type)
    WriteClient(table).upsert(_first(["k0", "k1"]))
    # k0 is updated partially (no s: its stored s is kept) while tip is added; k2 is new (s null).
    batch = pa.concat_tables([_evolved(["k0"]), _evolved(["k2"]).set_column(1, "p", pa.array(["y"]))])
    WriteClient(table.reload()).upsert(batch.drop_columns(["s"]))
    table = table.reload()
    assert table.schema().names == ["id", "p", "ts", "q", "s", "tags", "attrs", "tip"]
    rows = read_table(table).sort_by("id")
    assert rows["s"].to_pylist() == [{"m": 0}, {"m": 1}, None]
    assert rows["tip"].to_pylist() == [0.0, None, 0.0]
    assert _hudi_rs(tmp_path)[0]["s"] == {"m": 0}


def test_avro_schema_validate_refuses_a_batch_dropping_a_column(tmp_path: Path) -> None:
    table = _create(tmp_path, "MERGE_ON_READ")
    WriteClient(table).upsert(_first(["k0", "k1"]))
    before = _state(tmp_path)
    validate = HudiSettings.from_hoodie_options({"hoodie.avro.schema.validate": "true"}, env=False)
    with pytest.raises(SchemaMismatchError) as raised:
        WriteClient(table.reload(), validate).upsert(_first(["k0"], ts=2).drop_columns(["tags"]))
    assert raised.value.column == "tags"
    assert "hoodie.avro.schema.validate" in str(raised.value)
    assert _state(tmp_path) == before
    WriteClient(table.reload(), validate).upsert(_evolved(["k0"]))  # adding columns is still evolution
    assert "tip" in table.reload().schema().names


# --------------------------------------------------------------------------- law: old rows survive evolution
#: Allowed changes of a leaf column: table type -> types a batch may widen it to (Hudi's compatibility
#: check reads the table's data with them, and they are not promoted into the table's type).
_WIDENINGS: dict[pa.DataType, list[pa.DataType]] = {
    pa.int32(): [pa.int64(), pa.float32(), pa.float64(), pa.string()],
    pa.int64(): [pa.float32(), pa.float64(), pa.string()],
    pa.float32(): [pa.float64(), pa.string()],
    pa.float64(): [pa.string()],
    pa.string(): [],  # bytes into a string column is promoted (Hudi rewrites it to text): no widening
}


@st.composite
def _changes(draw: st.DrawFn) -> list[tuple[str, str, pa.DataType]]:
    """A random sequence of allowed changes: ("add", name, type) or ("widen", column, new type)."""
    types = {"c0": pa.int32()}
    out: list[tuple[str, str, pa.DataType]] = []
    for step in range(draw(st.integers(1, 4))):
        widenable = sorted(c for c, t in types.items() if _WIDENINGS.get(t))
        if widenable and draw(st.booleans()):
            column = draw(st.sampled_from(widenable))
            types[column] = draw(st.sampled_from(_WIDENINGS[types[column]]))
            out.append(("widen", column, types[column]))
        else:
            name = f"c{step + 1}"
            types[name] = draw(st.sampled_from(list(_WIDENINGS)))
            out.append(("add", name, types[name]))
    return out


def _value(t: pa.DataType, i: int) -> object:
    if pa.types.is_string(t):
        return f"s{i}"
    if pa.types.is_binary(t):
        return f"s{i}".encode()
    return i


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(changes=_changes(), mor=st.booleans())
def test_old_rows_read_back_after_any_sequence_of_allowed_changes(
    tmp_path_factory: pytest.TempPathFactory, changes: list[tuple[str, str, pa.DataType]], mor: bool
) -> None:
    path = tmp_path_factory.mktemp("law")
    table = _create(path, "MERGE_ON_READ" if mor else "COPY_ON_WRITE")
    types: dict[str, pa.DataType] = {"c0": pa.int32()}
    written: dict[str, dict[str, object]] = {}  # key -> the values its batch carried
    for step, change in enumerate([("add", "c0", pa.int32()), *changes]):
        _, column, typ = change
        types[column] = typ
        key = f"k{step}"
        batch = {"id": [key], "p": ["x"], "ts": pa.array([step], pa.int64())}
        batch |= {c: pa.array([_value(t, step)], t) for c, t in types.items()}
        WriteClient(table.reload()).upsert(pa.table(batch))
        written[key] = {c: _value(t, step) for c, t in types.items()}
    table = table.reload()
    schema = table.schema()
    assert [f.name for f in schema][3:] == list(types)  # columns in the order they were added
    rows = {r["id"]: r for r in read_table(table).to_pylist()}
    for key, values in written.items():
        for column in types:
            got, value, target = rows[key][column], values.get(column), schema.field(column).type
            if value is None:  # the column is newer than the row: null
                assert got is None, (key, column, changes)
            elif isinstance(value, str):
                assert got == (value.encode() if pa.types.is_binary(target) else value), (key, column, changes)
            elif pa.types.is_string(target):
                # The number as Java prints it in a type it held (a file rewritten while the column
                # was a float holds 1.0, one written while it was an int, 1).
                assert got in (str(value), f"{float(value)}"), (key, column, changes)
            else:
                assert got == value, (key, column, changes)


# --------------------------------------------------------------------------- concurrent writers (OCC)
_OCC = HudiSettings(write={"concurrency_mode": "optimistic_concurrency_control"})


def _occ_batch(key: str, city: str, **extra: pa.Array) -> pa.Table:
    base = {"id": [key], "p": [city], "ts": pa.array([5], pa.int64()), "q": pa.array([7], pa.int32())}
    return pa.table(base | extra)


def test_a_concurrent_writer_keeps_the_columns_another_added(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE")
    WriteClient(table, _OCC).upsert(_occ_batch("seed", "x"))
    evolving = _occ_batch("a", "y", tip=pa.array([1.5]))
    plain = _occ_batch("b", "z")
    jobs = [(WriteClient(HudiTable.open(str(tmp_path)), _OCC), d) for d in (evolving, plain)]
    results = race_upserts(monkeypatch, jobs)
    assert not isinstance(results[1], Exception), results  # the plain write always commits
    table = table.reload()
    rows = {r["id"]: r.get("tip") for r in read_table(table).to_pylist()}
    if isinstance(results[0], Exception):
        # The plain write, requested later, committed first: the evolving one would be hidden by its
        # schema, so it fails (typed) and leaves nothing behind; a retry plans against the new schema.
        assert isinstance(results[0], SchemaEvolutionConflictError), results
        assert rows == {"seed": None, "b": None}
        assert not table.timeline.pending()
        WriteClient(table, _OCC).upsert(evolving)
        table = table.reload()
        rows = {r["id"]: r["tip"] for r in read_table(table).to_pylist()}
    # Whichever committed last, the table keeps tip (Hudi's SimpleSchemaConflictResolutionStrategy).
    assert table.schema().names[-1] == "tip"
    assert rows == {"seed": None, "a": 1.5, "b": None}


def test_concurrent_writers_evolving_differently_fail_the_later(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _create(tmp_path, "COPY_ON_WRITE")
    WriteClient(table, _OCC).upsert(_occ_batch("seed", "x"))
    jobs = [
        (WriteClient(HudiTable.open(str(tmp_path)), _OCC), _occ_batch("a", "y", tip=pa.array([1.5]))),
        (WriteClient(HudiTable.open(str(tmp_path)), _OCC), _occ_batch("b", "z", coupon=pa.array(["c"]))),
    ]
    results = race_upserts(monkeypatch, jobs)
    failed = [r for r in results if isinstance(r, Exception)]
    assert len(failed) == 1, results
    assert isinstance(failed[0], SchemaEvolutionConflictError), results
    table = table.reload()
    winner = "tip" if isinstance(results[1], Exception) else "coupon"
    assert table.schema().names[-1] == winner
    assert sorted(r["id"] for r in read_table(table).to_pylist()) == ["a" if winner == "tip" else "b", "seed"]
    assert not table.timeline.pending()  # the loser was rolled back
