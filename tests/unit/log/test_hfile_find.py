"""``find_cells``: a keyed lookup in an HFile returns exactly the cells a full read has for those
rows, whichever path a block takes (byte search for a few rows, a cell walk for many), with rows
absent, before the first, after the last and on block boundaries."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.log.hfile import HFileCompression, find_cells, read_hfile
from hudi_framework.log.hfile_writer import HFileWriteOptions, write_hfile
from tests.hypothesis_budget import examples

KEYS = sorted({f"key-{i:05d}".encode() for i in range(0, 3000, 3)} | {b"", b"\xc3\xbc-utf8", b"k\x00nul"})


def _file(compression: HFileCompression, block_size: int) -> bytes:
    values = [b"value-of-" + k * 3 for k in KEYS]
    return write_hfile(KEYS, values, options=HFileWriteOptions(block_size=block_size, compression=compression))


@pytest.mark.parametrize("compression", [HFileCompression.NONE, HFileCompression.GZ])
@pytest.mark.parametrize("block_size", [64, 4096, 1 << 20])
@pytest.mark.parametrize("step", [1, 7, 150, 997])
def test_found_cells_are_the_full_reads_cells(compression: HFileCompression, block_size: int, step: int) -> None:
    data = _file(compression, block_size)
    cells = dict(read_hfile(data))
    wanted = sorted({*KEYS[::step], b"a-before-all", b"key-00001", b"key-02999x", b"zzz-after-all"})
    assert list(find_cells(data, wanted)) == [(k, cells[k]) for k in wanted if k in cells]


@settings(max_examples=examples(60), deadline=None)
@given(
    picks=st.sets(st.integers(0, len(KEYS) - 1), max_size=40),
    absent=st.sets(st.binary(max_size=12), max_size=10),
    block_size=st.sampled_from([32, 300, 5000]),
)
def test_any_mix_of_present_and_absent_rows(picks: set[int], absent: set[bytes], block_size: int) -> None:
    data = _file(HFileCompression.NONE, block_size)
    cells = dict(read_hfile(data))
    wanted = sorted({KEYS[i] for i in picks} | absent)
    assert list(find_cells(data, wanted)) == [(k, cells[k]) for k in wanted if k in cells]


def test_an_empty_file_and_no_rows_find_nothing() -> None:
    assert list(find_cells(write_hfile([], []), [b"a"])) == []
    assert list(find_cells(_file(HFileCompression.GZ, 4096), [])) == []
