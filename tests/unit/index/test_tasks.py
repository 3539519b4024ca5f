"""Lookup tasks and indexed files survive Arrow round trips and pickling; tasks merge per file."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pytest

from hudi_framework.contracts.index import IndexedFile, LookupTask, RecordIndex
from hudi_framework.contracts.indexing.bloom_filter import BloomFilterConfig, BloomFilterType
from hudi_framework.errors import PluginConfigError
from hudi_framework.index.tasks import (
    files_from_arrow,
    files_to_arrow,
    merge_lookup_tasks,
    tasks_from_arrow,
    tasks_to_arrow,
)
from hudi_framework.plugin import ComponentKind, ComponentRegistry

F1 = IndexedFile("p", "f1", "001", "p/f1.parquet", "a", "z")
F2 = IndexedFile("", "f2", "002", "f2.parquet")


def keys(*values: str) -> pa.LargeStringArray:
    return pa.array(values, pa.large_string())


def test_arrow_round_trip() -> None:
    tasks = [LookupTask(F1, keys("a", "b")), LookupTask(F2, None), LookupTask(F2, keys())]
    table = tasks_to_arrow(tasks)
    assert table.num_rows == 3
    back = tasks_from_arrow(table)
    assert [t.file for t in back] == [F1, F2, F2]
    assert [None if t.keys is None else t.keys.to_pylist() for t in back] == [["a", "b"], None, []]
    assert files_from_arrow(files_to_arrow([F1, F2])) == [F1, F2]
    assert tasks_from_arrow(tasks_to_arrow([])) == []


def test_pickle() -> None:
    task = LookupTask(F1, keys("a"))
    again = pickle.loads(pickle.dumps(task))
    assert again.file == F1
    assert again.keys is not None
    assert again.keys.to_pylist() == ["a"]


def test_merge() -> None:
    merged = merge_lookup_tasks(
        [
            LookupTask(F1, keys("b", "a")),
            LookupTask(F2, keys("x")),
            LookupTask(F1, keys("a", "c")),
            LookupTask(F2, None),
        ]
    )
    assert [(t.file, None if t.keys is None else sorted(t.keys.to_pylist())) for t in merged] == [
        (F1, ["a", "b", "c"]),
        (F2, None),
    ]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("SIMPLE", "simple"), ("GLOBAL_SIMPLE", "global-simple"), ("BLOOM", "bloom"), ("GLOBAL_BLOOM", "global-bloom")],
)
def test_registered_names_and_pickling(name: str, expected: str, registry: ComponentRegistry) -> None:
    assert registry.get(ComponentKind.INDEX, name).spec.name == expected
    index = registry.build(ComponentKind.INDEX, name, {"num_entries": "1000", "fpp": "0.001"})
    assert isinstance(index, RecordIndex)
    assert index.is_global == expected.startswith("global-")
    assert index.update_partition_path
    assert index.bloom_filter_config == BloomFilterConfig(num_entries=1000, fpp=0.001)
    clone = pickle.loads(pickle.dumps(index))
    assert type(clone) is type(index)
    assert clone.bloom_filter_config == index.bloom_filter_config


def test_options_are_validated(registry: ComponentRegistry) -> None:
    with pytest.raises(PluginConfigError, match="fpp"):
        registry.build(ComponentKind.INDEX, "bloom", {"fpp": 2})
    with pytest.raises(PluginConfigError, match="prune_by_ranges"):
        registry.build(ComponentKind.INDEX, "simple", {"prune_by_ranges": True})
    index = registry.build(
        ComponentKind.INDEX,
        "bloom",
        {"filter_type": "SIMPLE", "prune_by_ranges": "false", "update_partition_path": "false"},
    )
    assert index.bloom_filter_config.filter_type is BloomFilterType.SIMPLE
    assert not index.wants_key_ranges
    assert not index.update_partition_path


def test_contract_defaults() -> None:
    class Minimal(RecordIndex):
        @property
        def is_global(self) -> bool:
            return False

        def candidate_files(self, incoming: pa.Table, files: object) -> list[LookupTask]:
            return []

        def lookup(self, task: LookupTask, storage: object) -> pa.Table:
            raise NotImplementedError

    index = Minimal()
    assert index.bloom_filter_config == BloomFilterConfig()
    assert not index.update_partition_path
    assert not index.wants_key_ranges
    assert index.relevant_files(["p"], [F1, F2]) == [F1]
