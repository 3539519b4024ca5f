"""Partition discovery and partition metadata files on every fixture table written by Apache Hudi.

File slices themselves are compared with hudi-rs in ``test_fixture_tables.py`` (through
``HudiTable``, the real timeline and the file-system view).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from hudi_framework.layout import discover_partitions, read_partition_metadata
from hudi_framework.layout.partition_metadata import partition_depth
from hudi_framework.runtime.table import HudiTable
from tests.fixture_tables import FixtureTable, all_fixture_tables

FIXTURES = all_fixture_tables()
Extract = Callable[[FixtureTable], tuple[Path, Path | None]]


@pytest.mark.parametrize("fixture", FIXTURES, ids=[t.id for t in FIXTURES])
def test_partitions_and_metadata(fixture: FixtureTable, extract_fixture: Extract) -> None:
    base, _ = extract_fixture(fixture)
    table = HudiTable.open(str(base))
    partitions = discover_partitions(table.storage)
    if not table.timeline.completed():
        assert partitions == []
        return
    slices = table.latest_file_slices(check_format=False)
    assert {s.partition_path for s in slices} <= set(partitions)
    for partition in partitions:
        meta = read_partition_metadata(table.storage, partition)
        assert meta.partition_depth == partition_depth(partition)
        assert meta.commit_time.isdigit()
    if table.config.is_partitioned:
        assert "" not in partitions
        if table.config.key_generator_type != "TIMESTAMP":  # its output format may hold "/"
            assert all(p.count("/") + 1 == len(table.config.partition_fields) for p in partitions)
