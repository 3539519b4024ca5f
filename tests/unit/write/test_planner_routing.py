"""Routing located rows to their planned file groups by ``(partition, file id)``."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.write.planner import _located_positions, _pair_keys


def _positions_by_pair_keys(partitions: pa.Array, file_ids: pa.Array, value_set: pa.Array) -> list[int]:
    found = pc.index_in(_pair_keys(partitions, file_ids), value_set=value_set)
    return [-1 if v is None else v for v in found.to_pylist()]


def test_located_positions_match_a_lookup_of_every_rows_pair_key() -> None:
    rng = np.random.default_rng(3)
    names = ["p", "q", "p:1", "", "é"]
    files = ["f1", "f2", "1:p", "f3"]
    value_set = _pair_keys(pa.array(["p", "q", "p:1", "é", "p"]), pa.array(["f1", "f2", "1:p", "f3", "f3"]))
    for n in (0, 7, 500):
        partitions = pa.array([names[i] if i < len(names) else None for i in rng.integers(0, 6, n)], pa.string())
        file_ids = pa.array([files[i] if i < len(files) else None for i in rng.integers(0, 5, n)], pa.string())
        expected = _positions_by_pair_keys(partitions, file_ids, value_set)
        assert list(_located_positions(partitions, file_ids, value_set)) == expected


def test_many_distinct_pairs_are_looked_up_row_by_row() -> None:
    # More distinct partitions x file ids than rows allow in a dense table: the per-row lookup.
    n = 3000
    partitions = pa.array([f"p{i}" for i in range(n)])
    file_ids = pa.array([f"f{i}" for i in range(n)])
    value_set = _pair_keys(partitions.slice(0, 10), file_ids.slice(0, 10))
    positions = _located_positions(partitions, file_ids, value_set)
    assert list(positions[:10]) == list(range(10))
    assert (positions[10:] == -1).all()
