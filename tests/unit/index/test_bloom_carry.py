"""A base file's bloom filter carried over to its rewrite: never a false negative, rebuilt when stale."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig, BloomFilterType
from hudi_framework.contracts.indexing.footer import BLOOM_FILTER_KEY, bloom_footer_metadata, read_key_footer
from hudi_framework.index.bloom_carry import STALE_RATIO, carried_bloom
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient

CONFIG = BloomFilterConfig(num_entries=40, fpp=1e-4, dynamic_max_entries=120)
KEYS = st.lists(st.text(alphabet="abcdef", min_size=1, max_size=6), unique=True, max_size=90)


def _footer(keys: list[str], config: BloomFilterConfig = CONFIG) -> dict[bytes, bytes]:
    return bloom_footer_metadata(keys, config)


@settings(max_examples=60, deadline=None)
@given(old=KEYS, data=st.data())
def test_carried_filter_holds_every_live_key(old: list[str], data: st.DataObject) -> None:
    deleted = set(data.draw(st.lists(st.sampled_from(old), unique=True)) if old else [])
    inserted = [k for k in data.draw(KEYS) if k not in old]
    live = [k for k in old if k not in deleted] + inserted
    added = pa.array(inserted, pa.string())
    bloom = carried_bloom(_footer(old), CONFIG, live_rows=len(live), added=added)
    stale = len(deleted)
    if stale > STALE_RATIO * len(live):
        assert bloom is None
        return
    assert bloom is not None
    assert bloom.might_contain(live).all()  # no false negatives, whatever moved
    assert bloom.keys_added == len(old) + len(inserted)


def test_carried_filter_answers_like_a_fresh_one_and_serialises() -> None:
    old = [f"k{i:03d}" for i in range(100)]
    inserted = ["n1", "n2"]
    bloom = carried_bloom(_footer(old), CONFIG, live_rows=102, added=pa.array(inserted))
    assert bloom is not None
    assert bloom.num_rows == 3  # rows kept growing up to dynamic_max_entries as the writer's would
    footer = bloom_footer_metadata(old + inserted, CONFIG, bloom=bloom)
    back = read_key_footer(footer)
    assert back.bloom is not None
    assert back.bloom.might_contain(old + inserted).all()
    assert (back.min_key, back.max_key) == ("k000", "n2")
    assert footer[BLOOM_FILTER_KEY] == bloom.serialize().encode("ascii")


@pytest.mark.parametrize(
    ("previous", "config", "live_rows"),
    [
        (None, CONFIG, 10),  # a new file group
        ({}, CONFIG, 10),  # no filter in the previous file
        ({BLOOM_FILTER_KEY: b"not base64!"}, CONFIG, 10),  # unreadable: rebuilt, not an error
        (bloom_footer_metadata([str(i) for i in range(10)], CONFIG), CONFIG.model_copy(update={"fpp": 1e-5}), 10),
        (
            bloom_footer_metadata([str(i) for i in range(10)], CONFIG),
            CONFIG.model_copy(update={"filter_type": BloomFilterType.SIMPLE}),
            10,
        ),
        (
            bloom_footer_metadata(
                [str(i) for i in range(10)], CONFIG.model_copy(update={"filter_type": BloomFilterType.SIMPLE})
            ),
            CONFIG,
            10,
        ),
        (bloom_footer_metadata([str(i) for i in range(10)], CONFIG), CONFIG, 11),  # counts fewer keys than rows
        (bloom_footer_metadata([str(i) for i in range(100)], CONFIG), CONFIG, 90),  # 10 stale of 90 > 10%
        (
            bloom_footer_metadata([str(i) for i in range(100)], CONFIG),
            CONFIG.model_copy(update={"dynamic_max_entries": 40}),  # more rows than the writer allows
            100,
        ),
    ],
)
def test_rebuilt_when_not_carried(
    previous: dict[bytes, bytes] | None, config: BloomFilterConfig, live_rows: int
) -> None:
    assert carried_bloom(previous, config, live_rows=live_rows, added=pa.array([], pa.string())) is None


def _filter_of(base: Path, partition: str) -> tuple[BloomFilter, int]:
    [path] = sorted((base / partition).glob("*.parquet"), key=lambda p: p.stat().st_mtime_ns)[-1:]
    parquet = pq.ParquetFile(path)
    bloom = read_key_footer(parquet.metadata).bloom
    assert bloom is not None
    return bloom, parquet.metadata.num_rows


def test_upserts_carry_the_filter_until_deletes_make_it_stale(tmp_path: Path) -> None:
    config = new_table_config("t", record_key_fields=["id"], partition_fields=["p"], ordering_fields=["ts"])
    table = HudiTable.create(str(tmp_path), config)
    client = WriteClient(table, settings=None)

    def batch(ids: list[int], ts: int, deleted: bool = False) -> pa.Table:
        return pa.table({
            "id": [f"k{i:04d}" for i in ids], "p": ["a"] * len(ids), "ts": pa.array([ts] * len(ids), pa.int64()),
            "_hoodie_is_deleted": [deleted] * len(ids),
        })  # fmt: skip

    client.upsert(batch(list(range(200)), 1))
    first, rows = _filter_of(tmp_path, "a")
    assert first.keys_added == rows == 200
    client.upsert(batch([*range(0, 200, 10), *range(200, 210)], 2))  # 20 updates, 10 new keys
    carried, rows = _filter_of(tmp_path, "a")
    assert rows == 210
    assert carried.keys_added == 210
    client.upsert(batch(list(range(5)), 3, deleted=True))  # 5 stale keys of 205: still carried
    carried, rows = _filter_of(tmp_path, "a")
    assert rows == 205
    assert carried.keys_added == 210
    client.upsert(batch(list(range(5, 40)), 4, deleted=True))  # 40 stale of 170 rows: rebuilt
    fresh, rows = _filter_of(tmp_path, "a")
    assert rows == 170
    assert fresh.keys_added == 170
    # Every live key is still found by the index: updating them all adds no rows.
    client.upsert(batch(list(range(40, 210)), 5))
    assert HudiTable.open(str(tmp_path)).latest_file_slices()[0].base_file is not None
    _, rows = _filter_of(tmp_path, "a")
    assert rows == 170
