"""The sort-order benchmark (bench/space_curves.py) runs and reports every order against pyarrow."""

from __future__ import annotations

from bench.space_curves import ORDERS, main


def test_the_benchmark_reports_every_order_with_its_ratio_to_pyarrow() -> None:
    text = main(["--rows", "3000", "--repeat", "1"])
    assert "3,000 rows" in text
    for dataset in ("**2 x int64**", "**int64 + string**"):
        assert dataset in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| order")]
    assert len(rows) == 2 * (1 + len(ORDERS))
    assert sum(line.startswith("| pyarrow sort_indices |") and line.endswith("| 1.00 |") for line in rows) == 2
    for label in ("linear", "z-order (direct)", "z-order (sample)", "hilbert (direct)", "hilbert (sample)"):
        assert sum(line.startswith(f"| {label} |") for line in rows) == 2
