"""Every Avro logical type we write is stored as Apache Hudi stores it, and reads back value for value.

The Avro schema of each commit (``extraMetadata.schema``) and the Parquet types of every file must
agree the way parquet-avro (Apache Hudi's ``HoodieAvroParquetWriter``) maps them: ``timestamp-millis``
is INT64 ``TIMESTAMP(MILLIS, isAdjustedToUTC=true)``, ``local-timestamp-micros`` INT64
``TIMESTAMP(MICROS, false)``, ``time-millis`` INT32 ``TIME(MILLIS, true)``, a ``fixed`` decimal a
FIXED_LEN_BYTE_ARRAY of its size, and so on (:func:`parquet_type_of`, checked against the files
Apache Hudi wrote in the fixture tables). Checked in base files (inserts, copy-on-write rewrites,
compactions) and merge-on-read log blocks (Avro blocks: their SCHEMA header; Parquet blocks: their
Parquet content too). Our read and hudi-rs's read equal the rows written.

Two hudi-rs 0.5.0 limitations shape the cases: it cannot read a table whose schema has a
``local-timestamp-*`` field (its Avro-to-Arrow conversion of those types is ``todo!()`` and panics),
so timezone-naive timestamps are compared with our read and the rows written only; and it cannot
merge a timestamp nested in a record from an Avro log block (it types the block's as ``+00:00``, the
base file's as ``UTC``, and refuses to reconcile them, whatever the unit, Spark's ``timestamp-micros``
too), so the nested record of the Avro-block layout holds no timestamp.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework import open_table_service
from hudi_framework.config import HudiSettings
from hudi_framework.log import DataBlock, read_log_file
from hudi_framework.log.blocks import BlockType
from hudi_framework.log.framing import PREFIX_SIZE, decode_frame_body
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action
from hudi_framework.write.client import WriteClient
from tests.acceptance.oracle import canonical, hudi_rs_read
from tests.fixture_tables import FixtureTable, all_fixture_tables

UTC = dt.UTC
KEY = "k"


# ------------------------------------------------------------------------------ the oracle
def _time(unit: str, *, utc: bool, kind: str = "Timestamp") -> dict[str, Any]:
    return {"Type": kind, "isAdjustedToUTC": utc, "timeUnit": unit}


#: parquet-avro's ``AvroSchemaConverter``: Avro logical type -> (physical type, logical type).
_LOGICAL: dict[str, tuple[str, dict[str, Any]]] = {
    "date": ("INT32", {"Type": "Date"}),
    "time-millis": ("INT32", _time("milliseconds", utc=True, kind="Time")),
    "time-micros": ("INT64", _time("microseconds", utc=True, kind="Time")),
    "timestamp-millis": ("INT64", _time("milliseconds", utc=True)),
    "timestamp-micros": ("INT64", _time("microseconds", utc=True)),
    "local-timestamp-millis": ("INT64", _time("milliseconds", utc=False)),
    "local-timestamp-micros": ("INT64", _time("microseconds", utc=False)),
}
_PRIMITIVE = {"boolean": "BOOLEAN", "int": "INT32", "long": "INT64", "float": "FLOAT", "double": "DOUBLE"}
#: Parquet logical-type keys compared (pyarrow adds writer flags such as ``is_from_converted_type``).
_COMPARED = ("Type", "isAdjustedToUTC", "timeUnit", "precision", "scale")


def parquet_type_of(avro: Any) -> tuple[str, dict[str, Any]]:
    """The Parquet (physical type, logical type) parquet-avro writes for the Avro leaf type ``avro``."""
    if isinstance(avro, list):
        (avro,) = [b for b in avro if b != "null"]
    if isinstance(avro, str):
        if avro == "string":
            return "BYTE_ARRAY", {"Type": "String"}
        if avro == "bytes":
            return "BYTE_ARRAY", {"Type": "None"}
        return _PRIMITIVE[avro], {"Type": "None"}
    logical = avro.get("logicalType")
    if logical == "decimal":
        physical = f"FIXED_LEN_BYTE_ARRAY({avro['size']})" if avro["type"] == "fixed" else "BYTE_ARRAY"
        return physical, {"Type": "Decimal", "precision": avro["precision"], "scale": avro.get("scale", 0)}
    if logical == "uuid":  # a string (parquet.avro.write-parquet-uuid is off by default)
        return "BYTE_ARRAY", {"Type": "String"}
    if logical in _LOGICAL:
        return _LOGICAL[logical]
    if avro["type"] == "fixed":
        return f"FIXED_LEN_BYTE_ARRAY({avro['size']})", {"Type": "None"}
    return parquet_type_of(avro["type"])


def _avro_leaves(fields: list[dict[str, Any]], prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(Parquet column path, Avro leaf type) of every top-level and record-nested primitive field."""
    for f in fields:
        typ = f["type"]
        branch = next(b for b in typ if b != "null") if isinstance(typ, list) else typ
        path = (*prefix, f["name"])
        if isinstance(branch, dict) and branch.get("type") == "record":
            yield from _avro_leaves(branch["fields"], path)
        elif isinstance(branch, dict) and branch.get("type") == "array":
            items = branch["items"]
            item = next(b for b in items if b != "null") if isinstance(items, list) else items
            yield (*path, "list", "element"), item  # the 3-level list of Parquet's spec
        elif not (isinstance(branch, dict) and branch.get("type") == "map"):
            yield path, branch


def _parquet_leaves(schema: pq.ParquetSchema) -> dict[tuple[str, ...], tuple[str, dict[str, Any]]]:
    out = {}
    for i in range(len(schema)):
        column = schema.column(i)
        physical = column.physical_type
        if physical == "FIXED_LEN_BYTE_ARRAY":
            physical = f"FIXED_LEN_BYTE_ARRAY({column.length})"
        logical = json.loads(column.logical_type.to_json())
        out[tuple(column.path.split("."))] = (physical, {k: logical[k] for k in _COMPARED if k in logical})
    return out


def assert_parquet_matches_avro(
    parquet: pq.ParquetFile, avro: dict[str, Any], what: str, *, lists: bool = True
) -> None:
    """Every Avro leaf (below lists too, when ``lists``) has the Parquet type parquet-avro gives it."""
    leaves = _parquet_leaves(parquet.schema)
    checked = 0
    for path, leaf in _avro_leaves(avro["fields"]):
        if "list" in path and not lists:
            continue
        assert path in leaves, f"{what}: no Parquet column {'.'.join(path)}"
        assert leaves[path] == parquet_type_of(leaf), f"{what}: column {'.'.join(path)} vs Avro {leaf}"
        checked += 1
    assert checked, what


FIXTURES = [t for t in all_fixture_tables() if not t.is_lance and "empty" not in t.name]


@pytest.mark.parametrize("fixture", FIXTURES, ids=[t.id for t in FIXTURES])
def test_the_oracle_is_what_apache_hudi_writes(
    fixture: FixtureTable, extract_fixture: Any
) -> None:  # fmt: skip
    """Base files Apache Hudi wrote (Avro path: ``parquet.avro.schema`` in the footer) agree with
    :func:`parquet_type_of` (its 2-level lists are left out)."""
    base, _ = extract_fixture(fixture)
    files = sorted(p for p in Path(base).rglob("*.parquet") if ".hoodie" not in p.parts)
    checked = 0
    for path in files:
        parquet = pq.ParquetFile(path)
        footer = parquet.schema_arrow.metadata or {}
        if b"parquet.avro.schema" in footer:
            assert_parquet_matches_avro(parquet, json.loads(footer[b"parquet.avro.schema"]), str(path), lists=False)
            checked += 1
    if not checked:
        pytest.skip("no Avro-path base file (Spark row writer only)")


# ------------------------------------------------------------------------------ the table
def _ts(seconds: int, micros: int = 0) -> dt.datetime:
    return dt.datetime(1970, 1, 1) + dt.timedelta(seconds=seconds, microseconds=micros)


#: Column -> (Arrow type written, Avro type recorded). Values come from :func:`_values`.
AWARE: dict[str, tuple[pa.DataType, dict[str, Any]]] = {
    "ts_s": (pa.timestamp("s", tz="UTC"), {"type": "long", "logicalType": "timestamp-millis"}),
    "ts_ms": (pa.timestamp("ms", tz="UTC"), {"type": "long", "logicalType": "timestamp-millis"}),
    "ts_us": (pa.timestamp("us", tz="UTC"), {"type": "long", "logicalType": "timestamp-micros"}),
    "ts_ns": (pa.timestamp("ns", tz="America/New_York"), {"type": "long", "logicalType": "timestamp-micros"}),
}
NAIVE: dict[str, tuple[pa.DataType, dict[str, Any]]] = {
    "ts_s": (pa.timestamp("s"), {"type": "long", "logicalType": "local-timestamp-millis"}),
    "ts_ms": (pa.timestamp("ms"), {"type": "long", "logicalType": "local-timestamp-millis"}),
    "ts_us": (pa.timestamp("us"), {"type": "long", "logicalType": "local-timestamp-micros"}),
    "ts_ns": (pa.timestamp("ns"), {"type": "long", "logicalType": "local-timestamp-micros"}),
}
OTHERS: dict[str, tuple[pa.DataType, dict[str, Any]]] = {
    "d32": (pa.date32(), {"type": "int", "logicalType": "date"}),
    "d64": (pa.date64(), {"type": "int", "logicalType": "date"}),
    "t_s": (pa.time32("s"), {"type": "int", "logicalType": "time-millis"}),
    "t_ms": (pa.time32("ms"), {"type": "int", "logicalType": "time-millis"}),
    "t_us": (pa.time64("us"), {"type": "long", "logicalType": "time-micros"}),
    "t_ns": (pa.time64("ns"), {"type": "long", "logicalType": "time-micros"}),
    "dec4": (pa.decimal128(4, 2), {"type": "fixed", "size": 2, "logicalType": "decimal", "precision": 4, "scale": 2}),
    "dec38": (
        pa.decimal128(38, 6),
        {"type": "fixed", "size": 16, "logicalType": "decimal", "precision": 38, "scale": 6},
    ),
    "fx": (pa.binary(3), {"type": "fixed", "size": 3}),
}


def _columns(zone: str) -> dict[str, tuple[pa.DataType, dict[str, Any]]]:
    stamps = AWARE if zone == "aware" else NAIVE
    return {**stamps, **OTHERS}


def _values(name: str, typ: pa.DataType, n: int, version: int) -> pa.Array:
    """``n`` values of column ``name`` for write ``version``: negative, large and null ones included."""
    out: list[Any] = []
    for i in range(n):
        j = i + 7 * version
        if i % 4 == 3:
            out.append(None)
            continue
        sign = -1 if i % 2 else 1
        if pa.types.is_timestamp(typ):
            sub = {"s": 0, "ms": 123_000, "us": 123_456, "ns": 654_321}[typ.unit]
            value = _ts(sign * (86_400 * 365 * (j + 1) + j), sub)
            out.append(value.replace(tzinfo=UTC) if typ.tz else value)
        elif pa.types.is_date(typ):
            out.append(dt.date(1970, 1, 1) + dt.timedelta(days=sign * (1000 * j + 1)))
        elif pa.types.is_time(typ):
            per_second = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[typ.unit]
            fraction = {"s": 0, "ms": 250, "us": 250_001, "ns": 250_001_000}[typ.unit]
            out.append((3600 * (j % 24) + 61) * per_second + fraction)
        elif pa.types.is_decimal(typ):
            widest = Decimal(f"{'9' * (typ.precision - typ.scale)}.{'9' * typ.scale}")
            # copy_negate: arithmetic would round to the context's 28 digits.
            out.append(Decimal(sign * (j + 1)) if i % 3 else widest.copy_negate() if sign < 0 else widest)
        else:
            out.append(bytes([j % 256, 0, 255]))
    return pa.array(out, typ)


def _nested_timestamp(layout: str) -> bool:
    return layout != "mor-avro"  # see the module docstring


def _nested(n: int, version: int, zone: str, layout: str) -> dict[str, pa.Array]:
    stamp = pa.timestamp("ms", tz="UTC" if zone == "aware" else None)
    children = {"d": _values("d", pa.decimal128(10, 3), n, version)}
    if _nested_timestamp(layout):
        children["t"] = _values("t", stamp, n, version)
    inner = pa.StructArray.from_arrays(list(children.values()), names=list(children))
    dates = _values("d", pa.date32(), n, version).to_pylist()
    lists = pa.array([[v, None] if v is not None else None for v in dates], pa.list_(pa.date32()))
    return {"st": inner, "lst": lists}


def _batch(keys: list[str], version: int, zone: str, layout: str) -> pa.Table:
    n = len(keys)
    columns: dict[str, pa.Array] = {KEY: pa.array(keys), "ord": pa.array([version] * n, pa.int64())}
    for name, (typ, _) in _columns(zone).items():
        columns[name] = _values(name, typ, n, version)
    return pa.table({**columns, **_nested(n, version, zone, layout)})


def _expected_avro(zone: str, layout: str) -> dict[str, Any]:
    out: dict[str, Any] = {name: avro for name, (_, avro) in _columns(zone).items()}
    out["st"] = {"d": {"type": "fixed", "size": 5, "logicalType": "decimal", "precision": 10, "scale": 3}}
    if _nested_timestamp(layout):
        logical = "timestamp-millis" if zone == "aware" else "local-timestamp-millis"
        out["st"]["t"] = {"type": "long", "logicalType": logical}
    out["lst"] = {"type": "int", "logicalType": "date"}
    return out


def _strip_names(avro: Any) -> Any:
    """An Avro leaf without its naming attributes (``fixed`` names depend on the table name)."""
    if isinstance(avro, list):
        (avro,) = [b for b in avro if b != "null"]
    if isinstance(avro, dict):
        return {k: v for k, v in avro.items() if k not in ("name", "namespace")}
    return avro


def assert_schema_declares(avro: dict[str, Any], zone: str, layout: str, what: str) -> None:
    """The recorded Avro schema gives every column the logical type Apache Hudi's writer gives it."""
    fields = {f["name"]: f["type"] for f in avro["fields"]}
    for name, want in _expected_avro(zone, layout).items():
        if name == "st":
            record = _strip_names(fields[name])
            got = {f["name"]: _strip_names(f["type"]) for f in record["fields"]}
            assert got == want, f"{what}: {name}"
        elif name == "lst":
            assert _strip_names(_strip_names(fields[name])["items"]) == want, f"{what}: {name}"
        else:
            assert _strip_names(fields[name]) == want, f"{what}: {name}"


# ------------------------------------------------------------------------------ the checks
def _data_columns(zone: str) -> list[str]:
    return [KEY, "ord", *_columns(zone), "st", "lst"]


def _check_reads(table: HudiTable, expected: pa.Table, zone: str) -> None:
    columns = _data_columns(zone)
    want = canonical(expected, columns)
    ours = read_table(table.reload())
    assert canonical(ours, columns) == want, "our read"
    if zone == "aware":
        theirs = hudi_rs_read(table.base_uri)
        assert canonical(theirs, columns) == want, "hudi-rs"


def _check_files(table: HudiTable, zone: str, layout: str) -> None:
    """Every commit's schema, and every base file and log block of the table, against the oracle."""
    timeline = table.reload().timeline
    base = Path(table.base_uri)
    for instant in timeline.commits_timeline():
        schema = json.loads(timeline.read_commit_metadata(instant).extra_metadata["schema"])
        assert_schema_declares(schema, zone, layout, f"{instant} extraMetadata.schema")
        for stat in timeline.read_commit_metadata(instant).write_stats():
            assert stat.path is not None
            if stat.path.endswith(".parquet"):
                assert_parquet_matches_avro(pq.ParquetFile(base / stat.path), schema, f"{instant}: {stat.path}")
            else:
                _check_log_file(table, stat.path, zone, layout)


def _check_log_file(table: HudiTable, key: str, zone: str, layout: str) -> None:
    raw = table.storage.read(key)
    blocks = [b for b in read_log_file(table.storage, key) if isinstance(b, DataBlock)]
    assert blocks, key
    for block in blocks:
        schema = block.avro_schema
        assert_schema_declares(schema, zone, layout, f"{key} SCHEMA header")
        if block.block_type is BlockType.PARQUET_DATA:
            assert block.position is not None
            start = block.position.offset
            frame = decode_frame_body(raw[start + PREFIX_SIZE : start + block.position.size])
            assert_parquet_matches_avro(pq.ParquetFile(pa.BufferReader(frame.content)), schema, f"{key} parquet block")


def _compact(table: HudiTable, settings: HudiSettings) -> None:
    service, host = open_table_service(table, settings, "compaction")
    planned = service.schedule(host)
    assert planned is not None
    service.execute(host, planned)


def _merge(expected: pa.Table, update: pa.Table) -> pa.Table:
    keys = set(update.column(KEY).to_pylist())
    kept = expected.filter(pa.array([k not in keys for k in expected.column(KEY).to_pylist()]))
    return pa.concat_tables([kept, update])


@pytest.mark.parametrize("zone", ["aware", "naive"])
@pytest.mark.parametrize("layout", ["cow", "mor-avro", "mor-parquet"])
def test_every_logical_type_round_trips(layout: str, zone: str, tmp_path: Path) -> None:
    table_type = "COPY_ON_WRITE" if layout == "cow" else "MERGE_ON_READ"
    config = new_table_config("types", table_type=table_type, record_key_fields=[KEY], ordering_fields=["ord"])
    table = HudiTable.create(str(tmp_path / "t"), config)
    options = {"hoodie.parquet.small.file.limit": "0"}  # updates go to logs, inserts to new groups
    if layout != "cow":
        options["hoodie.logfile.data.block.format"] = layout.split("-")[1]
    settings = HudiSettings.from_hoodie_options(options)
    client = WriteClient(table, settings)

    first = _batch([f"k{i}" for i in range(8)], 1, zone, layout)
    client.insert(first)
    update = _batch(["k1", "k2", "k3", "k9"], 2, zone, layout)
    client.upsert(update)
    expected = _merge(first, update)
    _check_files(table, zone, layout)
    _check_reads(table, expected, zone)
    if layout != "cow":
        assert any(s.has_log_files for s in table.reload().latest_file_slices())
        _compact(table.reload(), settings)
        assert table.reload().timeline.commits_timeline()[-1].action is Action.COMMIT
        _check_files(table, zone, layout)
        _check_reads(table, expected, zone)


def test_sub_microsecond_values_are_refused_not_truncated(tmp_path: Path) -> None:
    """Avro (and Spark) stop at microseconds: nanoseconds that would be lost fail the write, naming
    the column, instead of being dropped silently."""
    from hudi_framework.errors import SchemaMismatchError

    table = HudiTable.create(str(tmp_path / "t"), new_table_config("t", record_key_fields=[KEY]))
    rows = pa.table({KEY: ["a"], "ts": pa.array([1_000_000_001], pa.timestamp("ns", tz="UTC"))})
    with pytest.raises(SchemaMismatchError, match="'ts'"):
        WriteClient(table).insert(rows)
    assert table.reload().timeline.commits_timeline() == []


@pytest.mark.parametrize(
    ("column", "message"),
    [
        (pa.array([Decimal("1.5")], pa.decimal256(40, 2)), "at most 38 digits"),
        (pa.array([b"0123456789abcdef"], pa.uuid()), "no Avro counterpart"),
        (pa.array([5], pa.duration("s")), "no Avro counterpart"),
    ],
    ids=["decimal-40-digits", "uuid", "duration"],
)
def test_types_apache_hudi_cannot_store_are_refused(column: pa.Array, message: str, tmp_path: Path) -> None:
    """No Avro type of Apache Hudi's writer holds them: a typed error naming the column, nothing written."""
    from hudi_framework.errors import SchemaConversionError

    table = HudiTable.create(str(tmp_path / "t"), new_table_config("t", record_key_fields=[KEY]))
    with pytest.raises(SchemaConversionError, match=f"'x'.*{message}"):
        WriteClient(table).insert(pa.table({KEY: ["a"], "x": column}))
    assert table.reload().timeline.commits_timeline() == []
