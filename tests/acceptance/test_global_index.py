"""Global index semantics: ``hoodie.index.type`` GLOBAL_SIMPLE / GLOBAL_BLOOM with
``hoodie.{simple,bloom}.index.update.partition.path`` true or false.

A key upserted with a new partition value either moves (deleted in its old partition, inserted in
the new one) or stays in its old partition (updated there, its data saying the new value). A key
is never in two partitions. With a non-global index the same upsert is a second record.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from hudi_framework.vocabulary import WriteOperation
from tests.acceptance.data import to_table
from tests.acceptance.engines import Step, WriteEngine
from tests.acceptance.layouts import KeyGen, Layout, PartitionStyle
from tests.acceptance.scenario import SMALL_FILES, Scenario


def _options(index: str, update: bool | None) -> dict[str, str]:
    options = {"hoodie.index.type": index}
    if update is not None:
        family = "bloom" if "BLOOM" in index else "simple"
        options[f"hoodie.{family}.index.update.partition.path"] = str(update).lower()
    return options


def _where(sc: Scenario) -> dict[str, list[tuple[str, str, int]]]:
    """id -> [(partition path, region, seq)], from the latest base files themselves (meta fields or not)."""
    out: dict[str, list[tuple[str, str, int]]] = {}
    for file_slice in sc.table.latest_file_slices():
        assert file_slice.base_file_key is not None
        rows = pq.read_table(sc.path / file_slice.base_file_key, columns=["id", "region", "seq"])
        for r in rows.to_pylist():
            out.setdefault(r["id"], []).append((file_slice.partition_path, r["region"], r["seq"]))
    return out


CASES = [
    pytest.param("GLOBAL_SIMPLE", True, Layout(KeyGen.SIMPLE, True), 9, True, id="global-simple-move-simple-v9"),
    pytest.param(
        "GLOBAL_SIMPLE",
        False,
        Layout(KeyGen.SIMPLE, True, PartitionStyle.HIVE),
        6,
        True,
        id="global-simple-stay-simple-hive-v6",
    ),
    pytest.param("GLOBAL_BLOOM", True, Layout(KeyGen.COMPLEX, True), 8, True, id="global-bloom-move-complex-v8"),
    pytest.param("GLOBAL_BLOOM", False, Layout(KeyGen.CUSTOM, True), 9, True, id="global-bloom-stay-custom-v9"),
    pytest.param(
        "GLOBAL_BLOOM",
        None,
        Layout(KeyGen.SIMPLE, True, PartitionStyle.URL_ENCODED),
        8,
        True,
        id="global-bloom-default-url-encoded-v8",
    ),
    pytest.param("GLOBAL_SIMPLE", True, Layout(KeyGen.SIMPLE, True), 8, False, id="global-simple-move-nometa-v8"),
    pytest.param("GLOBAL_BLOOM", False, Layout(KeyGen.SIMPLE, True), 6, False, id="global-bloom-stay-nometa-v6"),
]


@pytest.mark.parametrize(("index", "update", "layout", "version", "meta"), CASES)
def test_keys_moving_partitions(
    index: str, update: bool | None, layout: Layout, version: int, meta: bool, engine: WriteEngine, tmp_path: Path
) -> None:
    options = _options(index, update) | SMALL_FILES
    sc = Scenario(engine, tmp_path / "t", layout, version=version, options=options, populate_meta_fields=meta)
    sc.write_inserts(90, WriteOperation.BULK_INSERT)
    before = _where(sc)
    sc.write_moves(15)
    moved = {rec.row["id"] for rec in sc.model.current.values() if rec.step == 1}
    after = _where(sc)
    assert all(len(v) == 1 for v in after.values()), "a key is in two partitions"
    for key in moved:
        (old_path, old_region, _), (new_path, new_region, _) = before[key][0], after[key][0]
        assert new_region != old_region  # the data always carries the new value
        assert (new_path != old_path) is (update is not False), (key, old_path, new_path)
    sc.write_upsert(updates=20, stale=6, inserts=10, duplicates=4, deletes=4)
    sc.write_moves(10)
    sc.write_delete(8)
    assert all(len(v) == 1 for v in _where(sc).values()), "a key is in two partitions"
    sc.checker().check_all()


@pytest.mark.parametrize("index", ["GLOBAL_SIMPLE", "GLOBAL_BLOOM"])
def test_an_older_version_in_another_partition_does_not_move_the_key(
    index: str, engine: WriteEngine, tmp_path: Path
) -> None:
    """The stored record wins the merge (greater ordering value), so the key stays where it is,
    unchanged, as Java's ``mergeForPartitionUpdates`` decides; it is not inserted in the new partition."""
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True), options=_options(index, True))
    sc.write_inserts(9, WriteOperation.BULK_INSERT)
    before = _where(sc)
    home = sc.rows.home(4)[0]
    other = next(r for r in sc.layout.regions if r != home)
    stale = sc.rows.row(4, seq=0, region=other)
    fresh = sc.rows.row(5, region=next(r for r in sc.layout.regions if r != sc.rows.home(5)[0]))
    sc.run(Step(WriteOperation.UPSERT, to_table([stale, fresh])), [stale, fresh])
    after = _where(sc)
    assert after["k0004"] == before["k0004"]  # same partition, same version
    assert after["k0005"][0][0] != before["k0005"][0][0]  # the newer version moved
    sc.checker().check_all()


@pytest.mark.parametrize("index", ["SIMPLE", "BLOOM"])
def test_a_non_global_index_keeps_a_record_per_partition(index: str, engine: WriteEngine, tmp_path: Path) -> None:
    sc = Scenario(engine, tmp_path / "t", Layout(KeyGen.SIMPLE, True), options={"hoodie.index.type": index})
    sc.write_inserts(30, WriteOperation.BULK_INSERT)
    sc.write_moves(6)
    where = _where(sc)
    assert sorted(Counter(len(v) for v in where.values()).items()) == [(1, 24), (2, 6)]
    # One batch holding a key in two partitions is two records too (Java de-duplicates by HoodieKey).
    rows = [sc.rows.row(100, region="eu"), sc.rows.row(100, region="us"), sc.rows.row(100, region="us")]
    sc.run(Step(WriteOperation.UPSERT, to_table(rows)), rows)
    assert sorted(p for p, _, _ in _where(sc)["k0100"]) == ["eu", "us"]
    sc.checker().check_all()
