"""Access to the Apache-Hudi-written tables vendored in ``tests/fixtures/hudi-tables``.

Each zip holds ``<name>/`` (the table) and, except Lance tables, ``gold_data/`` (Spark's snapshot
read). Tables are extracted once per test session into a temporary directory. ``HUDI_FIXTURES_DIR``
points the suite at another copy. A missing or empty directory fails collection loudly: the tests
built on these tables must never vanish silently.
"""

from __future__ import annotations

import os
import zipfile
from dataclasses import dataclass
from pathlib import Path

FIXTURES_DIR = Path(os.environ.get("HUDI_FIXTURES_DIR", Path(__file__).resolve().parent / "fixtures" / "hudi-tables"))
#: The independent checker built on hudi-rs (a copy of the project's shared tool): ``canonical_hash``.
CHECKER_PATH = Path(__file__).resolve().parent / "tools" / "hudi_rs_check.py"
#: How many tables the vendored set holds (tests/fixtures/hudi-tables/README.md lists them).
VENDORED_TABLES = 42


class MissingFixturesError(RuntimeError):
    """The fixture tables are not where the suite looks for them."""


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
    """Every zipped table under the fixtures directory, sorted by id.

    Raises:
        MissingFixturesError: The directory is missing or holds no table.
    """
    zips = sorted(FIXTURES_DIR.rglob("*.zip")) if FIXTURES_DIR.is_dir() else []
    if not zips:
        raise MissingFixturesError(
            f"no fixture tables under {FIXTURES_DIR}: the repository vendors them in tests/fixtures/hudi-tables "
            "(HUDI_FIXTURES_DIR, when set, must name a copy of that directory)"
        )
    return [FixtureTable(z.relative_to(FIXTURES_DIR).with_suffix("").as_posix(), z) for z in zips]
