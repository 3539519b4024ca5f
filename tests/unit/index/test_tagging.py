"""Tagging with the four shipped indexes: inserts vs updates, global semantics, pruning, errors."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest

from hudi_framework.contracts.index import (
    LOCATION_FILE_ID,
    LOCATION_INSTANT,
    LOCATION_PARTITION,
    PARTITION_PATH,
    RECORD_KEY,
    IndexedFile,
    LookupTask,
    RecordIndex,
)
from hudi_framework.contracts.indexing.file_lookup import read_key_range, read_record_keys
from hudi_framework.errors import RecordIndexError
from hudi_framework.index.tagging import apply_locations, indexed_files, tag_locations
from hudi_framework.layout.file_group import BaseFile, FileGroupId, FileSlice
from hudi_framework.layout.naming import BaseFileName
from hudi_framework.plugin import ComponentKind, ComponentRegistry
from hudi_framework.testing.memory_storage import MemoryStorageBackend
from tests.unit.index.conftest import WriteBaseFile

NON_GLOBAL = ["simple", "bloom"]
GLOBAL = ["global-simple", "global-bloom"]


def build(registry: ComponentRegistry, name: str, **options: Any) -> RecordIndex:
    index = registry.build(ComponentKind.INDEX, name, options)
    assert isinstance(index, RecordIndex)
    return index


def incoming(rows: list[tuple[str, str]], **extra: list[Any]) -> pa.Table:
    return pa.table({RECORD_KEY: [k for k, _ in rows], PARTITION_PATH: [p for _, p in rows], **extra})


def locations(tagged: pa.Table) -> list[tuple[str, str, str | None, str | None]]:
    return list(
        zip(
            tagged.column(RECORD_KEY).to_pylist(),
            tagged.column(PARTITION_PATH).to_pylist(),
            tagged.column(LOCATION_PARTITION).to_pylist(),
            tagged.column(LOCATION_FILE_ID).to_pylist(),
            strict=True,
        )
    )


@pytest.mark.parametrize("name", NON_GLOBAL)
def test_non_global_inserts_and_updates(
    name: str, registry: ComponentRegistry, storage: MemoryStorageBackend, base_file: WriteBaseFile
) -> None:
    files = [
        base_file("p1", "f1", "001", ["a1", "a2", "a3"]),
        base_file("p1", "f2", "002", ["b1", "b2"]),
        base_file("p2", "f3", "003", ["a1", "c1"]),
    ]
    rows = [("a1", "p1"), ("b2", "p1"), ("zz", "p1"), ("a1", "p2"), ("c1", "p1"), ("c2", "p3")]
    tagged = tag_locations(build(registry, name), incoming(rows), files, storage)
    assert locations(tagged) == [
        ("a1", "p1", "p1", "f1"),
        ("b2", "p1", "p1", "f2"),
        ("zz", "p1", None, None),
        ("a1", "p2", "p2", "f3"),
        ("c1", "p1", None, None),  # c1 lives in p2: a non-global index does not look there
        ("c2", "p3", None, None),
    ]
    assert tagged.column(LOCATION_INSTANT).to_pylist() == ["001", "002", None, "003", None, None]


@pytest.mark.parametrize("name", NON_GLOBAL)
def test_non_global_key_found_once_matches_only_its_partition(
    name: str, registry: ComponentRegistry, storage: MemoryStorageBackend, base_file: WriteBaseFile
) -> None:
    # Every located key is distinct here (the key-only matching path): c1 is found in p2 only,
    # so the incoming c1 of p1 stays an insert.
    files = [base_file("p1", "f1", "001", ["a1"]), base_file("p2", "f3", "003", ["c1"])]
    rows = [("c1", "p1"), ("c1", "p2"), ("a1", "p1"), ("a1", "p2")]
    tagged = tag_locations(build(registry, name), incoming(rows), files, storage)
    assert locations(tagged) == [
        ("c1", "p1", None, None),
        ("c1", "p2", "p2", "f3"),
        ("a1", "p1", "p1", "f1"),
        ("a1", "p2", None, None),
    ]


@pytest.mark.parametrize("name", GLOBAL)
@pytest.mark.parametrize("update_partition_path", [True, False])
def test_global_partition_change(
    name: str,
    update_partition_path: bool,
    registry: ComponentRegistry,
    storage: MemoryStorageBackend,
    base_file: WriteBaseFile,
) -> None:
    files = [base_file("p1", "f1", "001", ["a1", "a2"]), base_file("p2", "f3", "003", ["c1"])]
    index = build(registry, name, update_partition_path=update_partition_path)
    assert index.is_global
    tagged = tag_locations(index, incoming([("a1", "p2"), ("c1", "p2"), ("new", "p1")]), files, storage)
    # True: keep the new partition (the writer deletes a1 from p1/f1 and inserts it in p2).
    # False: route the record to where the key lives (an update of p1/f1).
    moved_to = "p2" if update_partition_path else "p1"
    assert locations(tagged) == [("a1", moved_to, "p1", "f1"), ("c1", "p2", "p2", "f3"), ("new", "p1", None, None)]


@pytest.mark.parametrize("name", NON_GLOBAL + GLOBAL)
def test_rows_and_columns_are_carried_through(
    name: str, registry: ComponentRegistry, storage: MemoryStorageBackend, base_file: WriteBaseFile
) -> None:
    files = [base_file("", "f1", "001", ["k1", "k2"])]
    table = incoming(
        [("k2", ""), ("k9", ""), ("k2", ""), ("k1", "")],
        payload=[[1], [2, 2], [], None],
        **{LOCATION_FILE_ID: ["stale", "stale", "stale", "stale"]},
    )
    tagged = tag_locations(build(registry, name), table, files, storage)
    assert tagged.column_names == [
        RECORD_KEY,
        PARTITION_PATH,
        "payload",
        LOCATION_PARTITION,
        LOCATION_FILE_ID,
        LOCATION_INSTANT,
    ]
    assert tagged.column("payload").to_pylist() == [[1], [2, 2], [], None]
    assert tagged.column(LOCATION_FILE_ID).to_pylist() == ["f1", None, "f1", "f1"]
    assert tag_locations(build(registry, name), table.slice(0, 0), files, storage).num_rows == 0


def test_a_key_in_several_file_groups_tags_its_row_once_per_file_group() -> None:
    # Java's left outer join of records with found locations (HoodieBloomIndex.tagLocationBacktoRecords),
    # newest file group first; a global index that moves keys keeps the latest location only.
    found = pa.table(
        {
            RECORD_KEY: ["k", "k", "k"],
            LOCATION_PARTITION: ["p", "p", "q"],
            LOCATION_FILE_ID: ["old", "new", "other"],
            LOCATION_INSTANT: ["001", "005", "003"],
        }
    )
    table = incoming([("k", "p"), ("k", "q"), ("j", "p")])
    non_global = apply_locations(table, found, is_global=False, update_partition_path=True)
    assert non_global.column(LOCATION_FILE_ID).to_pylist() == ["new", "old", "other", None]
    assert non_global.column(PARTITION_PATH).to_pylist() == ["p", "p", "q", "p"]
    in_place = apply_locations(table, found, is_global=True, update_partition_path=False)
    assert in_place.column(LOCATION_FILE_ID).to_pylist() == ["new", "other", "old"] * 2 + [None]
    assert in_place.column(PARTITION_PATH).to_pylist() == ["p", "q", "p"] * 2 + ["p"]
    moving = apply_locations(table, found, is_global=True, update_partition_path=True)
    assert moving.column(LOCATION_FILE_ID).to_pylist() == ["new", "new", None]
    assert moving.column(PARTITION_PATH).to_pylist() == ["p", "q", "p"]


def test_range_pruning_plans_only_keys_in_range(
    registry: ComponentRegistry, storage: MemoryStorageBackend, base_file: WriteBaseFile
) -> None:
    low = base_file("p", "low", "001", ["a", "c", "e"])
    high = base_file("p", "high", "002", ["m", "p", "x"])
    files = [read_key_range(low, storage), read_key_range(high, storage)]
    assert (files[0].min_key, files[0].max_key, files[1].min_key, files[1].max_key) == ("a", "e", "m", "x")
    table = incoming([(k, "p") for k in ["b", "c", "zz", "n", "x", "0"]])
    pruned = build(registry, "bloom")
    assert pruned.wants_key_ranges
    tasks = pruned.candidate_files(table, files)
    assert [(t.file.file_id, sorted(t.keys.to_pylist())) for t in tasks if t.keys is not None] == [
        ("low", ["b", "c"]),
        ("high", ["n", "x"]),
    ]
    unpruned = build(registry, "bloom", prune_by_ranges=False)
    assert not unpruned.wants_key_ranges
    assert all(len(t.keys or []) == 6 for t in unpruned.candidate_files(table, files))
    # Unknown ranges are never pruned.
    bare = [low, high]
    assert all(len(t.keys or []) == 6 for t in pruned.candidate_files(table, bare))
    for index in (pruned, unpruned, build(registry, "simple")):
        tagged = tag_locations(index, table, bare, storage)
        assert tagged.column(LOCATION_FILE_ID).to_pylist() == [None, "low", None, None, "high", None]


def test_a_partitions_only_file_is_pruned_without_sorting(
    registry: ComponentRegistry,
    storage: MemoryStorageBackend,
    base_file: WriteBaseFile,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import hudi_framework.contracts.indexing.planning as planning

    def no_sorting(keys: pa.LargeStringArray) -> None:
        raise AssertionError("one file per partition needs no sorted keys")

    monkeypatch.setattr(planning, "SortedKeys", no_sorting)
    only = read_key_range(base_file("p", "only", "001", ["c", "e", "g"]), storage)
    other = read_key_range(base_file("q", "other", "001", ["a", "b"]), storage)
    table = incoming([(k, "p") for k in ["h", "e", "b", "c", "g", "d"]] + [("b", "q"), ("z", "q")])
    tasks = build(registry, "bloom").candidate_files(table, [only, other])
    # The keys in range, in incoming order (lookups answer per key whatever the order).
    assert [(t.file.file_id, t.keys.to_pylist()) for t in tasks if t.keys is not None] == [
        ("only", ["e", "c", "g", "d"]),
        ("other", ["b"]),
    ]


def test_bloom_reads_key_column_only_for_bloom_positives(
    registry: ComponentRegistry,
    storage: MemoryStorageBackend,
    base_file: WriteBaseFile,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import hudi_index_bloom.index as bloom_module

    reads: list[str] = []
    real = read_record_keys

    def counting(parquet: Any, file: IndexedFile) -> pa.LargeStringArray:
        reads.append(file.file_id)
        return real(parquet, file)

    monkeypatch.setattr(bloom_module, "read_record_keys", counting)
    # A 40-row file's default filter costs more to decode than its keys to read: leave decoding out.
    monkeypatch.setattr(bloom_module, "FOOTER_BYTES_PER_ROW", 1 << 40)
    # 40 stored keys: probing 2-3 candidates is cheaper than reading them (bloom_module.probe_pays).
    file = base_file("p", "f", "001", ["k1", "k5", "k9", *(f"z{i:02d}" for i in range(37))])
    index = build(registry, "bloom")
    absent = index.lookup(LookupTask(file, pa.array(["k2", "k3", "k4"], pa.large_string())), storage)
    assert absent.num_rows == 0
    assert reads == []
    present = index.lookup(LookupTask(file, pa.array(["k2", "k5"], pa.large_string())), storage)
    assert present.column(RECORD_KEY).to_pylist() == ["k5"]
    assert reads == ["f"]


@pytest.fixture
def footer_reads(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each footer read of the bloom index, as whether it decoded the filter."""
    import hudi_index_bloom.index as bloom_module

    reads: list[bool] = []
    real = bloom_module.read_key_footer

    def counting(metadata: Any, *, with_bloom: bool = True) -> Any:
        reads.append(with_bloom)
        return real(metadata, with_bloom=with_bloom)

    monkeypatch.setattr(bloom_module, "read_key_footer", counting)
    return reads


def test_bloom_is_skipped_when_probing_costs_more_than_the_exact_check(
    registry: ComponentRegistry,
    storage: MemoryStorageBackend,
    base_file: WriteBaseFile,
    monkeypatch: pytest.MonkeyPatch,
    footer_reads: list[bool],
) -> None:
    import hudi_index_bloom.index as bloom_module

    monkeypatch.setattr(bloom_module, "FOOTER_BYTES_PER_ROW", 1 << 40)  # probing cost only
    stored = [f"k{i:02d}" for i in range(0, 40, 2)]
    file = base_file("p", "f", "001", stored)
    index = build(registry, "bloom")
    assert bloom_module.probe_pays(2, 40)
    assert not bloom_module.probe_pays(5, 40)
    # Many candidates, most present: the exact check alone, same answer as with the filter.
    many = pa.array([f"k{i:02d}" for i in range(10)], pa.large_string())
    found = index.lookup(LookupTask(file, many), storage)
    assert found.column(RECORD_KEY).to_pylist() == ["k00", "k02", "k04", "k06", "k08"]
    assert footer_reads == [False]  # the footer is read for its key range only; the filter is not decoded
    # Few candidates: probed (the lookup reads the footer with its filter).
    few = index.lookup(LookupTask(file, pa.array(["k01", "k02"], pa.large_string())), storage)
    assert few.column(RECORD_KEY).to_pylist() == ["k02"]
    assert footer_reads == [False, True]


def test_bloom_is_skipped_when_decoding_the_filter_costs_more_than_the_exact_check(
    registry: ComponentRegistry,
    storage: MemoryStorageBackend,
    base_file: WriteBaseFile,
    footer_reads: list[bool],
) -> None:
    import hudi_index_bloom.index as bloom_module

    # The default filter (~860 KB serialised) outweighs reading 40 keys, even for one candidate.
    assert bloom_module.probe_pays(1, 70_000)
    assert not bloom_module.probe_pays(1, 40, footer_bytes=860_000)
    file = base_file("p", "f", "001", [f"k{i:02d}" for i in range(0, 40, 2)])
    found = build(registry, "bloom").lookup(LookupTask(file, pa.array(["k01", "k02"], pa.large_string())), storage)
    assert found.column(RECORD_KEY).to_pylist() == ["k02"]
    assert footer_reads == [False]  # the key range only: the filter is never decoded


@pytest.mark.parametrize("name", NON_GLOBAL + GLOBAL)
def test_files_without_footer_still_found(
    name: str, registry: ComponentRegistry, storage: MemoryStorageBackend, base_file: WriteBaseFile
) -> None:
    files = [base_file("p", "f", "001", ["k1", "k2"], footer=False)]
    tagged = tag_locations(build(registry, name), incoming([("k1", "p"), ("k3", "p")]), files, storage)
    assert tagged.column(LOCATION_FILE_ID).to_pylist() == ["f", None]


@pytest.mark.parametrize("name", NON_GLOBAL + GLOBAL)
def test_lookup_without_keys_returns_every_key(
    name: str, registry: ComponentRegistry, storage: MemoryStorageBackend, base_file: WriteBaseFile
) -> None:
    file = base_file("p", "f", "007", ["k2", "k1"])
    found = build(registry, name).lookup(LookupTask(file, None), storage)
    assert sorted(found.to_pylist(), key=lambda r: r[RECORD_KEY]) == [
        {RECORD_KEY: k, LOCATION_PARTITION: "p", LOCATION_FILE_ID: "f", LOCATION_INSTANT: "007"} for k in ["k1", "k2"]
    ]


@pytest.mark.parametrize("name", NON_GLOBAL + GLOBAL)
def test_file_without_key_column_is_an_error(
    name: str, registry: ComponentRegistry, storage: MemoryStorageBackend, base_file: WriteBaseFile
) -> None:
    files = [base_file("p", "f", "001", ["k1"], footer=False, key_column=False)]
    with pytest.raises(RecordIndexError, match="no _hoodie_record_key column"):
        tag_locations(build(registry, name), incoming([("k1", "p")]), files, storage)


def test_bad_incoming(registry: ComponentRegistry, storage: MemoryStorageBackend) -> None:
    index = build(registry, "simple")
    with pytest.raises(RecordIndexError, match="lack the columns"):
        tag_locations(index, pa.table({RECORD_KEY: ["a"]}), [], storage)
    with pytest.raises(RecordIndexError, match="must not be null"):
        tag_locations(index, pa.table({RECORD_KEY: ["a", None], PARTITION_PATH: ["", ""]}), [], storage)
    with pytest.raises(RecordIndexError, match="must be strings"):
        tag_locations(index, pa.table({RECORD_KEY: [1], PARTITION_PATH: [""]}), [], storage)


def test_file_slices_are_accepted(
    registry: ComponentRegistry, storage: MemoryStorageBackend, base_file: WriteBaseFile
) -> None:
    written = base_file("p", "f1", "20240101000000000", ["k"])
    name = written.path.rsplit("/", 1)[1]
    with_base = FileSlice(FileGroupId("p", "f1"), "20240101000000000", BaseFile(BaseFileName.parse(name)))
    log_only = FileSlice(FileGroupId("p", "f2"), "20240101000000000")
    assert indexed_files([with_base, log_only, written]) == [written, written]
    tagged = tag_locations(build(registry, "bloom"), incoming([("k", "p")]), [with_base, log_only], storage)
    assert tagged.column(LOCATION_INSTANT).to_pylist() == ["20240101000000000"]


@pytest.mark.parametrize("name", ["bloom", "global-bloom"])
def test_a_partitions_only_file_is_opened_once(
    name: str,
    registry: ComponentRegistry,
    storage: MemoryStorageBackend,
    base_file: WriteBaseFile,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opened: list[str] = []
    real = MemoryStorageBackend.open_input

    def counting(self: MemoryStorageBackend, key: str) -> Any:
        opened.append(key.rsplit("/", 1)[0])
        return real(self, key)

    monkeypatch.setattr(MemoryStorageBackend, "open_input", counting)
    files = [
        base_file("alone", "f1", "001", ["k1", "k2"]),
        base_file("pair", "f2", "001", ["a1", "a2"]),
        base_file("pair", "f3", "001", ["b1", "b2"]),
        base_file("out", "f4", "001", ["m1", "m2"]),
    ]
    rows = [("k2", "alone"), ("k9", "alone"), ("b1", "pair"), ("z1", "out")]
    tagged = tag_locations(build(registry, name), incoming(rows), files, storage)
    assert locations(tagged) == [
        ("k2", "alone", "alone", "f1"),
        ("k9", "alone", None, None),
        ("b1", "pair", "pair", "f3"),
        ("z1", "out", None, None),
    ]
    if name == "bloom":
        # "alone" and "out": one open each, the lookup's, whose footer range-checks the keys.
        # "pair": both ranges read up front, then only "f3" looked up.
        assert sorted(opened) == ["alone", "out", "pair", "pair", "pair"]
    else:  # one pool of files: every range is read before planning, then each candidate file looked up
        assert sorted(opened) == ["alone", "alone", "out", "pair", "pair", "pair"]
