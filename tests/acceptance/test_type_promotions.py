"""A write takes an incoming column into the table's column by the two types alone, as Apache Hudi does.

Regression: each column was cast to the table's type value by value, so a string column of numbers
went into a double column and the same column holding other text was refused; an int64 column went
into an int32 one while its values fitted. Now the schemas decide before anything is written: the
table's own Avro type, or a type Apache Hudi promotes into it (``model/promotion.py``), is written
with the values Hudi's promotion gives; a wider type whose reader takes the table's data widens the
table's column (schema evolution, ``model/evolution.py``); anything else is refused with a
``SchemaMismatchError`` naming the column and both types, whatever the values, and the table stays
as it was.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from decimal import Decimal
from pathlib import Path
from typing import Any

import hudi
import pyarrow as pa
import pytest

from hudi_framework.errors import (
    ColumnTypeError,
    ColumnValueError,
    SchemaEvolutionRequiredError,
    SchemaMismatchError,
)
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.vocabulary import WriteOperation
from hudi_framework.write.batch import normalised_schema
from hudi_framework.write.client import WriteClient
from tests.unit.model.test_promotion import AVRO, MATRIX, NAMES


def _table(path: Path, schema: pa.Schema, table_type: str = "COPY_ON_WRITE", ordering: str | None = None) -> HudiTable:
    config = new_table_config(
        "t", table_type=table_type, record_key_fields=["id"], ordering_fields=[ordering] if ordering else []
    )
    return HudiTable.create(str(path), config, schema=schema)


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _write(table: HudiTable, data: pa.Table, op: WriteOperation = WriteOperation.UPSERT) -> None:
    WriteClient(table.reload()).write(data, op)


def _refused(
    path: Path, data: pa.Table, error: type[SchemaMismatchError], op: WriteOperation = WriteOperation.UPSERT
) -> SchemaMismatchError:
    """Write ``data``, expect ``error``, and check the table is byte for byte as before."""
    before = _tree(path)
    with pytest.raises(error) as caught:
        _write(HudiTable.open(str(path)), data, op)
    assert _tree(path) == before
    return caught.value


def _ours(path: Path) -> list[dict[str, Any]]:
    rows = read_table(HudiTable.open(str(path)))
    data = rows.drop_columns([c for c in rows.column_names if c.startswith("_hoodie_")])
    return data.sort_by("id").to_pylist()


def _hudi_rs(path: Path) -> list[dict[str, Any]]:
    batches = hudi.HudiTableBuilder.from_base_uri(str(path)).build().read(hudi.HudiReadOptions())
    rows = pa.Table.from_batches(batches)
    data = rows.drop_columns([c for c in rows.column_names if c.startswith("_hoodie_")])
    return data.sort_by("id").to_pylist()


# --------------------------------------------------------------------------- the reported cases
@pytest.mark.parametrize("values", [["1.5", "2"], ["abc", "x"]], ids=["numeric-text", "other-text"])
def test_text_into_a_double_column_widens_it_to_string_whatever_it_holds(tmp_path: Path, values: list[str]) -> None:
    path = tmp_path / "t"
    table = _table(path, pa.schema([("id", pa.string()), ("v", pa.float64())]))
    _write(table, pa.table({"id": ["a", "b"], "v": [1.0, 2.0e7]}))
    _write(table, pa.table({"id": ["b", "c"], "v": values}))
    assert HudiTable.open(str(path)).schema().field("v").type == pa.string()
    # The older double reads as Java's text of it, as Apache Hudi's readers give it.
    assert _ours(path) == [{"id": "a", "v": "1.0"}, {"id": "b", "v": values[0]}, {"id": "c", "v": values[1]}]


def test_int64_into_int32_widens_the_table_to_long(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = _table(path, pa.schema([("id", pa.string()), ("n", pa.int32())]))
    _write(table, pa.table({"id": ["a"], "n": pa.array([1], pa.int32())}))
    _write(table, pa.table({"id": ["b"], "n": pa.array([2**40], pa.int64())}))
    assert HudiTable.open(str(path)).schema().field("n").type == pa.int64()
    assert _ours(path) == _hudi_rs(path) == [{"id": "a", "n": 1}, {"id": "b", "n": 2**40}]


def test_int32_into_int64_is_promoted(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = _table(path, pa.schema([("id", pa.string()), ("n", pa.int64())]))
    _write(table, pa.table({"id": ["a", "b"], "n": pa.array([1, 2], pa.int32())}))
    assert _ours(path) == _hudi_rs(path) == [{"id": "a", "n": 1}, {"id": "b", "n": 2}]
    assert HudiTable.open(str(path)).schema().field("n").type == pa.int64()  # the table's type is kept


# --------------------------------------------------------------------------- every type pair
def _tempting(name: str, target: str) -> pa.Array:
    """Values a value-by-value cast into ``target`` would take, where any exist."""
    t = AVRO[name]
    if name == "string":
        return pa.array(["2024-01-15" if target == "date" else "1"], t)
    if name in ("bytes", "fixed"):
        return pa.array([b"12345"], t)
    if name in ("boolean",):
        return pa.array([True], t)
    if name in ("int", "long", "float", "double"):
        return pa.array([1], pa.int64()).cast(t)
    if name == "decimal":
        return pa.array([Decimal("1.00")], t)
    if name == "date":
        return pa.array([dt.date(2024, 1, 15)], t)
    if name.startswith("time-"):
        return pa.array([dt.time(1, 2, 3)], t)
    return pa.array([dt.datetime(2024, 1, 15, 1, 2, 3)], pa.timestamp("us")).cast(t)


def _other(name: str) -> pa.Array:
    """Other values of the type: the verdict must not change with them."""
    t = AVRO[name]
    if name in ("string",):
        return pa.array(["not a value"], t)
    if name in ("bytes", "fixed"):
        return pa.array([b"\xff\xfe\xfd\xfc\xfb"], t)
    if name in ("int", "long"):
        return pa.array([2**31 - 1], t)
    if name in ("float", "double"):
        return pa.array([1.5e38], t)
    return pa.nulls(1, t)


@pytest.mark.parametrize("table_type", NAMES)
def test_every_type_pair_is_decided_by_the_types(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    table = _table(path, pa.schema([("id", pa.string()), ("c", AVRO[table_type])]))
    _write(table, pa.table({"id": ["first"], "c": pa.nulls(1, AVRO[table_type])}))
    for n, name in enumerate(NAMES):
        expected = MATRIX[name].split()[NAMES.index(table_type)]
        for values in (_tempting(name, table_type), _other(name)):
            data = pa.table({"id": [f"k{n}"], "c": values})
            if expected == "-":
                err = _refused(path, data, ColumnTypeError)
                assert err.column == "c", name
                assert not isinstance(err, SchemaEvolutionRequiredError), name
            else:
                break
        if expected == "E":  # the table's type widens to the incoming one: a table of its own
            evolved = tmp_path / f"evolved-{name}"
            _write(_table(evolved, table.schema()), pa.table({"id": ["first"], "c": pa.nulls(1, AVRO[table_type])}))
            _write(HudiTable.open(str(evolved)), pa.table({"id": [f"k{n}"], "c": _tempting(name, table_type)}))
            stored = HudiTable.open(str(evolved)).schema().field("c").type
            assert stored == normalised_schema(pa.schema([("c", AVRO[name])]), "t").field("c").type, name
            assert [r["id"] for r in _ours(evolved)] == ["first", f"k{n}"]
        if expected in "=P":
            _write(table, pa.table({"id": [f"k{n}"], "c": _tempting(name, table_type)}))
            assert HudiTable.open(str(path)).schema().field("c").type == AVRO[table_type]


# --------------------------------------------------------------------------- promoted values
#: (incoming values, table type, what Apache Hudi writes): HoodieAvroUtils' promotions.
PROMOTIONS: dict[str, tuple[pa.Array, pa.DataType, list[Any]]] = {
    "int_long": (pa.array([7, -7], pa.int32()), pa.int64(), [7, -7]),
    "int_float": (pa.array([16777217, 3], pa.int32()), pa.float32(), [16777216.0, 3.0]),
    "int_double": (pa.array([7, 2**31 - 1], pa.int32()), pa.float64(), [7.0, 2147483647.0]),
    "int_string": (pa.array([-7, 0], pa.int32()), pa.string(), ["-7", "0"]),
    "int_decimal": (pa.array([7, -12], pa.int32()), pa.decimal128(10, 2), [Decimal("7.00"), Decimal("-12.00")]),
    "long_float": (pa.array([2**53 + 1, 1], pa.int64()), pa.float32(), [9007199254740992.0, 1.0]),
    "long_double": (pa.array([2**53 + 1, -1], pa.int64()), pa.float64(), [9007199254740992.0, -1.0]),
    "long_string": (pa.array([2**53 + 1, -5], pa.int64()), pa.string(), ["9007199254740993", "-5"]),
    "long_decimal": (pa.array([2**40, -3], pa.int64()), pa.decimal128(20, 2), [Decimal(2**40), Decimal("-3.00")]),
    # Java goes through the float's text (Float.toString), not its binary value.
    "float_double": (pa.array([1.1, -0.3], pa.float32()), pa.float64(), [1.1, -0.3]),
    "float_string": (pa.array([1.1, 1e10], pa.float32()), pa.string(), ["1.1", "1.0E10"]),
    "float_decimal": (pa.array([1.005, -2.5], pa.float32()), pa.decimal128(10, 2), [Decimal("1.01"), Decimal("-2.50")]),
    "double_string": (pa.array([0.1 + 0.2, 1e7], pa.float64()), pa.string(), ["0.30000000000000004", "1.0E7"]),
    # BigDecimal(Double.toString(d)).setScale(2, HALF_UP): 1.005 is 1.00499999... in binary, "1.005" as text.
    "double_decimal": (
        pa.array([1.005, -0.125], pa.float64()),
        pa.decimal128(10, 2),
        [Decimal("1.01"), Decimal("-0.13")],
    ),
    "decimal_decimal": (
        pa.array([Decimal("1.50"), Decimal("-99999999.99")], pa.decimal128(10, 2)),
        pa.decimal128(12, 3),
        [Decimal("1.500"), Decimal("-99999999.990")],
    ),
    "decimal_string": (
        pa.array([Decimal("1.50"), Decimal("0.00000001")], pa.decimal128(10, 8)),
        pa.string(),
        ["1.50000000", "1E-8"],
    ),
    "date_string": (pa.array([dt.date(2024, 1, 5), dt.date(1969, 12, 31)]), pa.string(), ["2024-01-05", "1969-12-31"]),
    "string_bytes": (pa.array(["héllo", ""]), pa.binary(), ["héllo".encode(), b""]),
    "string_date": (pa.array(["2024-1-5", "2024-12-31"]), pa.date32(), [dt.date(2024, 1, 5), dt.date(2024, 12, 31)]),
    "string_decimal": (pa.array(["1.005", "-2e2"]), pa.decimal128(10, 2), [Decimal("1.01"), Decimal("-200.00")]),
    "bytes_string": (pa.array([b"abc", b"\xc3\xa9"]), pa.string(), ["abc", "é"]),
}


def _promotion_schema() -> pa.Schema:
    return pa.schema([("id", pa.string()), ("seq", pa.int64())] + [(c, t) for c, (_, t, _) in PROMOTIONS.items()])


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_promoted_values_are_the_values_hudi_writes(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    schema = _promotion_schema()
    table = _table(path, schema, table_type, ordering="seq")
    ids = ["a", "b"]
    # First the table's own types (base files), then the promoted batch updates both keys (logs on MOR).
    _write(table, pa.table({"id": ids, "seq": [1, 1], **{c: pa.nulls(2, t) for c, (_, t, _) in PROMOTIONS.items()}}))
    _write(table, pa.table({"id": ids, "seq": [2, 2], **{c: v for c, (v, _, _) in PROMOTIONS.items()}}))
    expected = [
        {"id": key, "seq": 2, **{c: want[i] for c, (_, _, want) in PROMOTIONS.items()}} for i, key in enumerate(ids)
    ]
    assert _ours(path) == expected
    assert _hudi_rs(path) == expected
    assert HudiTable.open(str(path)).schema() == schema


def test_not_a_number_is_a_value_error_not_a_type_verdict(tmp_path: Path) -> None:
    """Hudi accepts these promotions by type; a value with no counterpart then fails the write."""
    path = tmp_path / "t"
    schema = pa.schema([("id", pa.string()), ("d", pa.decimal128(3, 0)), ("day", pa.date32())])
    _write(_table(path, schema), pa.table({"id": ["a"], "d": pa.array([1], pa.int32()), "day": ["2024-01-01"]}))
    cases = [
        ({"d": pa.array(["abc"]), "day": pa.nulls(1, pa.date32())}, "d", "abc"),
        ({"d": pa.array([1000], pa.int32()), "day": pa.nulls(1, pa.date32())}, "d", "1000"),
        ({"d": pa.array([math.nan], pa.float64()), "day": pa.nulls(1, pa.date32())}, "d", "NaN"),
        ({"d": pa.nulls(1, pa.decimal128(3, 0)), "day": pa.array(["15/01/2024"])}, "day", "15/01/2024"),
    ]
    for columns, column, value in cases:
        err = _refused(path, pa.table({"id": ["b"], **columns}), ColumnValueError)
        assert (err.column, err.value) == (column, value)
    assert _ours(path) == [{"id": "a", "d": Decimal(1), "day": dt.date(2024, 1, 1)}]


# --------------------------------------------------------------------------- every write path
@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
def test_partial_updates_and_deletes_follow_the_same_rules(tmp_path: Path, table_type: str) -> None:
    path = tmp_path / "t"
    schema = pa.schema([("id", pa.string()), ("seq", pa.int64()), ("n", pa.int64()), ("v", pa.float64())])
    table = _table(path, schema, table_type, ordering="seq")
    _write(table, pa.table({"id": ["a", "b"], "seq": [1, 1], "n": [1, 2], "v": [1.0, 2.0]}))
    # A partial update (no "v") with a promoted int32 "n".
    _write(table, pa.table({"id": ["a"], "seq": pa.array([2], pa.int32()), "n": pa.array([10], pa.int32())}))
    assert (
        _ours(path)
        == _hudi_rs(path)
        == [
            {"id": "a", "seq": 2, "n": 10, "v": 1.0},
            {"id": "b", "seq": 1, "n": 2, "v": 2.0},
        ]
    )
    refused = pa.table({"id": ["b"], "seq": [3], "v": [True]})
    assert _refused(path, refused, ColumnTypeError).column == "v"
    # Deletes by key: the key as large_string is the table's string.
    _write(table, pa.table({"id": pa.array(["b"], pa.large_string())}), WriteOperation.DELETE)
    assert [r["id"] for r in _ours(path)] == ["a"]
    bad_key = pa.table({"id": pa.array([True])})
    assert _refused(path, bad_key, ColumnTypeError, WriteOperation.DELETE).column == "id"


def test_the_delete_flag_must_be_boolean(tmp_path: Path) -> None:
    path = tmp_path / "t"
    table = _table(path, pa.schema([("id", pa.string()), ("v", pa.float64())]))
    _write(table, pa.table({"id": ["a", "b"], "v": [1.0, 2.0]}))
    err = _refused(path, pa.table({"id": ["a"], "v": [1.0], "_hoodie_is_deleted": [1]}), ColumnTypeError)
    assert (err.column, err.incoming, err.table) == ("_hoodie_is_deleted", "int64", "bool")
    _write(table, pa.table({"id": ["a"], "v": [1.0], "_hoodie_is_deleted": [True]}))
    assert [r["id"] for r in _ours(path)] == ["b"]


def test_a_nested_column_names_its_path(tmp_path: Path) -> None:
    path = tmp_path / "t"
    inner = pa.struct([("x", pa.int64()), ("tags", pa.list_(pa.field("element", pa.string())))])
    table = _table(path, pa.schema([("id", pa.string()), ("s", inner)]))
    _write(table, pa.table({"id": ["a"], "s": pa.array([{"x": 1, "tags": ["t"]}], inner)}))
    # int32 x and large_string tags: accepted, promoted.
    promoted = pa.struct([("tags", pa.list_(pa.large_string())), ("x", pa.int32())])
    _write(table, pa.table({"id": ["b"], "s": pa.array([{"x": 2, "tags": ["u", None]}], promoted)}))
    assert (
        _ours(path)
        == _hudi_rs(path)
        == [
            {"id": "a", "s": {"x": 1, "tags": ["t"]}},
            {"id": "b", "s": {"x": 2, "tags": ["u", None]}},
        ]
    )
    wrong = pa.struct([("x", pa.int64()), ("tags", pa.list_(pa.bool_()))])
    err = _refused(path, pa.table({"id": ["c"], "s": pa.array([{"x": 3, "tags": [True]}], wrong)}), ColumnTypeError)
    assert (err.column, err.incoming, err.table) == ("s.tags.element", "bool", "string")
    wider = pa.struct([("x", pa.int64()), ("tags", pa.list_(pa.string())), ("y", pa.int64())])
    _write(table, pa.table({"id": ["c"], "s": pa.array([{"x": 3, "tags": [], "y": 4}], wider)}))  # s.y is added
    assert [r["s"].get("y") for r in _ours(path)] == [None, None, 4]
    narrower = pa.struct([("tags", pa.list_(pa.string()))])
    missing = pa.table({"id": ["c"], "s": pa.array([{"tags": []}], narrower)})
    assert _refused(path, missing, SchemaMismatchError).column == "s.x"


def test_a_nullable_batch_makes_a_required_column_nullable(tmp_path: Path) -> None:
    """A table Java wrote from non-nullable Spark columns has required fields (no null branch); a
    batch whose column may hold nulls makes it nullable, as Apache Hudi's writer schema does."""
    path = tmp_path / "t"
    required = json.dumps(
        {
            "type": "record",
            "name": "t_record",
            "namespace": "hoodie.t",
            "fields": [{"name": "id", "type": "string"}, {"name": "n", "type": "long"}],
        }
    )
    config = new_table_config("t", record_key_fields=["id"], create_schema=required)
    table = HudiTable.create(str(path), config)
    assert not table.schema().field("n").nullable
    # A required incoming column keeps it required; a null cannot reach it.
    _write(
        table,
        pa.table(
            {"id": ["a"], "n": pa.array([1], pa.int32())},
            schema=pa.schema([pa.field("id", pa.string(), nullable=False), pa.field("n", pa.int32(), nullable=False)]),
        ),
    )
    assert _ours(path) == [{"id": "a", "n": 1}]
    _write(table, pa.table({"id": ["b"], "n": pa.array([None], pa.int64())}))
    assert HudiTable.open(str(path)).schema().field("n").nullable
    assert _ours(path) == _hudi_rs(path) == [{"id": "a", "n": 1}, {"id": "b", "n": None}]


# --------------------------------------------------------------------------- Spark
@pytest.mark.spark
def test_spark_write_client_decides_before_any_job(spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hudi_framework.spark import write_engine
    from hudi_framework.spark.write_engine import SparkWriteClient

    path = tmp_path / "t"
    schema = pa.schema([("id", pa.string()), ("n", pa.int64()), ("v", pa.float64())])
    table = _table(path, schema)
    first = pa.table({"id": ["a", "b"], "n": pa.array([1, 2], pa.int32()), "v": pa.array([1.1, 2.5], pa.float32())})
    SparkWriteClient(table, None, spark).upsert(spark.createDataFrame(first))
    assert _ours(path) == _hudi_rs(path) == [{"id": "a", "n": 1, "v": 1.1}, {"id": "b", "n": 2, "v": 2.5}]

    def no_job(*args: object, **kwargs: object) -> None:
        raise AssertionError("a Spark job started")

    monkeypatch.setattr(write_engine, "keyed_rows", no_job)
    before = _tree(path)
    for values in ([True, False], [False, None]):
        frame = spark.createDataFrame(pa.table({"id": ["a", "b"], "n": [1, 2], "v": values}))
        with pytest.raises(ColumnTypeError) as caught:
            SparkWriteClient(HudiTable.open(str(path)), None, spark).upsert(frame)
        assert (caught.value.column, caught.value.incoming, caught.value.table) == ("v", "bool", "double")
    assert _tree(path) == before


@pytest.mark.spark
def test_the_data_source_decides_on_the_driver(spark: Any, tmp_path: Path) -> None:
    from tests.spark.test_datasource_write import _opts

    path = tmp_path / "t"
    first = pa.table({"id": ["a"], "city": ["sf"], "ts": pa.array([1], pa.int32()), "v": [1.0]})
    spark.createDataFrame(first).write.format("hudi").options(**_opts("bulk_insert")).mode("append").save(str(path))
    # bulk_insert created the table from the frame: ts is an Avro int. Another int32 frame, promoted floats.
    more = pa.table({"id": ["b"], "city": ["sf"], "ts": pa.array([2], pa.int8()), "v": pa.array([2.5], pa.float32())})
    spark.createDataFrame(more).write.format("hudi").options(**_opts("upsert")).mode("append").save(str(path))
    assert (
        _ours(path)
        == _hudi_rs(path)
        == [
            {"id": "a", "city": "sf", "ts": 1, "v": 1.0},
            {"id": "b", "city": "sf", "ts": 2, "v": 2.5},
        ]
    )
    before = _tree(path)
    wrong = pa.table({"id": ["c"], "city": ["sf"], "ts": pa.array([True]), "v": [3.0]})
    for operation in ("upsert", "bulk_insert"):
        with pytest.raises(Exception, match=r"ColumnTypeError.*'ts'.*bool.*int32"):
            spark.createDataFrame(wrong).write.format("hudi").options(**_opts(operation)).mode("append").save(str(path))
        assert _tree(path) == before  # refused on the driver, before a task staged or wrote a file
