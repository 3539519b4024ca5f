"""``find_prefixed_cells``: the cells whose row starts with given prefixes are exactly a full read's
cells with those heads, in key order, whichever blocks the runs start, end or span."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hudi_framework.log.hfile import HFileCompression, find_prefixed_cells, read_hfile
from hudi_framework.log.hfile_writer import HFileWriteOptions, write_hfile
from tests.hypothesis_budget import examples

#: Keys shaped like column_stats keys: a fixed-width head (the column id) then the rest.
HEADS = [f"h{i:02d}".encode() for i in range(0, 40, 3)]
KEYS = sorted({h + f"/{j:04d}".encode() for h in HEADS for j in range(0, 60 + 7 * int(h[1:]), 5)} | {b"", b"zzz"})


def _file(compression: HFileCompression, block_size: int) -> bytes:
    options = HFileWriteOptions(block_size=block_size, compression=compression)
    return write_hfile(KEYS, [b"v:" + k for k in KEYS], options=options)


def _expected(data: bytes, prefixes: list[bytes]) -> list[tuple[bytes, bytes]]:
    return [cell for cell in read_hfile(data) if cell[0].startswith(tuple(prefixes))] if prefixes else []


@pytest.mark.parametrize("compression", [HFileCompression.NONE, HFileCompression.GZ])
@pytest.mark.parametrize("block_size", [48, 700, 1 << 20])
def test_every_head_alone_and_together(compression: HFileCompression, block_size: int) -> None:
    data = _file(compression, block_size)
    for head in [*HEADS, b"h01", b"a00", b"zzz"]:
        found = list(find_prefixed_cells(data, [head]))
        assert found == _expected(data, [head])
    assert list(find_prefixed_cells(data, HEADS)) == _expected(data, HEADS)
    assert sum(1 for _ in find_prefixed_cells(data, HEADS)) == len(KEYS) - 2


@settings(max_examples=examples(60), deadline=None)
@given(
    heads=st.sets(st.sampled_from([*HEADS, b"h01", b"h99", b"a00", b"h3\xff"]), max_size=6),
    block_size=st.sampled_from([32, 300, 5000]),
)
def test_any_set_of_heads(heads: set[bytes], block_size: int) -> None:
    data = _file(HFileCompression.NONE, block_size)
    wanted = sorted(heads)
    assert list(find_prefixed_cells(data, wanted)) == _expected(data, wanted)


def test_an_empty_file_and_no_prefixes_find_nothing() -> None:
    assert list(find_prefixed_cells(write_hfile([], []), [b"h00"])) == []
    assert list(find_prefixed_cells(_file(HFileCompression.GZ, 4096), [])) == []
