"""The issue 4 matrix: each write operation, partitioned and not, each key generator, table versions
6/8/9, every index, partition path styles and file sizing, pairwise-covered, on every engine.

Each case writes four instants to a fresh table (an initial load, the operation under test, a mixed
upsert, the operation again) and then compares our reader, hudi-rs and the expected model for the
snapshot, time travel to every instant and incremental windows (consecutive and from the start).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hudi_framework.vocabulary import WriteOperation
from tests.acceptance.engines import WriteEngine
from tests.acceptance.layouts import KeyGen, Layout, PartitionStyle
from tests.acceptance.pairwise import pairs_of, pairwise
from tests.acceptance.scenario import SMALL_FILES, Scenario

FACTORS: dict[str, list[Any]] = {
    "operation": list(WriteOperation),
    "keygen": list(KeyGen),
    "partitioned": [True, False],
    "version": [6, 8, 9],
    "index": ["simple", "bloom", "global-simple", "global-bloom"],
    "style": list(PartitionStyle),
    "small_files": [False, True],
    "meta_fields": [True, False],
}


def _valid(c: dict[str, Any]) -> bool:
    if c["keygen"] is KeyGen.NON_PARTITION and c["partitioned"]:
        return False
    if c["keygen"] is KeyGen.TIMESTAMP and not c["partitioned"]:
        return False
    return c["partitioned"] or c["style"] is PartitionStyle.PLAIN


@dataclass(frozen=True)
class Case:
    """One table of the matrix."""

    operation: WriteOperation
    keygen: KeyGen
    partitioned: bool
    version: int
    index: str
    style: PartitionStyle
    small_files: bool
    meta_fields: bool

    def __str__(self) -> str:
        parts = [
            self.operation.value,
            self.keygen.value,
            "part" if self.partitioned else "nonpart",
            f"v{self.version}",
            self.index,
        ]
        if self.partitioned:
            parts.append(self.style.value)
        if self.small_files:
            parts.append("small")
        if not self.meta_fields:
            parts.append("nometa")
        return "-".join(parts)

    @property
    def options(self) -> dict[str, str]:
        """``hoodie.*`` write options of the case."""
        options = {"hoodie.index.type": self.index.upper().replace("-", "_")}
        return options | (SMALL_FILES if self.small_files else {})


CASES = [Case(**c) for c in pairwise(FACTORS, _valid)]


def test_the_matrix_covers_every_pair() -> None:
    import itertools

    everything = [dict(zip(FACTORS, v, strict=True)) for v in itertools.product(*FACTORS.values())]
    wanted = set().union(*(pairs_of(c) for c in everything if _valid(c)))
    covered = set().union(*(pairs_of(vars(case)) for case in CASES))
    assert wanted <= covered
    assert len(CASES) < 45  # a few dozen tables, not the product (thousands)


@pytest.mark.spark_cover
@pytest.mark.parametrize("case", CASES, ids=str)
def test_operation(case: Case, engine: WriteEngine, tmp_path: Path) -> None:
    scenario = Scenario(
        engine,
        tmp_path / "table",
        Layout(case.keygen, case.partitioned, case.style),
        version=case.version,
        options=case.options,
        populate_meta_fields=case.meta_fields,
        seed=zlib.crc32(str(case).encode()),
    )
    first = WriteOperation.INSERT if case.operation is WriteOperation.INSERT else WriteOperation.BULK_INSERT
    scenario.write_inserts(150, first)
    scenario.write(case.operation)
    scenario.write_upsert(updates=30, stale=8, inserts=25, duplicates=8, deletes=8)
    scenario.write(case.operation)
    scenario.checker().check_all()
