"""The expected-rows model and the content checksum."""

from __future__ import annotations

import pyarrow as pa
import pytest

from hudi_framework.jobs.model import ExpectedTable, content_checksum, joined_keys
from hudi_framework.vocabulary import WriteOperation

SCHEMA = pa.schema([("id", pa.string()), ("p", pa.string()), ("ts", pa.int64())])


def _rows(ids: list[str], parts: list[str], ts: list[int]) -> pa.Table:
    return pa.table({"id": ids, "p": parts, "ts": pa.array(ts, pa.int64())}, schema=SCHEMA)


def _model() -> ExpectedTable:
    model = ExpectedTable(SCHEMA, ["id"], ["p"])
    model.apply(WriteOperation.INSERT, _rows(["a", "b", "c"], ["x", "x", "y"], [1, 1, 1]))
    return model


def _state(model: ExpectedTable) -> list[tuple[str, str, int]]:
    return sorted((r["id"], r["p"], r["ts"]) for r in model.rows.to_pylist())


def test_upsert_replaces_and_adds() -> None:
    model = _model()
    model.apply(WriteOperation.UPSERT, _rows(["b", "d"], ["x", "y"], [2, 2]))
    assert _state(model) == [("a", "x", 1), ("b", "x", 2), ("c", "y", 1), ("d", "y", 2)]


def test_delete_removes_keys() -> None:
    model = _model()
    model.apply(WriteOperation.DELETE, _rows(["a", "zz"], ["x", "x"], [1, 1]))
    assert _state(model) == [("b", "x", 1), ("c", "y", 1)]


def test_insert_overwrite_replaces_touched_partitions() -> None:
    model = _model()
    model.apply(WriteOperation.INSERT_OVERWRITE, _rows(["e"], ["x"], [5]))
    assert _state(model) == [("c", "y", 1), ("e", "x", 5)]
    model.apply(WriteOperation.INSERT_OVERWRITE_TABLE, _rows(["f"], ["z"], [6]))
    assert _state(model) == [("f", "z", 6)]


def test_unsupported_operation() -> None:
    with pytest.raises(ValueError, match="delete_partition"):
        _model().apply(WriteOperation.DELETE_PARTITION, _rows([], [], []))


def test_composite_and_empty_keys() -> None:
    rows = _rows(["a", "b"], ["x", "y"], [1, 2])
    assert joined_keys(rows, ["id", "ts"]).to_pylist() == ["a\x1f1", "b\x1f2"]
    assert joined_keys(rows, []).to_pylist() == ["", ""]


def test_checksum_ignores_order_chunking_and_string_width() -> None:
    rows = _rows(["a", "b", "c"], ["x", "x", "y"], [1, 2, 3])
    shuffled = pa.concat_tables([rows.slice(2), rows.slice(0, 2)])
    wide = rows.cast(pa.schema([("id", pa.large_string()), ("p", pa.string()), ("ts", pa.int64())]))
    assert content_checksum(rows) == content_checksum(shuffled) == content_checksum(wide)
    assert len(content_checksum(rows)) == 16


def test_checksum_sees_every_value() -> None:
    rows = _rows(["a", "b"], ["x", "x"], [1, 2])
    assert content_checksum(rows) != content_checksum(_rows(["a", "b"], ["x", "x"], [1, 3]))
    assert content_checksum(rows) != content_checksum(_rows(["a", "b"], ["x", "y"], [1, 2]))
    assert content_checksum(rows) != content_checksum(rows.slice(0, 1))
    # Values that would collide if fields were concatenated without a separator.
    assert content_checksum(_rows(["ab"], ["c"], [1])) != content_checksum(_rows(["a"], ["bc"], [1]))


def test_checksum_of_structs_and_nulls() -> None:
    kind = pa.struct([("a", pa.int64()), ("b", pa.string())])
    struct = pa.table({"s": pa.array([{"a": 1, "b": None}, None], kind)})
    assert content_checksum(struct) == content_checksum(struct.take([1, 0]))
    other = pa.table({"s": pa.array([{"a": 2, "b": None}, None], struct.schema.field("s").type)})
    assert content_checksum(struct) != content_checksum(other)
