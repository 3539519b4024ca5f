"""Every shipped index agrees with a brute-force reference on random tables and inputs."""

from __future__ import annotations

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.contracts.index import (
    LOCATION_FILE_ID,
    LOCATION_PARTITION,
    PARTITION_PATH,
    RECORD_KEY,
    RecordIndex,
)
from hudi_framework.contracts.indexing.bloom_filter import BloomFilterConfig
from hudi_framework.index.tagging import tag_locations
from hudi_framework.testing.memory_storage import MemoryStorageBackend
from hudi_index_bloom import BloomIndex, BloomIndexOptions, GlobalBloomIndex
from hudi_index_simple import GlobalSimpleIndex, SimpleIndex, SimpleIndexOptions
from tests.unit.index.conftest import write_base_file

PARTITIONS = ["p1", "p2", "p3"]
KEY = st.text(alphabet=st.sampled_from("ab\u00e9\uffee\U0001f600"), min_size=1, max_size=4)
# Tiny filters: bloom false positives and several dynamic rows are common, so the exact check matters.
TINY = BloomFilterConfig(num_entries=3, fpp=0.3, dynamic_max_entries=7)


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[dict[str, tuple[str, str]], list[tuple[str, str]]]:
    """A table (key -> (partition, file id), keys unique table-wide) and incoming (key, partition) rows."""
    keys = draw(st.lists(KEY, unique=True, max_size=25))
    files = [(p, f"{p}-f{i}") for p in PARTITIONS for i in range(2)]
    placement = {k: draw(st.sampled_from(files)) for k in keys}
    known = st.sampled_from(keys) if keys else KEY
    rows = draw(st.lists(st.tuples(st.one_of(known, KEY), st.sampled_from([*PARTITIONS, "p4"])), max_size=30))
    return placement, rows


def _indexes(update: bool) -> list[RecordIndex]:
    bloom = BloomIndexOptions(**TINY.model_dump(), update_partition_path=update)
    unpruned = bloom.model_copy(update={"prune_by_ranges": False})
    simple = SimpleIndexOptions(update_partition_path=update)
    return [
        SimpleIndex(simple),
        BloomIndex(bloom),
        BloomIndex(unpruned),
        GlobalSimpleIndex(simple),
        GlobalBloomIndex(bloom),
        GlobalBloomIndex(unpruned),
    ]


@settings(max_examples=40, deadline=None)
@given(scenario=scenarios(), update=st.booleans())
def test_indexes_match_reference(
    scenario: tuple[dict[str, tuple[str, str]], list[tuple[str, str]]], update: bool
) -> None:
    placement, rows = scenario
    storage = MemoryStorageBackend("memory://props/table")
    by_file: dict[tuple[str, str], list[str]] = {}
    for key, location in placement.items():
        by_file.setdefault(location, []).append(key)
    files = [
        write_base_file(storage, partition, file_id, "001", keys, config=TINY)
        for (partition, file_id), keys in sorted(by_file.items())
    ]
    incoming = pa.table({RECORD_KEY: [k for k, _ in rows], PARTITION_PATH: [p for _, p in rows]})
    for index in _indexes(update):
        tagged = tag_locations(index, incoming, files, storage)
        expected: list[tuple[str, str | None, str | None]] = []
        for key, partition in rows:
            where = placement.get(key)
            if where is not None and (index.is_global or where[0] == partition):
                routed = partition if (not index.is_global or update) else where[0]
                expected.append((routed, where[0], where[1]))
            else:
                expected.append((partition, None, None))
        actual = list(
            zip(
                tagged.column(PARTITION_PATH).to_pylist(),
                tagged.column(LOCATION_PARTITION).to_pylist(),
                tagged.column(LOCATION_FILE_ID).to_pylist(),
                strict=True,
            )
        )
        assert actual == expected, index
