"""Data skipping after a curve sort: the property clustering with z-order / Hilbert relies on.

200,000 rows with two uniformly random integer columns are written as 40 Parquet files, once in
random order and once sorted along a curve (then cut into 40 files). A query for a small 2-D box
reads only the files whose footer [min, max] of both columns overlaps the box: sorted along either
curve, at least 5x fewer files than in random order. A filter on the second column alone prunes
after a curve sort too, where a linear sort (first column first) cannot.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from hudi_framework.layout.space_curves import curve_order

ROWS = 200_000
FILES = 40
SPAN = 1_000_000
#: A box is this share of each column's range (so 0.01% of the plane's area).
BOX_SHARE = 0.01
BOXES = 50


def _write_files(table: pa.Table, directory: Path) -> list[Path]:
    directory.mkdir()
    per_file = -(-table.num_rows // FILES)
    paths = []
    for i in range(FILES):
        path = directory / f"part-{i:02d}.parquet"
        pq.write_table(table.slice(i * per_file, per_file), path)
        paths.append(path)
    return paths


def _footer_ranges(paths: list[Path]) -> list[dict[str, tuple[int, int]]]:
    """Each file's [min, max] per column, from its Parquet footer (one row group per file)."""
    ranges = []
    for path in paths:
        metadata = pq.read_metadata(path)
        assert metadata.num_row_groups == 1
        group = metadata.row_group(0)
        stats = {group.column(c).path_in_schema: group.column(c).statistics for c in range(group.num_columns)}
        ranges.append({name: (s.min, s.max) for name, s in stats.items()})
    return ranges


def _files_read(ranges: list[dict[str, tuple[int, int]]], box: dict[str, tuple[int, int]]) -> int:
    """Files whose [min, max] overlaps the box in every boxed column (the others cannot be skipped)."""
    return sum(all(r[c][0] <= hi and r[c][1] >= lo for c, (lo, hi) in box.items()) for r in ranges)


@pytest.fixture(scope="module")
def table() -> pa.Table:
    rng = np.random.default_rng(20261128)
    return pa.table({"x": rng.integers(0, SPAN, ROWS), "y": rng.integers(0, SPAN, ROWS), "id": np.arange(ROWS)})


@pytest.fixture(scope="module")
def boxes() -> list[dict[str, tuple[int, int]]]:
    rng = np.random.default_rng(7)
    side = int(SPAN * BOX_SHARE)
    corners = rng.integers(0, SPAN - side, (BOXES, 2))
    return [{"x": (int(a), int(a) + side), "y": (int(b), int(b) + side)} for a, b in corners]


def _read_counts(
    table: pa.Table, tmp_path: Path, name: str, boxes: list[dict[str, tuple[int, int]]]
) -> tuple[int, int]:
    """(files read over all 2-D boxes, files read over the same boxes' ``y`` bands alone)."""
    ranges = _footer_ranges(_write_files(table, tmp_path / name))
    both = sum(_files_read(ranges, box) for box in boxes)
    y_only = sum(_files_read(ranges, {"y": box["y"]}) for box in boxes)
    return both, y_only


@pytest.mark.parametrize(("strategy", "method"), [("z-order", "direct"), ("hilbert", "direct"), ("z-order", "sample")])
def test_a_curve_sort_prunes_at_least_5x_more_files_than_random_order(
    table: pa.Table, boxes: list[dict[str, tuple[int, int]]], tmp_path: Path, strategy: str, method: str
) -> None:
    random_both, random_y = _read_counts(table, tmp_path, "random", boxes)
    assert random_y == FILES * BOXES
    ordered = table.take(curve_order(table, ["x", "y"], strategy, build_method=method))
    curve_both, curve_y = _read_counts(ordered, tmp_path, "curve", boxes)
    linear = table.take(curve_order(table, ["x", "y"], "linear"))
    linear_both, linear_y = _read_counts(linear, tmp_path, "linear", boxes)

    # Random order: every file spans nearly the whole plane, so every box reads every file.
    assert random_both == FILES * BOXES
    assert curve_both * 5 <= random_both, (curve_both, random_both)
    # The second column alone: a curve still prunes, a linear sort by (x, y) reads every file.
    assert linear_y == FILES * BOXES
    assert curve_y * 2 <= linear_y, (curve_y, linear_y)
    # And the sort kept every row.
    assert sorted(ordered.column("id").to_pylist()) == list(range(ROWS))
    print(
        f"{strategy}/{method}: files read for {BOXES} boxes: random {random_both}, linear {linear_both}, "
        f"curve {curve_both}; y-band only: linear {linear_y}, curve {curve_y}"
    )
