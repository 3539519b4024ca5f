"""The benchmark data: a deterministic table and a change batch, written once as parquet inputs.

The table has string keys, an event-time column, 8 partitions and 8 payload columns of mixed types.
The change batch holds 10% updates (with a higher event time), 2% new keys and 1% deletes (rows
flagged ``_hoodie_is_deleted``), shuffled, as an upstream CDC feed would deliver them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

KEY = "id"
PARTITION = "region"
EVENT_TIME = "ts"
DELETED = "_hoodie_is_deleted"
REGIONS = ["us-east", "us-west", "eu-north", "eu-south", "ap-east", "ap-south", "sa", "af"]


@dataclass(frozen=True)
class Inputs:
    """Where the inputs of one size live."""

    root: Path

    @property
    def base(self) -> Path:
        return self.root / "base.parquet"

    @property
    def changes(self) -> Path:
        """Updates and inserts, plus deletes flagged with ``_hoodie_is_deleted``."""
        return self.root / "changes.parquet"

    @property
    def small_changes(self) -> Path:
        """A 1% batch of updates (the MOR-versus-COW target)."""
        return self.root / "small_changes.parquet"

    def read_base(self) -> pa.Table:
        return pq.read_table(self.base)

    def read_changes(self) -> pa.Table:
        return pq.read_table(self.changes)

    def read_small_changes(self) -> pa.Table:
        return pq.read_table(self.small_changes)


def _rows(rng: np.random.Generator, ids: np.ndarray, ts: np.ndarray) -> pa.Table:
    n = len(ids)
    return pa.table(
        {
            KEY: pa.array([f"key-{i:010d}" for i in ids.tolist()], pa.string()),
            PARTITION: pa.array(np.array(REGIONS)[ids % len(REGIONS)]),
            EVENT_TIME: pa.array(ts, pa.int64()),
            "amount": pa.array(rng.normal(100.0, 30.0, n)),
            "quantity": pa.array(rng.integers(1, 1000, n, dtype=np.int32)),
            "price": pa.array(rng.random(n) * 500),
            "customer": pa.array([f"cust-{c:07d}" for c in rng.integers(0, 1_000_000, n).tolist()], pa.string()),
            "status": pa.array(np.array(["new", "paid", "shipped", "returned"])[rng.integers(0, 4, n)]),
            "flag": pa.array(rng.random(n) < 0.5),
            "score": pa.array(rng.random(n).astype(np.float32)),
            "note": pa.array(np.array(["", "gift", "express", "fragile", "bulk"])[rng.integers(0, 5, n)]),
        }
    )


def generate(root: Path, rows: int, *, seed: int = 7) -> Inputs:
    """Write the table and its change batch under ``root`` (reused when already there)."""
    inputs = Inputs(root)
    if inputs.base.exists() and inputs.changes.exists() and inputs.small_changes.exists():
        return inputs
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ids = rng.permutation(rows)
    base = _rows(rng, ids, rng.integers(1_700_000_000_000, 1_700_100_000_000, rows))
    n_update, n_insert, n_delete = rows // 10, rows // 50, rows // 100
    picked = rng.choice(rows, n_update + n_delete, replace=False)
    updated = ids[picked[:n_update]]
    deleted = ids[picked[n_update:]]
    inserted = np.arange(rows, rows + n_insert)
    later = rng.integers(1_700_100_000_000, 1_700_200_000_000, n_update + n_insert)
    upserts = _rows(rng, np.concatenate([updated, inserted]), later)
    upserts = upserts.append_column(DELETED, pa.array(np.zeros(len(upserts), dtype=bool)))
    gone = pc.is_in(base.column(KEY), value_set=pa.array([f"key-{i:010d}" for i in deleted.tolist()]))
    deletes = base.filter(gone)
    deletes = deletes.set_column(
        deletes.schema.get_field_index(EVENT_TIME),
        EVENT_TIME,
        pa.array(np.full(len(deletes), 1_700_200_000_001, dtype=np.int64)),
    )
    deletes = deletes.append_column(DELETED, pa.array(np.ones(len(deletes), dtype=bool)))
    changes = pa.concat_tables([upserts, deletes])
    changes = changes.take(rng.permutation(len(changes)))
    small = _rows(
        rng,
        ids[rng.choice(rows, max(1, rows // 100), replace=False)],
        rng.integers(1_700_100_000_000, 1_700_200_000_000, max(1, rows // 100)),
    )
    pq.write_table(base, inputs.base)
    pq.write_table(changes, inputs.changes)
    pq.write_table(small, inputs.small_changes)
    return inputs


def split_changes(changes: pa.Table) -> tuple[pa.Table, pa.Table]:
    """(upserts without the flag column, deleted keys with their partition) for systems without a delete flag."""
    flag = changes.column(DELETED)
    upserts = changes.filter(pc.invert(flag)).drop_columns([DELETED])
    deletes = changes.filter(flag).select([KEY, PARTITION])
    return upserts, deletes
