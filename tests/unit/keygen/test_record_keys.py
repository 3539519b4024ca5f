"""Record keys: simple and complex spelling, null/empty rules, nested fields, input shapes."""

from __future__ import annotations

import builtins
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.errors import DataError, InvalidRecordKeyError, KeyFieldError
from hudi_keygen_builtin import ComplexKeyGenerator, KeyGenOptions
from tests.unit.keygen.conftest import MakeKeyGen


def test_simple_key_is_the_value(make_keygen: MakeKeyGen) -> None:
    kg = make_keygen("simple", record_key_fields=["id"], partition_fields=["p"])
    batch = pa.record_batch({"id": pa.array([1, 22, -3], pa.int32()), "p": ["a", "b", "c"]})
    assert kg.record_keys(batch).to_pylist() == ["1", "22", "-3"]


def test_null_and_empty_simple_keys_fail_naming_field_and_counts(make_keygen: MakeKeyGen) -> None:
    kg = make_keygen("simple", record_key_fields=["uuid"])
    batch = pa.table({"uuid": ["a", None, "", "b", None]})
    with pytest.raises(InvalidRecordKeyError) as info:
        kg.record_keys(batch)
    err = info.value
    assert isinstance(err, DataError)
    assert isinstance(err, ValueError)
    assert (err.fields, err.null_rows, err.empty_rows, err.first_row) == (("uuid",), 2, 1, 1)
    assert "'uuid'" in str(err)
    assert "null in 2 row(s) and empty in 1" in str(err)
    assert "first at row 1" in str(err)


def test_null_keys_fail_before_any_io(make_keygen: MakeKeyGen, monkeypatch: pytest.MonkeyPatch) -> None:
    # Keys are computed from the batch alone: a failing key never reaches a file system.
    opened: list[Any] = []
    real_open = builtins.open
    monkeypatch.setattr(builtins, "open", lambda *a, **k: (opened.append(a), real_open(*a, **k))[1])
    kg = make_keygen("complex", record_key_fields=["a", "b"], partition_fields=["p"])
    with pytest.raises(InvalidRecordKeyError):
        kg.keys(pa.table({"a": [None], "b": [""], "p": ["x"]}))
    assert opened == []


def test_complex_key_placeholders(make_keygen: MakeKeyGen) -> None:
    kg = make_keygen("complex", record_key_fields=["id", "name"], partition_fields=["p"])
    batch = pa.table({"id": [1, None, 3, None], "name": ["Alice", "Bob", "", "x"], "p": ["a"] * 4})
    assert kg.record_keys(batch).to_pylist() == [
        "id:1,name:Alice",
        "id:__null__,name:Bob",
        "id:3,name:__empty__",
        "id:__null__,name:x",
    ]


def test_complex_key_all_null_or_empty_fails(make_keygen: MakeKeyGen) -> None:
    kg = make_keygen("complex", record_key_fields=["a", "b"])
    batch = pa.table({"a": ["x", None, None, ""], "b": ["y", None, "", ""]})
    with pytest.raises(InvalidRecordKeyError) as info:
        kg.record_keys(batch)
    err = info.value
    assert (err.fields, err.null_rows, err.empty_rows, err.first_row) == (("a", "b"), 1, 2, 1)
    assert "'a', 'b' are all null or empty in 3 row(s) (1 all null)" in str(err)


@pytest.mark.parametrize(("encoding", "expected"), [("FIELD_PREFIXED", ["id:7", "id:8"]), ("VALUE_ONLY", ["7", "8"])])
def test_complex_single_field_encoding(make_keygen: MakeKeyGen, encoding: str, expected: list[str]) -> None:
    kg = make_keygen("complex", record_key_fields=["id"], complex_single_field_encoding=encoding)
    assert kg.record_keys(pa.table({"id": [7, 8]})).to_pylist() == expected


@pytest.mark.parametrize("encoding", ["FIELD_PREFIXED", "VALUE_ONLY"])
def test_complex_single_null_field_fails_either_way(make_keygen: MakeKeyGen, encoding: str) -> None:
    kg = make_keygen("complex", record_key_fields=["id"], complex_single_field_encoding=encoding)
    with pytest.raises(InvalidRecordKeyError):
        kg.record_keys(pa.table({"id": pa.array([1, None])}))


def test_non_partitioned_and_custom_keys_depend_on_field_count(make_keygen: MakeKeyGen) -> None:
    batch = pa.table({"a": [1], "b": ["x"]})
    for name in ("non-partition", "custom"):
        assert make_keygen(name, record_key_fields=["a"]).record_keys(batch).to_pylist() == ["1"]
        assert make_keygen(name, record_key_fields=["a", "b"]).record_keys(batch).to_pylist() == ["a:1,b:x"]


def test_global_delete_always_prefixes(make_keygen: MakeKeyGen) -> None:
    kg = make_keygen("global-delete", record_key_fields=["a"], partition_fields=["b"])
    batch = pa.table({"a": [1], "b": ["x"]})
    assert kg.keys(batch)[0].to_pylist() == ["a:1"]
    assert kg.keys(batch)[1].to_pylist() == [""]
    assert kg.partition_fields == ()


def test_null_parent_struct_makes_children_null(make_keygen: MakeKeyGen) -> None:
    inner = pa.struct([("b", pa.struct([("c", pa.int64())])), ("d", pa.string())])
    column = pa.array([{"b": {"c": 5}, "d": "x"}, None], inner)
    kg = make_keygen("complex", record_key_fields=["a.b.c", "a.d"])
    # Java's getNestedFieldVal stops at a null record: every field of row 1 is null.
    with pytest.raises(InvalidRecordKeyError, match="first at row 1"):
        kg.record_keys(pa.table({"a": column}))


def test_nested_field_values(make_keygen: MakeKeyGen) -> None:
    inner = pa.struct([("b", pa.struct([("c", pa.int64())])), ("d", pa.string())])
    column = pa.array([{"b": {"c": 5}, "d": "x"}, {"b": None, "d": "y"}], inner)
    kg = make_keygen("complex", record_key_fields=["a.b.c", "a.d"])
    assert kg.record_keys(pa.table({"a": column})).to_pylist() == ["a.b.c:5,a.d:x", "a.b.c:__null__,a.d:y"]


@pytest.mark.parametrize(
    ("path", "match"),
    [("missing", "no column 'missing'"), ("a.zz", "has no field 'zz'"), ("n.x", "'n' is a int64, not a struct")],
)
def test_bad_field_paths(make_keygen: MakeKeyGen, path: str, match: str) -> None:
    batch = pa.table({"a": pa.array([{"b": 1}]), "n": [1]})
    kg = make_keygen("simple", record_key_fields=[path])
    with pytest.raises(KeyFieldError, match=match):
        kg.record_keys(batch)
    with pytest.raises(KeyFieldError):
        kg.check_schema(batch.schema)


def test_check_schema_finds_unsupported_types_without_data(make_keygen: MakeKeyGen) -> None:
    kg = make_keygen("simple", record_key_fields=["blob"])
    with pytest.raises(KeyFieldError, match="binary"):
        kg.check_schema(pa.schema([("blob", pa.binary())]))
    make_keygen("simple", record_key_fields=["id"]).check_schema(pa.schema([("id", pa.int64())]))


def test_chunked_tables_and_dictionaries(make_keygen: MakeKeyGen) -> None:
    dictionary = pa.array(["x", "y", None, "x"]).dictionary_encode()
    table = pa.Table.from_batches(
        [
            pa.record_batch({"id": pa.array([1, 2], pa.int64()), "k": dictionary.slice(0, 2)}),
            pa.record_batch({"id": pa.array([3, 4], pa.int64()), "k": dictionary.slice(2, 2)}),
        ]
    )
    kg = make_keygen("complex", record_key_fields=["id", "k"])
    assert kg.record_keys(table).to_pylist() == ["id:1,k:x", "id:2,k:y", "id:3,k:__null__", "id:4,k:x"]


def test_empty_batch(make_keygen: MakeKeyGen) -> None:
    kg = make_keygen("simple", record_key_fields=["id"], partition_fields=["p"])
    keys, paths = kg.keys(pa.table({"id": pa.array([], pa.int64()), "p": pa.array([], pa.string())}))
    assert (len(keys), len(paths)) == (0, 0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(st.none(), st.text(max_size=4)), st.one_of(st.none(), st.integers(-5, 5))),
        min_size=1,
        max_size=30,
    )
)
def test_complex_keys_match_java_rules(rows: list[tuple[str | None, int | None]]) -> None:
    kg = ComplexKeyGenerator(KeyGenOptions(record_key_fields=("s", "i")))
    batch = pa.table(
        {"s": pa.array([r[0] for r in rows], pa.string()), "i": pa.array([r[1] for r in rows], pa.int64())}
    )

    def java(value: object) -> tuple[str, bool]:
        text = None if value is None else str(value)
        if text is None:
            return "__null__", True
        return (text, False) if text else ("__empty__", True)

    expected = []
    for s, i in rows:
        (s_text, s_missing), (i_text, i_missing) = java(s), java(i)
        expected.append(None if s_missing and i_missing else f"s:{s_text},i:{i_text}")
    if None in expected:
        with pytest.raises(InvalidRecordKeyError) as info:
            kg.record_keys(batch)
        assert info.value.first_row == expected.index(None)
        assert info.value.null_rows + info.value.empty_rows == expected.count(None)
    else:
        assert kg.record_keys(batch).to_pylist() == expected


@pytest.mark.parametrize(
    ("name", "fields", "t", "expected"),
    [
        ("simple", ["id"], pa.string(), "id"),
        ("simple", ["id"], pa.large_string(), "id"),
        ("simple", ["id"], pa.int32(), "id"),
        ("complex", ["id"], pa.string(), "id"),
        ("complex", ["id", "city"], pa.string(), None),  # several fields: no single column decides
        ("simple", ["id"], pa.float64(), None),  # 0.0 and -0.0 compare equal but render apart
        ("simple", ["id"], pa.timestamp("us"), None),
        ("simple", ["missing"], pa.string(), None),
    ],
)
def test_key_source_field_only_where_values_and_keys_are_one_to_one(
    make_keygen: MakeKeyGen, name: str, fields: list[str], t: pa.DataType, expected: str | None
) -> None:
    keygen = make_keygen(name, record_key_fields=fields, partition_fields=["city"])
    schema = pa.schema([pa.field("id", t), pa.field("city", pa.string())])
    assert keygen.key_source_field(schema) == expected
    if expected is not None:
        # One to one: distinct values give distinct keys, equal values equal keys.
        values = pa.array(
            ["7", "07", "x", "7"] if pa.types.is_string(t) or pa.types.is_large_string(t) else [7, 70, 1, 7], t
        )
        keys = keygen.record_keys(pa.table({"id": values, "city": ["a"] * 4})).to_pylist()
        assert [keys.index(k) for k in keys] == [values.to_pylist().index(v) for v in values.to_pylist()]
