"""Record-index lookups give the same locations whether a file group's keys are many (every block
read, all rows matched at once) or few (the block index places each key), on local disk and on S3:
a table written in random rounds of inserts, updates and deletes (DELETE blocks in the MDT's logs,
one key's entries in several log files, an MDT compaction in between), looked up with every key it
ever had plus absent ones, against its snapshot after every round."""

from __future__ import annotations

import random

import pyarrow as pa

from hudi_framework.config import HudiSettings
from hudi_framework.metadata.reader import MetadataTable
from hudi_framework.read import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place

_OPTIONS = {
    "hoodie.metadata.enable": "true",
    "hoodie.metadata.record.index.enable": "true",
    "hoodie.index.type": "RECORD_INDEX",
    "hoodie.metadata.compact.max.delta.commits": "3",
}
_CITIES = ("sf", "ny", "la")
#: Single-key lookups per round: each opens the record index's file slice, a handful of ranged GETs on
#: S3 (seconds for a few dozen on moto), where a few already take the block-index path every round.
FEW_KEY_LOOKUPS = 25
FEW_KEY_LOOKUPS_ON_S3 = 6


def _rows(keys: list[int], ts: int, rng: random.Random) -> pa.Table:
    return pa.Table.from_pylist([{"id": f"key-{k:05d}", "city": rng.choice(_CITIES), "ts": ts} for k in keys])


def _snapshot(table: HudiTable) -> dict[str, tuple[str, str]]:
    """Each key of the snapshot with its partition and file group id."""
    snap = read_table(table)
    return {
        key: (partition, name.lstrip(".").split("_")[0])
        for key, partition, name in zip(
            snap.column("id").to_pylist(),
            snap.column("_hoodie_partition_path").to_pylist(),
            snap.column("_hoodie_file_name").to_pylist(),
            strict=True,
        )
    }


def _located(found: pa.Table) -> dict[str, tuple[str, str]]:
    return {r["record_key"]: (r["partition_path"], r["file_id"]) for r in found.to_pylist()}


def test_many_and_few_keys_find_the_same_locations(place: Place) -> None:
    rng = random.Random(21)
    config = new_table_config(
        "t", version=9, table_type="MERGE_ON_READ", record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(place.uri, config, storage_options=place.options)
    client = WriteClient(table, HudiSettings.from_hoodie_options(_OPTIONS, env=False))
    client.insert(_rows(list(range(600)), 1, rng))
    live = set(range(600))
    ever = set(live)
    for ts in range(2, 7):
        updates = rng.sample(sorted(live), 120)
        new = list(range(max(ever) + 1, max(ever) + 1 + rng.randint(10, 60)))
        client.upsert(_rows(updates + new, ts, rng))
        live |= set(new)
        ever |= set(new)
        gone = rng.sample(sorted(live), 40)
        client.delete(_rows(gone, ts, rng))
        live -= set(gone)

        table = place.open()
        truth = _snapshot(table)
        assert len(truth) == len(live)
        mdt = MetadataTable.open(table.storage, table.properties)
        assert mdt is not None
        keys = [f"key-{k:05d}" for k in sorted(ever)] + ["absent", "key-99999", "zzz"]
        rng.shuffle(keys)
        many = _located(mdt.record_index(keys))
        assert many == truth, f"round {ts}"
        for key in rng.sample(keys, FEW_KEY_LOOKUPS if place.endpoint is None else FEW_KEY_LOOKUPS_ON_S3):
            assert _located(mdt.record_index([key])) == ({key: truth[key]} if key in truth else {}), key
    logs = [s for s in mdt.record_index_slices() if len(s.log_file_keys) > 1]
    assert logs, "no record_index file group has several log files"
    assert any(s.base_file_key for s in mdt.record_index_slices()), "the MDT was never compacted"
