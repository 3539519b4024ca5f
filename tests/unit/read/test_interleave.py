"""Interleaving base rows with merged rows: the same columns as Arrow's chunked take, built in one pass."""

from __future__ import annotations

import datetime as dt
import decimal

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.read.interleave import interleave

SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("i8", pa.int8()),
        ("i32", pa.int32()),
        ("i64", pa.int64()),
        ("f32", pa.float32()),
        ("f64", pa.float64()),
        ("flag", pa.bool_()),
        ("ts", pa.timestamp("us", tz="UTC")),
        ("day", pa.date32()),
        ("fixed", pa.binary(4)),
        ("dec", pa.decimal128(10, 2)),
        ("big", pa.large_string()),
        ("tags", pa.list_(pa.string())),
        ("cat", pa.dictionary(pa.int32(), pa.string())),
        ("empty", pa.null()),
    ]
)


def _rows(rng: np.random.Generator, n: int, null_rate: float) -> pa.Table:
    def maybe(values: list[object]) -> list[object]:
        return [None if rng.random() < null_rate else v for v in values]

    ints = rng.integers(-100, 100, n).tolist()
    columns = {
        "key": maybe([f"k{i:0{1 + i % 5}d}" for i in ints]),
        "i8": maybe(ints),
        "i32": maybe([i * 1000 for i in ints]),
        "i64": maybe([i << 40 for i in ints]),
        "f32": maybe([i / 4 for i in ints]),
        "f64": maybe([i / 3 for i in ints]),
        "flag": maybe([i % 3 == 0 for i in ints]),
        "ts": maybe([dt.datetime(2024, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=i) for i in ints]),
        "day": maybe([dt.date(2024, 1, 1) + dt.timedelta(days=i) for i in ints]),
        "fixed": maybe([i.to_bytes(4, "little", signed=True) for i in ints]),
        "dec": maybe([decimal.Decimal(i) / 100 for i in ints]),
        "big": maybe(["x" * (i % 7) for i in ints]),
        "tags": maybe([["a"] * (i % 3) for i in ints]),
        "cat": maybe([f"c{i % 4}" for i in ints]),
        "empty": [None] * n,
    }
    return pa.table({f.name: pa.array(columns[f.name], f.type) for f in SCHEMA}, schema=SCHEMA)


def _expected(base: pa.Table, merged: pa.Table, indices: np.ndarray) -> pa.Table:
    at = pa.array(indices, pa.int64())
    columns = [
        pa.chunked_array(b.chunks + m.chunks, type=b.type).take(at)
        for b, m in zip(base.columns, merged.columns, strict=True)
    ]
    return pa.Table.from_arrays(columns, schema=base.schema)


def _indices(rng: np.random.Generator, num_base: int, num_merged: int) -> np.ndarray:
    """Base rows in order, some replaced in place by merged rows (each used once), some dropped."""
    source = np.arange(num_base, dtype=np.int64)
    replaced = rng.choice(num_base, min(num_base, num_merged), replace=False) if num_base else np.zeros(0, np.int64)
    source[replaced] = num_base + rng.permutation(num_merged)[: len(replaced)]
    keep = rng.random(num_base) > 0.2
    return source[keep]


@pytest.mark.parametrize("null_rate", [0.0, 0.3])
@pytest.mark.parametrize("seed", range(4))
def test_same_as_chunked_take(seed: int, null_rate: float) -> None:
    rng = np.random.default_rng(seed)
    base = _rows(rng, 200, null_rate)
    # Merged rows in two chunks, as log blocks concatenated (data rows, then all-null delete rows).
    merged = pa.concat_tables([_rows(rng, 30, null_rate), _rows(rng, 10, 1.0)])
    indices = _indices(rng, base.num_rows, merged.num_rows)
    out = interleave(base, merged, indices)
    assert out.equals(_expected(base, merged, indices))
    assert all(column.num_chunks == 1 for column in out.columns)


def test_sliced_inputs_keep_their_offsets() -> None:
    rng = np.random.default_rng(7)
    base = _rows(rng, 300, 0.2).slice(37, 201)
    merged = _rows(rng, 60, 0.2).slice(13, 40)
    assert base.column("i32").chunk(0).offset == 37
    indices = _indices(rng, base.num_rows, merged.num_rows)
    assert interleave(base, merged, indices).equals(_expected(base, merged, indices))


@pytest.mark.parametrize(
    ("num_base", "indices"),
    [
        (5, np.arange(5, dtype=np.int64)),  # nothing replaced or dropped
        (5, np.zeros(0, dtype=np.int64)),  # everything deleted
        (0, np.array([1, 0], dtype=np.int64)),  # merged rows only
        (4, np.array([4, 5, 6], dtype=np.int64)),  # every row replaced, one dropped
    ],
)
def test_edge_shapes(num_base: int, indices: np.ndarray) -> None:
    rng = np.random.default_rng(1)
    base, merged = _rows(rng, num_base, 0.2), _rows(rng, 3, 0.2)
    assert interleave(base, merged, indices).equals(_expected(base, merged, indices))
