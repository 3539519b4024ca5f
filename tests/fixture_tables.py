"""Access to the Apache-Hudi-written tables in ``../shared/fixtures/hudi-tables``.

Each zip holds ``<name>/`` (the table) and, except Lance tables, ``gold_data/`` (Spark's snapshot
read). Tables are extracted once per test session into a temporary directory.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

FIXTURES_DIR = Path(
    os.environ.get("HUDI_FIXTURES_DIR", Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "hudi-tables")
)


@dataclass(frozen=True)
class FixtureTable:
    """One fixture: ``id`` like ``cow/v6_nonpartitioned`` or ``mor/avro/v9_txns_simple_meta``."""

    id: str
    zip_path: Path

    @property
    def name(self) -> str:
        return self.zip_path.stem

    @property
    def is_lance(self) -> bool:
        return "lance" in self.name

    @property
    def sql_path(self) -> Path:
        return self.zip_path.with_suffix(".sql")

    def extract(self, into: Path) -> tuple[Path, Path | None]:
        """Extract to ``into/<id>``; return (table base path, gold_data dir or None)."""
        dest = into / self.id
        if not dest.exists():
            dest.mkdir(parents=True)
            with zipfile.ZipFile(self.zip_path) as zf:
                members = [m for m in zf.namelist() if not m.startswith("__MACOSX")]
                zf.extractall(dest, members)
        gold = dest / "gold_data"
        return dest / self.name, gold if gold.is_dir() else None


def all_fixture_tables() -> list[FixtureTable]:
    """Every zipped table under the fixtures directory, sorted by id."""
    if not FIXTURES_DIR.is_dir():
        return []
    out = []
    for z in sorted(FIXTURES_DIR.rglob("*.zip")):
        rel = z.relative_to(FIXTURES_DIR).with_suffix("")
        out.append(FixtureTable(rel.as_posix(), z))
    return out
