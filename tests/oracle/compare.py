"""Row-for-row comparison of two engines' reads, and the tally the oracle tests print."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa
import pytest

#: Meta columns both engines must agree on for every row: all five.
META_COMPARED = (
    "_hoodie_commit_time",
    "_hoodie_commit_seqno",
    "_hoodie_record_key",
    "_hoodie_partition_path",
    "_hoodie_file_name",
)


@dataclass
class Tally:
    """What the cross-engine tests checked: tables written, reads compared, reads that agreed."""

    tables: set[str] = field(default_factory=set)
    comparisons: int = 0
    agreements: int = 0
    rows: int = 0
    disagreements: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"Apache Hudi oracle: {len(self.tables)} tables, {self.comparisons} comparisons, "
            f"{self.agreements} agreements, {self.rows} rows compared"
        )


#: The session's tally (``config.stash``), printed by :mod:`tests.parallel`.
TALLY = pytest.StashKey[Tally]()


def _rows(table: pa.Table, columns: Sequence[str], key: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = table.select(list(columns)).sort_by(key).to_pylist()
    return rows


def compare_reads(
    tally: Tally,
    label: str,
    ours: pa.Table,
    theirs: pa.Table,
    *,
    key: str,
    data_columns: Sequence[str],
    meta_columns: Sequence[str] = META_COMPARED,
) -> None:
    """Assert both reads hold the same rows (sorted by ``key``; data columns, then meta columns)."""
    tally.comparisons += 1
    columns = [*data_columns, *meta_columns]
    problems: list[str] = []
    missing = [c for c in columns if c not in ours.column_names or c not in theirs.column_names]
    if missing:
        problems.append(f"columns missing: {missing} (ours {ours.column_names}, theirs {theirs.column_names})")
    else:
        mine, other = _rows(ours, columns, key), _rows(theirs, columns, key)
        if mine != other:
            diffs = [f"  ours   {a}\n  theirs {b}" for a, b in zip(mine, other, strict=False) if a != b][:5]
            problems.append(f"{len(mine)} rows ours, {len(other)} theirs; first differences:\n" + "\n".join(diffs))
    if problems:
        message = f"{label}: " + "; ".join(problems)
        tally.disagreements.append(message)
        raise AssertionError(message)
    tally.agreements += 1
    tally.rows += ours.num_rows
    print(f"agree: {label} ({ours.num_rows} rows)")
