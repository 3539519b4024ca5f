"""Apache Hudi's own bloom filters and key footers, in every fixture table written by Java.

For each base file with a bloom footer: our reader finds every stored key, the min/max entries are
the column's min/max, re-serialising gives Java's exact bytes, and building a filter from the
file's keys with Java's parameters gives Java's exact bytes. Then the shipped indexes tag every
key of each table with the file group that holds it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.contracts.index import (
    LOCATION_FILE_ID,
    LOCATION_INSTANT,
    LOCATION_PARTITION,
    PARTITION_PATH,
    RECORD_KEY,
    RecordIndex,
)
from hudi_framework.contracts.indexing.bloom_filter import BloomFilter, BloomFilterConfig, BloomFilterType
from hudi_framework.contracts.indexing.footer import BLOOM_FILTER_KEY, BLOOM_FILTER_TYPE_CODE_KEY, read_key_footer
from hudi_framework.contracts.indexing.key_arrays import java_min_max
from hudi_framework.errors import RecordIndexError
from hudi_framework.index.tagging import tag_locations
from hudi_framework.plugin import ComponentKind, ComponentRegistry
from hudi_framework.runtime.table import HudiTable
from tests.fixture_tables import FixtureTable, all_fixture_tables

FIXTURES = [t for t in all_fixture_tables() if not t.is_lance]
Extract = Callable[[FixtureTable], tuple[Path, Path | None]]


def _base_files(base: Path) -> list[Path]:
    return sorted(p for p in base.rglob("*.parquet") if ".hoodie" not in p.relative_to(base).parts)


def test_fixtures_have_java_bloom_filters(extract_fixture: Extract) -> None:
    with_bloom = 0
    for fixture in FIXTURES:
        base, _ = extract_fixture(fixture)
        for path in _base_files(base):
            with_bloom += BLOOM_FILTER_KEY in (pq.read_metadata(path).metadata or {})
    assert with_bloom >= 150  # hudi-format.md 5.3: "150+ Java-written base files"


@pytest.mark.parametrize("fixture", FIXTURES, ids=[t.id for t in FIXTURES])
def test_java_bloom_footers(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    files = _base_files(base)
    if not HudiTable.open(str(base)).config.populate_meta_fields:
        # hoodie.populate.meta.fields=false: no bloom filter, no min/max keys (the "*nometa*"
        # tables do populate meta fields and do carry filters).
        assert all(BLOOM_FILTER_KEY not in (pq.read_metadata(p).metadata or {}) for p in files)
        return
    checked = 0
    for path in files:
        parquet = pq.ParquetFile(path)
        kv = parquet.metadata.metadata or {}
        footer = read_key_footer(parquet.metadata)
        assert footer.bloom is not None, path
        keys = parquet.read(columns=[RECORD_KEY]).column(RECORD_KEY)
        # Every stored key is found; absent keys are not (fpp 1e-9).
        assert footer.bloom.might_contain(keys).all(), path
        absent = pa.array([f"absent-{i}-{path.name}" for i in range(200)])
        assert not footer.bloom.might_contain(absent).any(), path
        # Min/max entries are the column's min/max (absent for empty files).
        bounds = java_min_max(keys)
        assert (footer.min_key, footer.max_key) == (bounds if bounds else (None, None)), path
        # Re-serialising Java's filter gives Java's exact bytes.
        assert footer.bloom.serialize().encode() == kv[BLOOM_FILTER_KEY], path
        # Java wrote a single-row DYNAMIC_V0 filter with its defaults: rebuilding it from the
        # file's keys in row order gives the same bytes.
        assert kv[BLOOM_FILTER_TYPE_CODE_KEY] == b"DYNAMIC_V0"
        assert footer.bloom.filter_type is BloomFilterType.DYNAMIC_V0
        assert (footer.bloom.num_rows, footer.bloom.current_count) == (1, len(keys))
        ours = BloomFilter.from_keys(keys, BloomFilterConfig())
        assert base64.b64encode(ours.to_bytes()) == kv[BLOOM_FILTER_KEY], path
        checked += 1
    assert checked or not files


@pytest.mark.parametrize("fixture", FIXTURES, ids=[t.id for t in FIXTURES])
@pytest.mark.parametrize("name", ["simple", "bloom", "global-simple", "global-bloom"])
def test_indexes_find_every_key(
    fixture: FixtureTable, name: str, extract_fixture: Extract, registry: ComponentRegistry
) -> None:
    base, _ = extract_fixture(fixture)
    table = HudiTable.open(str(base))
    if not table.timeline.completed():
        pytest.skip("empty table")
    index = registry.build(ComponentKind.INDEX, name)
    assert isinstance(index, RecordIndex)
    slices = [s for s in table.latest_file_slices() if s.base_file_key is not None]
    if not table.config.populate_meta_fields:
        probe = pa.table({RECORD_KEY: ["k"], PARTITION_PATH: [slices[0].partition_path]})
        with pytest.raises(RecordIndexError, match="without meta fields"):
            tag_locations(index, probe, slices, table.storage)
        return
    stored: list[tuple[str, str, str, str]] = []  # (key, partition, file id, instant)
    for file_slice in slices:
        assert file_slice.base_file_key is not None
        with table.storage.open_input(file_slice.base_file_key) as handle:
            keys = pq.read_table(handle, columns=[RECORD_KEY]).column(RECORD_KEY).to_pylist()
        stored += [(k, file_slice.partition_path, file_slice.file_id, file_slice.base_instant_time) for k in keys]
    # Tables written with the INSERT operation may hold one key in several file groups (this one
    # does, as Apache Hudi wrote it); the index then tags the key once per file group, newest
    # (instant, file id) first, within the partition or table-wide; a global index that moves keys
    # reports the newest only.
    locations: dict[tuple[str, ...], set[tuple[str, str, str]]] = {}
    for key, partition, file_id, instant in stored:
        locations.setdefault((key,) if index.is_global else (key, partition), set()).add((partition, file_id, instant))

    def newest_first(group: tuple[str, ...]) -> list[tuple[str, str, str]]:
        ordered = sorted(locations[group], key=lambda loc: (loc[2], loc[1]), reverse=True)
        return ordered[:1] if index.is_global and index.update_partition_path else ordered

    pairs = sorted({(k, p) for k, p, *_ in stored})
    expected = [(k, *loc) for k, p in pairs for loc in newest_first((k,) if index.is_global else (k, p))]
    incoming = pa.table(
        {
            RECORD_KEY: [k for k, _ in pairs] + ["no-such-key"],
            PARTITION_PATH: [p for _, p in pairs] + [pairs[0][1] if pairs else ""],
        }
    )
    tagged = tag_locations(index, incoming, slices, table.storage)
    actual = list(
        zip(
            tagged.column(RECORD_KEY).to_pylist(),
            tagged.column(LOCATION_PARTITION).to_pylist(),
            tagged.column(LOCATION_FILE_ID).to_pylist(),
            tagged.column(LOCATION_INSTANT).to_pylist(),
            strict=True,
        )
    )
    assert actual == [*expected, ("no-such-key", None, None, None)]
