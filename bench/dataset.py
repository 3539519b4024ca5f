"""The benchmark data: a deterministic table and a change batch, written once as parquet inputs.

The table has string keys, an event-time column, 8 partitions and 8 payload columns of mixed types.
The change batch holds 10% updates (with a higher event time), 2% new keys and 1% deletes (rows
flagged ``_hoodie_is_deleted``), shuffled, as an upstream CDC feed would deliver them.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
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
class ScalingShape:
    """What the scaling section holds fixed while the table grows.

    Attributes:
        file_group_rows: Rows per file group (the writers size files to hold this many).
        batch_rows: Rows of the change batch: 80% updates (higher event time), 10% new keys and
            10% deletes, the keys drawn uniformly from the whole table so every file group is hit.
    """

    file_group_rows: int
    batch_rows: int


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

    @property
    def scaling_file(self) -> Path:
        return self.root / "scaling.json"

    def scaling_shape(self) -> ScalingShape:
        """The shape of scaling inputs (:func:`generate_scaling`); comparison inputs have none."""
        if not self.scaling_file.exists():
            raise FileNotFoundError(f"{self.root} holds no scaling inputs ({self.scaling_file.name} is missing)")
        shape: dict[str, int] = json.loads(self.scaling_file.read_text(encoding="utf-8"))
        return ScalingShape(**shape)

    def read_base(self) -> pa.Table:
        return pq.read_table(self.base)

    def base_rows(self) -> int:
        """Rows of the base table (from its footer, nothing decoded)."""
        return int(pq.ParquetFile(self.base).metadata.num_rows)

    def read_changes(self) -> pa.Table:
        return pq.read_table(self.changes)

    def read_small_changes(self) -> pa.Table:
        return pq.read_table(self.small_changes)


def _labels(prefix: str, numbers: np.ndarray, width: int) -> pa.Array:
    """``f"{prefix}{n:0{width}d}"`` for every number, vectorised (8M Python f-strings take ~20 s)."""
    digits = pc.utf8_lpad(pc.cast(pa.array(numbers, pa.int64()), pa.string()), width, "0")
    return pc.binary_join_element_wise(prefix, digits, "")


def keys(ids: np.ndarray) -> pa.Array:
    """The record key of each id."""
    return _labels("key-", ids, 10)


def _pick(values: list[str], codes: np.ndarray) -> pa.Array:
    """``values[code]`` for every code, as an Arrow take (a numpy string array converts slowly)."""
    return pa.array(values, pa.string()).take(pa.array(codes))


def _rows(rng: np.random.Generator, ids: np.ndarray, ts: np.ndarray) -> pa.Table:
    n = len(ids)
    return pa.table(
        {
            KEY: keys(ids),
            PARTITION: _pick(REGIONS, ids % len(REGIONS)),
            EVENT_TIME: pa.array(ts, pa.int64()),
            "amount": pa.array(rng.normal(100.0, 30.0, n)),
            "quantity": pa.array(rng.integers(1, 1000, n, dtype=np.int32)),
            "price": pa.array(rng.random(n) * 500),
            "customer": _labels("cust-", rng.integers(0, 1_000_000, n), 7),
            "status": _pick(["new", "paid", "shipped", "returned"], rng.integers(0, 4, n)),
            "flag": pa.array(rng.random(n) < 0.5),
            "score": pa.array(rng.random(n).astype(np.float32)),
            "note": _pick(["", "gift", "express", "fragile", "bulk"], rng.integers(0, 5, n)),
        }
    )


def _change_batch(upserts: pa.Table, deleted_rows: pa.Table) -> pa.Table:
    """Upserts flagged live, then the stored rows of deleted keys flagged deleted with a later event time."""
    live = upserts.append_column(DELETED, pa.array(np.zeros(len(upserts), dtype=bool)))
    deletes = deleted_rows.set_column(
        deleted_rows.schema.get_field_index(EVENT_TIME),
        EVENT_TIME,
        pa.array(np.full(len(deleted_rows), 1_700_200_000_001, dtype=np.int64)),
    )
    deletes = deletes.append_column(DELETED, pa.array(np.ones(len(deletes), dtype=bool)))
    return pa.concat_tables([live, deletes])


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
    changes = _change_batch(upserts, base.filter(pc.is_in(base.column(KEY), value_set=keys(deleted))))
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


def generate_scaling(root: Path, rows: int, shape: ScalingShape, *, seed: int = 11) -> Inputs:
    """Write a table of ``rows`` rows and a change batch of ``shape.batch_rows`` rows under ``root``
    (reused when already there with the same shape); no 1% batch.

    The batch is the same size at every table size, and its keys are spread over the whole table,
    so an upsert rewrites every file group while each file group stays ``shape.file_group_rows``.
    """
    inputs = Inputs(root)
    if (
        inputs.base.exists()
        and inputs.changes.exists()
        and inputs.scaling_file.exists()
        and (inputs.scaling_shape() == shape)
    ):
        return inputs
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    ids = rng.permutation(rows)
    base = _rows(rng, ids, rng.integers(1_700_000_000_000, 1_700_100_000_000, rows))
    n_insert = shape.batch_rows // 10
    n_delete = min(shape.batch_rows // 10, rows // 10)
    n_update = min(shape.batch_rows - n_insert - n_delete, rows // 2)
    picked = rng.choice(rows, n_update + n_delete, replace=False)
    later = rng.integers(1_700_100_000_000, 1_700_200_000_000, n_update + n_insert)
    upserts = _rows(rng, np.concatenate([picked[:n_update], np.arange(rows, rows + n_insert)]), later)
    # Ids are 0..rows-1: the row of id x is at position argsort(ids)[x]; a delete repeats the stored row.
    changes = _change_batch(upserts, base.take(pa.array(np.argsort(ids)[picked[n_update:]])))
    pq.write_table(base, inputs.base)
    pq.write_table(changes.take(rng.permutation(len(changes))), inputs.changes)
    inputs.scaling_file.write_text(json.dumps(asdict(shape)), encoding="utf-8")
    return inputs


def split_changes(changes: pa.Table) -> tuple[pa.Table, pa.Table]:
    """(upserts without the flag column, deleted keys with their partition) for systems without a delete flag."""
    flag = changes.column(DELETED)
    upserts = changes.filter(pc.invert(flag)).drop_columns([DELETED])
    deletes = changes.filter(flag).select([KEY, PARTITION])
    return upserts, deletes
