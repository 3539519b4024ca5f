"""Global-index partition moves are decided by the merger; tables without meta fields are tagged by key generator."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.config.settings import HudiSettings
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.write.client import WriteClient


def _client(path: Path, options: dict[str, str], *, meta: bool = True) -> WriteClient:
    config = new_table_config(
        "t", record_key_fields=["id"], partition_fields=["city"], ordering_fields=["ts"], populate_meta_fields=meta
    )
    return WriteClient(HudiTable.create(str(path), config), HudiSettings.from_hoodie_options(options, env=False))


def _batch(ids: list[str], cities: list[str], ts: list[int]) -> pa.Table:
    return pa.table({"id": ids, "city": cities, "ts": pa.array(ts, pa.int64())})


def _where(client: WriteClient) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for file_slice in client.table.reload().latest_file_slices():
        assert file_slice.base_file_key is not None
        for r in pq.read_table(Path(client.table.base_uri) / file_slice.base_file_key).to_pylist():
            out.setdefault(r["id"], []).append((file_slice.partition_path, r["ts"]))
    return out


@pytest.mark.parametrize("meta", [True, False], ids=["meta", "nometa"])
@pytest.mark.parametrize("index", ["GLOBAL_SIMPLE", "GLOBAL_BLOOM"])
def test_a_key_moves_only_when_the_incoming_record_wins(tmp_path: Path, index: str, meta: bool) -> None:
    client = _client(tmp_path, {"hoodie.index.type": index}, meta=meta)
    client.upsert(_batch(["a", "b", "c"], ["sf", "sf", "sf"], [5, 5, 5]))
    # a: newer, moves to ny; b: older (ts 1 < 5), stays in sf unchanged; c: same partition update.
    client.upsert(_batch(["a", "b", "c"], ["ny", "ny", "sf"], [6, 1, 7]))
    assert _where(client) == {"a": [("ny", 6)], "b": [("sf", 5)], "c": [("sf", 7)]}


def test_update_partition_path_false_keeps_the_key_in_place(tmp_path: Path) -> None:
    client = _client(
        tmp_path, {"hoodie.index.type": "GLOBAL_SIMPLE", "hoodie.simple.index.update.partition.path": "false"}
    )
    client.upsert(_batch(["a"], ["sf"], [5]))
    client.upsert(_batch(["a"], ["ny"], [6]))
    rows = read_table(client.table.reload(), columns=["id", "city", "_hoodie_partition_path"]).to_pylist()
    assert rows == [{"id": "a", "city": "ny", "_hoodie_partition_path": "sf"}]


def test_upserts_and_deletes_on_a_table_without_meta_fields(tmp_path: Path) -> None:
    client = _client(tmp_path, {"hoodie.index.type": "BLOOM"}, meta=False)
    client.upsert(_batch(["a", "b"], ["sf", "ny"], [1, 1]))
    result = client.upsert(_batch(["a", "c"], ["sf", "ny"], [2, 1]))
    assert (result.num_updates, result.num_inserts) == (1, 1)
    client.delete(pa.table({"id": ["b"], "city": ["ny"]}))
    assert _where(client) == {"a": [("sf", 2)], "c": [("ny", 1)]}


def test_a_batch_holding_a_key_in_two_partitions_is_two_records(tmp_path: Path) -> None:
    """Non-global index: Java pre-combines by HoodieKey (key and partition path)."""
    client = _client(tmp_path, {})
    client.upsert(_batch(["a", "a", "a"], ["sf", "ny", "ny"], [1, 3, 2]))
    assert {k: sorted(v) for k, v in _where(client).items()} == {"a": [("ny", 3), ("sf", 1)]}


@pytest.mark.parametrize("index", ["BLOOM", "SIMPLE"])
def test_a_non_global_index_settles_no_moves(tmp_path: Path, index: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import hudi_framework.write.moves as moves

    def no_settling(*args: object, **kwargs: object) -> pa.Table:
        raise AssertionError("a non-global index locates keys in their own partition: nothing moves")

    monkeypatch.setattr(moves, "settle_partition_moves", no_settling)
    client = _client(tmp_path, {"hoodie.index.type": index})
    client.upsert(_batch(["a", "b"], ["sf", "sf"], [5, 5]))
    # The same key in another partition is another record for a non-global index.
    client.upsert(_batch(["a", "b"], ["ny", "sf"], [6, 7]))
    where = {key: sorted(places) for key, places in _where(client).items()}
    assert where == {"a": [("ny", 6), ("sf", 5)], "b": [("sf", 7)]}
