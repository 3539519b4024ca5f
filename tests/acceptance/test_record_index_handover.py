"""The record index's upkeep takes the key changes the local write path hands over instead of
reading the written files back: for random sequences of writes (new keys, updates, keys moving
partition, deletes of stored and unknown keys, insert overwrite) on copy-on-write and
merge-on-read tables, the records it writes are exactly those the read-back gives, no written
base file is read for them, and the index holds exactly the table's keys after every write."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.metadata.key_changes import RECORD_INDEX_FACT
from hudi_framework.metadata_writer import record_index_partition
from hudi_framework.metadata_writer.partition_builder import InstantContext, PartitionRecords
from hudi_framework.metadata_writer.record_index_partition import RecordIndexBuilder
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.metadata import CommitMetadata
from hudi_framework.write.client import WriteClient
from tests.acceptance.test_record_index_write import RLI_ON, _check_index, _create, _settings

CITIES = ("sf", "ny", "la")


def _rows(keys: list[int], ts: int, rng: random.Random) -> pa.Table:
    return pa.Table.from_pylist(
        [{"id": f"k{i:03d}", "city": rng.choice(CITIES), "ts": ts, "v": float(i)} for i in keys]
    )


def _normal(records: PartitionRecords) -> tuple[list[tuple[str, Any]], list[str]]:
    upserts = sorted((r["key"], r["recordIndexMetadata"]) for r in records.upserts)
    return upserts, sorted(records.deletes)


def spy_on_the_upkeep(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Make every record-index commit also compute its records by reading back, assert both are
    equal and that no written base file was read for the handed-over ones; returns (operation,
    records written) per commit checked."""
    reads: list[str] = []
    base_keys = record_index_partition._base_keys

    def counted(storage: Any, key: str) -> list[str]:
        reads.append(key)
        return base_keys(storage, key)

    monkeypatch.setattr(record_index_partition, "_base_keys", counted)
    original = RecordIndexBuilder.commit_records
    checked: list[tuple[str, int]] = []

    def both_ways(self: RecordIndexBuilder, ctx: InstantContext, metadata: CommitMetadata) -> PartitionRecords:
        reads.clear()
        handed = original(self, ctx, metadata)
        replaced = bool(getattr(metadata, "partition_to_replace_file_ids", None))
        written = [s for stats in (metadata.partition_to_write_stats or {}).values() for s in stats]
        if written and (metadata.operation_type or "").lower() != "compact":
            assert RECORD_INDEX_FACT in ctx.facts, metadata.operation_type
            if not replaced:
                assert reads == [], f"{metadata.operation_type} read back {reads}"
        read_back = original(self, dataclasses.replace(ctx, facts={}), metadata)
        assert _normal(handed) == _normal(read_back), metadata.operation_type
        checked.append((metadata.operation_type or "", len(handed.upserts) + len(handed.deletes)))
        return handed

    monkeypatch.setattr(RecordIndexBuilder, "commit_records", both_ways)
    return checked


def random_writes(path: Path, seed: int, write: Callable[[str, pa.Table], object]) -> None:
    """An insert, then six random writes, checking the index after each."""
    rng = random.Random(seed)
    write("insert", _rows(list(range(40)), 1, rng))
    _check_index(path)
    stored = set(range(40))
    fresh = iter(range(100, 1000))  # inserts never repeat a key (that would keep both rows)
    for ts in range(2, 8):
        op = rng.choice(["upsert", "upsert", "delete", "insert", "insert_overwrite"])
        if op == "upsert":
            keys = rng.sample(sorted(stored), min(8, len(stored))) + [next(fresh) for _ in range(5)]
            stored |= set(keys)
        elif op == "delete":
            keys = [*rng.sample(sorted(stored), min(6, len(stored))), 5000]  # and a key never written
            stored -= set(keys)
        else:
            keys = [next(fresh) for _ in range(7)]
        write(op, _rows(keys, ts, rng))
        if op == "insert_overwrite":
            stored = {int(k[1:]) for k in read_table(HudiTable.open(str(path))).column("id").to_pylist()}
        else:
            stored |= set(keys) if op == "insert" else set()
        _check_index(path)


@pytest.mark.parametrize("table_type", ["COPY_ON_WRITE", "MERGE_ON_READ"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_handed_over_key_changes_equal_the_read_back(
    tmp_path: Path, table_type: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = spy_on_the_upkeep(monkeypatch)
    path = tmp_path / "t"
    _create(path, table_type)

    def write(op: str, rows: pa.Table) -> object:
        return getattr(WriteClient(HudiTable.open(str(path)), _settings(RLI_ON)), op)(rows)

    random_writes(path, seed, write)
    assert any(changed for _, changed in checked)  # the comparison saw real key changes
