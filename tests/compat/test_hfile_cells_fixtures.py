"""Apache Hudi's own HFiles (every MDT log block and base file of the v9 fixture tables, every
partition): the vectorised cell scan locates exactly the cells the sequential walk reads, and
declines none of them (Java writes the plain cells the scan proves)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hudi_framework.log import HFileBlock, hfile, read_log_bytes
from hudi_framework.log.hfile import read_hfile
from hudi_framework.log.hfile_cells import block_cells
from tests.compat.test_hfile_fixtures import MDT_FIXTURES, _mdt
from tests.fixture_tables import FixtureTable

Extract = Callable[[FixtureTable], tuple[Path, Path | None]]


def _hfiles(mdt: Path) -> list[bytes]:
    out = [p.read_bytes() for p in mdt.rglob("*.hfile")]
    for log in mdt.rglob(".*.log.*"):
        out += [b.content for b in read_log_bytes(log.read_bytes()) if isinstance(b, HFileBlock)]
    return out


def _scanned(data: bytes) -> list[tuple[bytes, bytes]]:
    trailer = hfile.read_trailer(data)
    info = hfile.read_file_info(data, trailer)
    with_mvcc = int.from_bytes(info.get(b"KEY_VALUE_VERSION", b"\0\0\0\0")[:4], "big") == 1
    out: list[tuple[bytes, bytes]] = []
    for block in hfile._data_blocks(data, trailer) if trailer.entry_count else ():
        cells = block_cells(block.payload, with_mvcc)
        assert cells is not None, "a Java-written block was declined"
        p = block.payload
        out += [
            (p[r : r + rl], p[v : v + vl])
            for r, rl, v, vl in zip(
                cells.row_starts.tolist(), cells.row_lengths.tolist(), cells.value_starts.tolist(),
                cells.value_lengths.tolist(), strict=True,
            )
        ]  # fmt: skip
    return out


@pytest.mark.parametrize("fixture", MDT_FIXTURES, ids=[t.id for t in MDT_FIXTURES])
def test_the_scan_reads_java_hfiles_like_the_walk(fixture: FixtureTable, extract_fixture: Extract) -> None:
    files = _hfiles(_mdt(extract_fixture, fixture))
    assert files
    for data in files:
        assert _scanned(data) == list(read_hfile(data))
