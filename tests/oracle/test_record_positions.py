"""Record positions in merge-on-read logs, against Apache Hudi 1.2 (and hudi-rs).

* Apache Hudi reads the RECORD_POSITIONS headers we write (``hoodie.write.record.positions=true``; off by
  default here): our merge-on-read table, read by its Spark
  reader with ``hoodie.merge.use.record.positions`` true and false, equals our reads by key and by
  position; hudi-rs reads it the same.
* We read Apache Hudi's headers: a table it writes with ``hoodie.write.record.positions=true`` carries
  them; every header re-encodes to the exact Base64 text Java wrote (array, run and bitmap containers
  of the portable Roaring format), and our merge by position equals its reads.
"""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework import HudiSettings, HudiTable, WriteClient, new_table_config, read_table
from hudi_framework.log import DataBlock, DeleteBlock, read_log_file
from hudi_framework.log.blocks import HeaderKey
from hudi_framework.log.record_positions import decode_positions, encode_positions
from tests.acceptance.oracle import hudi_rs_read
from tests.oracle.client import ApacheHudi
from tests.oracle.compare import Tally, compare_reads
from tests.oracle.sequence import apache_hudi_options

pytestmark = pytest.mark.oracle

KEY = "id"
COLUMNS = ("id", "city", "ts", "fare", "name", "qty")
MOR = "MERGE_ON_READ"
BY_POSITION = {"hoodie.merge.use.record.positions": "true"}
BY_KEY = {"hoodie.merge.use.record.positions": "false"}
RUN_COOKIE, BITMAP_BYTES = 12347, 8192


def _rows(ids: np.ndarray, ts: int) -> pa.Table:
    """Rows of the cross-engine shape, one partition; five-digit keys, so file order (by key) follows the numbers."""
    return pa.table(
        {
            "id": pa.array([f"k{i:05d}" for i in ids], pa.string()),
            "city": pa.array(["sf"] * len(ids), pa.string()),
            "ts": pa.array(np.full(len(ids), ts, dtype=np.int64)),
            "fare": pa.array(ids * 1.5 + ts, pa.float64()),
            "name": pa.array([f"rider-{i}-{ts}" for i in ids], pa.string()),
            "qty": pa.array((ids % 7 + ts).astype(np.int32)),
        }
    )


#: Insert 9,000 keys; update every other key (4,500 positions 2 apart: a bitmap container), then a
#: contiguous range (runs) and a few scattered keys (arrays); delete scattered keys. Four writes: after
#: a fifth, Apache Hudi's table (default options) had been compacted and its latest slices had no logs.
ROWS = 9_000
STEPS: tuple[tuple[str, pa.Table], ...] = (
    ("insert", _rows(np.arange(ROWS), 1)),
    ("upsert", _rows(np.arange(0, ROWS, 2), 2)),
    ("upsert", _rows(np.concatenate([np.arange(3_000, 5_000), [17, 6_345, 8_001, 8_999]]), 3)),
    ("delete", _rows(np.arange(100, 400, 7), 4)),
)


def _positioned_blocks(table: HudiTable) -> list[DataBlock | DeleteBlock]:
    """Every data or delete block of the table's log files that carries RECORD_POSITIONS."""
    out: list[DataBlock | DeleteBlock] = []
    for file_slice in table.file_system_view().latest_file_slices():
        for key in file_slice.log_file_keys:
            for block in read_log_file(table.storage, key):
                if isinstance(block, DataBlock | DeleteBlock) and HeaderKey.RECORD_POSITIONS in block.header:
                    out.append(block)
    return out


def _compare(apache_hudi: ApacheHudi, tally: Tally, path: Path, label: str) -> None:
    table = HudiTable.open(str(path))
    ours_by_key = read_table(table)
    ours_by_position = read_table(table, options=BY_POSITION)
    theirs_by_position = apache_hudi.read(path, BY_POSITION)
    theirs_by_key = apache_hudi.read(path, BY_KEY)
    compare_reads(tally, f"{label}: ours by position / Apache Hudi by position",
                  ours_by_position, theirs_by_position, key=KEY, data_columns=COLUMNS)  # fmt: skip
    compare_reads(tally, f"{label}: ours by key / Apache Hudi by key",
                  ours_by_key, theirs_by_key, key=KEY, data_columns=COLUMNS)  # fmt: skip
    compare_reads(tally, f"{label}: ours by position / hudi-rs",
                  ours_by_position, hudi_rs_read(str(path)), key=KEY, data_columns=COLUMNS)  # fmt: skip


@pytest.mark.oracle_full  # record positions are off by default on both engines
def test_apache_hudi_reads_our_record_positions(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path) -> None:
    path = tmp_path / "positions_by_hudi_framework"
    oracle_tally.tables.add(str(path))
    config = new_table_config(
        "positions_by_hudi_framework", table_type=MOR, record_key_fields=["id"], partition_fields=["city"],
        ordering_fields=["ts"],
    )  # fmt: skip
    settings = HudiSettings.from_hoodie_options({"hoodie.write.record.positions": "true"}, env=False)
    client = WriteClient(HudiTable.create(str(path), config), settings)
    for operation, rows in STEPS:
        client.write(rows, operation)
    blocks = _positioned_blocks(HudiTable.open(str(path)))
    assert any(isinstance(b, DeleteBlock) for b in blocks)
    assert max(len(decode_positions(b.header[HeaderKey.RECORD_POSITIONS])) for b in blocks) > 4096
    _compare(apache_hudi, oracle_tally, path, "hudi_framework wrote MOR v9 with record positions")


@pytest.mark.oracle_full
def test_we_read_apache_hudi_record_positions(apache_hudi: ApacheHudi, oracle_tally: Tally, tmp_path: Path) -> None:
    path = tmp_path / "positions_by_apache_hudi"
    oracle_tally.tables.add(str(path))
    options = {**apache_hudi_options("positions_by_apache_hudi", MOR, 9), "hoodie.write.record.positions": "true"}
    for operation, rows in STEPS:
        apache_hudi.write(path, rows, options, operation)
    blocks = _positioned_blocks(HudiTable.open(str(path)))
    assert blocks, "Apache Hudi wrote no RECORD_POSITIONS header"
    kinds = set()
    for block in blocks:
        java_text = block.header[HeaderKey.RECORD_POSITIONS]
        assert encode_positions(decode_positions(java_text)) == java_text
        raw = base64.b64decode(java_text)
        if struct.unpack_from("<I", raw, 12)[0] & 0xFFFF == RUN_COOKIE:
            kinds.add("runs")
        if len(raw) > BITMAP_BYTES:
            kinds.add("bitmap")
    assert kinds == {"runs", "bitmap"}
    _compare(apache_hudi, oracle_tally, path, "Apache Hudi wrote MOR v9 with record positions")
