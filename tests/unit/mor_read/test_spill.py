"""Bounded memory: merging with spilled log records gives exactly the rows of an in-memory merge and a model."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyarrow as pa

from hudi_framework.read import read_table
from hudi_framework.read.spill import SpillPartitions, key_partitions
from tests.unit.mor_read.builder import MorBuilder, data_block, delete_block
from tests.unit.read.builder import FileWrite, rows, t


def test_key_partitions_are_deterministic_and_in_range() -> None:
    keys = pa.array([f"key-{i}" for i in range(1000)] + ["", "a", "ab", "ba"])
    parts = key_partitions(keys, 8)
    assert parts.min() >= 0
    assert parts.max() < 8
    assert np.array_equal(parts, key_partitions(keys.slice(0), 8))
    assert np.array_equal(parts[10:20], key_partitions(keys.slice(10, 10), 8))  # sliced arrays hash alike
    assert len(np.unique(parts)) == 8  # spread over every partition
    assert parts[-2] != parts[-1] or key_partitions(pa.array(["ab", "ba"]), 64).tolist() != [0, 0]


def test_spill_partitions_keep_row_order() -> None:
    schema = pa.schema([("k", pa.string()), ("v", pa.int64())])
    with SpillPartitions(schema, 4, prefix="t") as spill:
        for start in range(0, 100, 10):
            chunk = pa.table(
                {"k": [f"k{i % 7}" for i in range(start, start + 10)], "v": list(range(start, start + 10))}
            )
            spill.write(chunk, key_partitions(chunk.column("k"), 4))
        spill.finish()
        parts = [spill.read(p) for p in range(4)]
    assert sum(p.num_rows for p in parts) == 100
    for part in parts:
        values = part.column("v").to_pylist()
        assert values == sorted(values)


def _random_table(path: Path, seed: int) -> tuple[MorBuilder, dict[str, tuple[int, float]]]:
    """A file group of 300 base rows and 6 delta commits of random upserts, inserts and deletes."""
    rng = random.Random(seed)
    b = MorBuilder(str(path))
    model = {f"k{i:04d}": (1, float(i)) for i in range(300)}
    b.commit(t(1), [FileWrite("sf", "f1-0", rows(*((k, ts, fare, "sf") for k, (ts, fare) in model.items())))])
    for n in range(2, 8):
        blocks = []
        for _ in range(2):
            keys = rng.sample(sorted(model) + [f"n{n}-{i}" for i in range(20)], 60)
            batch = []
            for k in dict.fromkeys(keys):
                ts = rng.randrange(0, 10)
                batch.append((k, ts, float(rng.randrange(1000)), "sf"))
                old = model.get(k)
                if old is None or ts >= old[0]:  # event time: larger ts wins, later on ties
                    model[k] = (ts, batch[-1][2])
            blocks.append(data_block(t(n), rows(*batch), "sf", "f1-0"))
        gone = rng.sample(sorted(model), 15)
        for k in gone:
            del model[k]
        blocks.append(delete_block(t(n), gone, "sf"))
        b.delta_commit(t(n), "sf", "f1-0", blocks, base_instant=t(1))
    return b, model


def test_tiny_memory_bound_gives_the_same_rows(tmp_path: Path) -> None:
    for seed in range(3):
        b, model = _random_table(tmp_path / str(seed), seed)
        unbounded = read_table(b.table)
        for bound in (1, 4096):
            bounded = read_table(b.table, merge_max_memory_bytes=bound, batch_size=64)
            assert bounded.sort_by("id").equals(unbounded.sort_by("id"))
        got = {
            k: (ts, fare)
            for k, ts, fare in zip(*(unbounded.column(c).to_pylist() for c in ("id", "ts", "fare")), strict=True)
        }
        assert got == model
