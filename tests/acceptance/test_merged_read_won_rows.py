"""Merge-on-read snapshots where the log rows that replace stored rows are one run of the slice's
log rows (a data block all of whose records won, then a delete block: read as a slice of the log
rows) or are not (stale records lose, a later delta commit updates the same keys): the rows are the
model's either way."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

ROWS = 3000
Model = dict[str, tuple[int, str]]


def _rows(ids: np.ndarray, ts: int, version: str, *, deleted: bool = False) -> pa.Table:
    return pa.table(
        {
            "id": [f"key-{i:06d}" for i in ids],
            "region": [["eu", "us"][i % 2] for i in ids],
            "ts": pa.array(np.full(len(ids), ts), pa.int64()),
            "note": [f"{version}-{i}" for i in ids],
            "_hoodie_is_deleted": pa.array(np.full(len(ids), deleted)),
        }
    )


def _upsert(path: Path, rows: pa.Table, model: Model) -> None:
    settings = HudiSettings.from_hoodie_options({"hoodie.parquet.small.file.limit": "0"}, env=False)
    WriteClient(HudiTable.open(str(path)), settings).upsert(rows)
    for r in rows.to_pylist():
        if r["_hoodie_is_deleted"]:
            model.pop(r["id"], None)
        elif r["id"] not in model or r["ts"] >= model[r["id"]][0]:
            model[r["id"]] = (r["ts"], r["note"])


def _check(path: Path, model: Model) -> None:
    got = read_table(HudiTable.open(str(path))).select(["id", "ts", "note"]).sort_by("id")
    assert got.to_pylist() == [{"id": k, "ts": v[0], "note": v[1]} for k, v in sorted(model.items())]


@pytest.fixture
def table(tmp_path: Path) -> tuple[Path, Model]:
    base = _rows(np.arange(ROWS), 1, "v1")
    config = new_table_config(
        "t", table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["region"],
        ordering_fields=["ts"],
    )  # fmt: skip
    WriteClient(HudiTable.create(str(tmp_path), config, schema=base.schema), HudiSettings()).bulk_insert(base)
    return tmp_path, {r["id"]: (r["ts"], r["note"]) for r in base.to_pylist()}


def test_a_data_block_whose_records_all_won_then_deletes(table: tuple[Path, Model]) -> None:
    path, model = table
    # Shuffled keys: the won rows are a run of the log rows, in no order of the base file.
    updates = _rows(np.random.default_rng(3).permutation(np.arange(0, ROWS, 7)), 2, "v2")
    deletes = _rows(np.arange(3, ROWS, 50), 3, "gone", deleted=True)
    _upsert(path, pa.concat_tables([updates, deletes]), model)
    _check(path, model)


def test_stale_records_and_later_delta_commits(table: tuple[Path, Model]) -> None:
    path, model = table
    stale = _rows(np.arange(5, ROWS, 40), 0, "stale")  # older ordering value: the stored rows stay
    _upsert(path, pa.concat_tables([_rows(np.arange(0, ROWS, 7), 2, "v2"), stale]), model)
    _check(path, model)
    # A later delta commit updates some of the same keys and deletes others: two data blocks per slice.
    later = _rows(np.arange(0, ROWS, 14), 4, "v3")
    _upsert(path, pa.concat_tables([later, _rows(np.arange(7, ROWS, 28), 5, "gone", deleted=True)]), model)
    _check(path, model)
