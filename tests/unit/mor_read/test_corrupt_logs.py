"""Damaged log files: merged reads return every intact row and report each corrupt block."""

from __future__ import annotations

import warnings
from pathlib import Path

import pyarrow as pa
import pytest

from hudi_framework.errors import CorruptLogBlockError
from hudi_framework.log import CorruptBlock, DataBlock, read_log_file
from hudi_framework.read import read_table
from hudi_framework.read.log_records import CorruptLogBlockWarning
from tests.unit.mor_read.builder import MorBuilder, data_block
from tests.unit.read.builder import FileWrite, rows, t


def _table(path: Path) -> tuple[MorBuilder, str]:
    """Base rows a..c; one delta commit whose log file has three blocks updating a, b and c."""
    b = MorBuilder(str(path))
    b.commit(t(1), [FileWrite("sf", "f1-0", rows(("a", 1, 1.0, "sf"), ("b", 1, 2.0, "sf"), ("c", 1, 3.0, "sf")))])
    blocks = [data_block(t(2), rows((k, 2, v, "sf")), "sf", "f1-0") for k, v in (("a", 10.0), ("b", 20.0), ("c", 30.0))]
    b.delta_commit(t(2), "sf", "f1-0", blocks, base_instant=t(1))
    key = next(i.key for i in b.storage.list("sf") if ".log." in i.name)
    return b, key


def _fares(table: pa.Table) -> dict[str, float]:
    return dict(zip(table.column("id").to_pylist(), table.column("fare").to_pylist(), strict=True))


def _offsets(b: MorBuilder, key: str) -> list[tuple[int, int]]:
    out = []
    for block in read_log_file(b.storage, key):
        assert isinstance(block, DataBlock)
        assert block.position is not None
        out.append((block.position.offset, block.position.size))
    return out


def _read_reporting(b: MorBuilder) -> tuple[pa.Table, list[CorruptBlock], list[CorruptLogBlockWarning]]:
    seen: list[CorruptBlock] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = read_table(b.table, on_corrupt=seen.append)
    reported = [w.message for w in caught if isinstance(w.message, CorruptLogBlockWarning)]
    return out, seen, reported


def test_corrupted_tail_keeps_every_intact_block(tmp_path: Path) -> None:
    b, key = _table(tmp_path)
    data = b.storage.read(key)
    last_offset = _offsets(b, key)[-1][0]
    b.storage.delete(key)
    b.storage.put_if_absent(key, data[:-10])  # a crash while writing the last block
    out, seen, reported = _read_reporting(b)
    assert _fares(out) == {"a": 10.0, "b": 20.0, "c": 3.0}
    assert [(c.path, c.offset) for c in seen] == [(key, last_offset)]
    assert len(reported) == 1
    message = str(reported[0])
    assert key in message
    assert f"offset {last_offset}" in message


def test_corrupted_middle_block_is_skipped_and_later_blocks_read(tmp_path: Path) -> None:
    b, key = _table(tmp_path)
    data = bytearray(b.storage.read(key))
    middle, _ = _offsets(b, key)[1]
    data[middle + 10] ^= 0xFF  # inside the block length: length and trailer no longer agree
    b.storage.delete(key)
    b.storage.put_if_absent(key, bytes(data))
    out, seen, reported = _read_reporting(b)
    assert _fares(out) == {"a": 10.0, "b": 2.0, "c": 30.0}
    assert [(c.path, c.offset) for c in seen] == [(key, middle)]
    assert len(reported) == 1


@pytest.mark.parametrize("seed", range(5))
def test_random_damage_never_crashes_or_invents_rows(tmp_path: Path, seed: int) -> None:
    import random

    b, key = _table(tmp_path)
    data = bytearray(b.storage.read(key))
    rng = random.Random(seed)
    for _ in range(3):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    b.storage.delete(key)
    b.storage.put_if_absent(key, bytes(data))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorruptLogBlockWarning)
        out = read_table(b.table)
    # Flips inside a value go undetected (the format has no checksum), but a damaged block never
    # adds or drops keys of the base file.
    assert sorted(out.column("id").to_pylist()) == ["a", "b", "c"]


def test_a_callback_that_raises_fails_the_read(tmp_path: Path) -> None:
    """docs/reading.md: ``on_corrupt`` raising ``block.error()`` turns the skip into a typed error."""
    b, key = _table(tmp_path)
    data = bytearray(b.storage.read(key))
    middle, _ = _offsets(b, key)[1]
    data[middle + 10] ^= 0xFF
    b.storage.delete(key)
    b.storage.put_if_absent(key, bytes(data))

    def fail(block: CorruptBlock) -> None:
        raise block.error()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CorruptLogBlockWarning)
        with pytest.raises(CorruptLogBlockError) as caught:
            read_table(b.table, on_corrupt=fail)
    assert (caught.value.path, caught.value.offset) == (key, middle)
