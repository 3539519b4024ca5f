"""Record positions in merge-on-read logs, on local disk and on S3.

Writing (``hoodie.write.record.positions=true``; Apache Hudi's default, not ours): the update and delete
blocks of a delta commit carry RECORD_POSITIONS, the base-file rows of their keys, with the records
sorted by position, and BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS. Reading
(``hoodie.merge.use.record.positions``): the merge pairs log records with base rows by position and
returns exactly the rows of the key-based merge; wrong positions fall back to the key-based merge.
"""

from __future__ import annotations

import logging

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import hudi_framework.read.merged as merged_module
import hudi_framework.write.record_positions as write_positions
from hudi_framework.config.settings import HudiSettings
from hudi_framework.layout.naming import BaseFileName, LogFileName
from hudi_framework.log import DataBlock, DeleteBlock, read_log_file
from hudi_framework.log.blocks import HeaderKey
from hudi_framework.log.record_positions import decode_positions, encode_positions
from hudi_framework.read.merged_task import MergedReadTask
from hudi_framework.read.reader import build_options, plan_read, read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Instant
from hudi_framework.write.client import WriteClient
from tests.faults.s3_faults import Place

MOR = "MERGE_ON_READ"
POSITIONS_ON = {"hoodie.merge.use.record.positions": "true"}
WRITE_POSITIONS = {"hoodie.write.record.positions": "true"}
SCHEMA = pa.schema([("id", pa.string()), ("part", pa.string()), ("ts", pa.int64()), ("v", pa.int64())])


def _rows(ids: np.ndarray, ts: int, rng: np.random.Generator, deleted: np.ndarray | None = None) -> pa.Table:
    table = pa.table(
        {
            "id": [f"k{i:05d}" for i in ids],
            "part": [f"p{i % 3}" for i in ids],
            "ts": pa.array(np.full(len(ids), ts, dtype=np.int64)),
            "v": pa.array(rng.integers(0, 1_000_000, len(ids))),
        },
        schema=SCHEMA,
    )
    if deleted is not None:
        table = table.append_column("_hoodie_is_deleted", pa.array(deleted))
    return table


def _client(place: Place, *, version: int = 9, **options: str) -> WriteClient:
    base = {"hoodie.parquet.small.file.limit": "0", "hoodie.index.bloom.num_entries": "500"}
    settings = HudiSettings.from_hoodie_options({**base, **WRITE_POSITIONS, **options}, env=False)
    try:
        table = place.open()
    except Exception:  # first write: create it
        config = new_table_config(
            "positions", table_type=MOR, record_key_fields=["id"], partition_fields=["part"],
            ordering_fields=["ts"], version=version,
        )  # fmt: skip
        table = HudiTable.create(place.uri, config, schema=SCHEMA, storage_options=place.options)
    return WriteClient(table, settings)


def _log_blocks(table: HudiTable, instant: Instant) -> list[tuple[str, DataBlock | DeleteBlock]]:
    """(file id, block) of every data and delete block the delta commit ``instant`` wrote."""
    metadata = table.timeline.read_commit_metadata(instant)
    out: list[tuple[str, DataBlock | DeleteBlock]] = []
    for stat in metadata.write_stats():
        assert stat.path is not None
        if LogFileName.try_parse(stat.path.rsplit("/", 1)[-1]) is None:
            continue
        blocks = read_log_file(table.storage, stat.path)
        out += [(stat.file_id or "", b) for b in blocks if isinstance(b, DataBlock | DeleteBlock)]
    return out


def _base_rows(table: HudiTable) -> dict[str, tuple[str, list[str]]]:
    """File id -> (instant, record keys in file order) of each base file."""
    out = {}
    for batch in [read_table(table, query_type="read_optimized", columns=["_hoodie_file_name", "_hoodie_record_key"])]:
        for name in pc.unique(batch.column("_hoodie_file_name")).to_pylist():
            rows = batch.filter(pc.equal(batch.column("_hoodie_file_name"), name))
            parsed = BaseFileName.parse(name)
            out[parsed.file_id] = (parsed.instant_time, rows.column("_hoodie_record_key").to_pylist())
    return out


def _keys(block: DataBlock | DeleteBlock) -> list[str]:
    if isinstance(block, DataBlock):
        return [str(k) for k in block.records.column("_hoodie_record_key").to_pylist()]
    return [str(k) for k in block.record_keys]


def _sorted(table: pa.Table) -> pa.Table:
    return table.sort_by([("_hoodie_record_key", "ascending")])


def test_update_and_delete_blocks_carry_the_base_file_positions_of_their_records(place: Place) -> None:
    rng = np.random.default_rng(1)
    _client(place).bulk_insert(_rows(rng.permutation(300), 0, rng))
    table = place.open()
    bases = _base_rows(table)
    ids = rng.choice(300, 60, replace=False)
    deleted = np.arange(60) % 4 == 0
    instant = _client(place).upsert(_rows(ids, 1, rng, deleted)).instant
    blocks = _log_blocks(place.open(), instant)
    assert {type(b) for _, b in blocks} == {DataBlock, DeleteBlock}
    for file_id, block in blocks:
        base_instant, base_keys = bases[file_id]
        assert block.header[HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS] == base_instant
        positions = decode_positions(block.header[HeaderKey.RECORD_POSITIONS]).tolist()
        # Records sorted by position: the i-th record is the base file's row at the i-th position.
        assert [base_keys[p] for p in positions] == _keys(block)
    assert sum(len(_keys(b)) for _, b in blocks) == 60


@pytest.mark.parametrize("setting", [{"hoodie.write.record.positions": "false"}, None])
@pytest.mark.s3_full  # positions are log-block content: the S3 side is the first test's
def test_no_positions_when_off_which_is_the_default(place: Place, setting: dict[str, str] | None) -> None:
    rng = np.random.default_rng(2)
    _client(place).bulk_insert(_rows(np.arange(100), 0, rng))
    ids = np.arange(0, 100, 7)
    settings = HudiSettings.from_hoodie_options(setting or {}, env=False)
    instant = WriteClient(place.open(), settings).upsert(_rows(ids, 1, rng, ids % 2 == 0)).instant
    blocks = _log_blocks(place.open(), instant)
    assert blocks
    for _, block in blocks:
        assert HeaderKey.RECORD_POSITIONS not in block.header
        assert HeaderKey.BASE_FILE_INSTANT_TIME_OF_RECORD_POSITIONS not in block.header


def test_version_6_tables_get_no_positions(place: Place) -> None:
    rng = np.random.default_rng(3)
    _client(place, version=6).bulk_insert(_rows(np.arange(50), 0, rng))
    instant = _client(place).upsert(_rows(np.arange(0, 50, 5), 1, rng)).instant
    blocks = _log_blocks(place.open(), instant)
    assert blocks
    assert all(HeaderKey.RECORD_POSITIONS not in b.header for _, b in blocks)


# Random tables on local disk only (the S3 cases above cover positions written through storage).
@pytest.mark.parametrize("place", ["local"], indirect=True)
@pytest.mark.parametrize("seed", range(4))
def test_merge_by_position_returns_the_rows_of_the_merge_by_key(
    place: Place, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Random tables, rounds of updates, deletes, late (lower ordering) updates and inserts."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(50, 400))
    _client(place).bulk_insert(_rows(rng.permutation(n), 5, rng))
    for round_ in range(int(rng.integers(1, 4))):
        stored = rng.choice(n, int(rng.integers(1, n)), replace=False)
        ids = np.unique(np.concatenate([stored, n + rng.integers(0, 40, 3)]))  # and a few inserts
        ts = int(rng.choice([1, 6 + round_]))  # 1: older than the stored rows, loses under event-time ordering
        _client(place).upsert(_rows(ids, ts, rng, rng.random(len(ids)) < 0.2))
    positioned = []
    original = merged_module.same_keys

    def spy(*args: object) -> bool:
        result = original(*args)  # type: ignore[arg-type]
        positioned.append(result)
        return result

    monkeypatch.setattr(merged_module, "same_keys", spy)
    by_key = read_table(place.open())
    assert not positioned
    by_position = read_table(place.open(), options=POSITIONS_ON)
    assert positioned
    plan = plan_read(place.open(), build_options(options=POSITIONS_ON))
    merged_tasks = [t for t in plan.tasks if isinstance(t, MergedReadTask)]
    assert merged_tasks
    assert all(t.use_record_positions for t in merged_tasks)
    assert all(positioned)
    assert _sorted(by_position).equals(_sorted(by_key))


@pytest.mark.s3_full  # positions are log-block content: the S3 side is the first test's
def test_wrong_positions_fall_back_to_the_merge_by_key(
    place: Place, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    rng = np.random.default_rng(5)
    _client(place).bulk_insert(_rows(np.arange(200), 0, rng))
    # A writer that shifts every position by one: the pairs it names hold other keys.
    monkeypatch.setattr(write_positions, "encode_positions", lambda p: encode_positions(np.asarray(p) + 1))
    ids = np.arange(0, 150, 3)
    _client(place).upsert(_rows(ids, 1, rng, ids % 5 == 0))
    by_key = read_table(place.open())
    with caplog.at_level(logging.WARNING, logger="hudi_framework.read.merged"):
        by_position = read_table(place.open(), options=POSITIONS_ON)
    assert "do not match" in caplog.text
    assert _sorted(by_position).equals(_sorted(by_key))


def test_use_record_positions_takes_only_true_or_false() -> None:
    from hudi_framework.errors import InvalidConfigValueError

    # Spark lower-cases option keys and passes values as given.
    assert build_options(options={"HOODIE.merge.use.record.positions": "TRUE"}).use_record_positions
    assert not build_options().use_record_positions
    with pytest.raises(InvalidConfigValueError, match=r"hoodie\.merge\.use\.record\.positions"):
        build_options(options={"hoodie.merge.use.record.positions": "yes"})
