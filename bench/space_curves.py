"""``python -m bench.space_curves [--rows N] [--repeat K]``: the sort orders of layout optimization
(``hudi_framework.layout.space_curves.curve_order``) against pyarrow's ``sort_indices`` on the same
two columns: linear, z-order and Hilbert, each with ``direct`` and ``sample`` coordinates.

Times are CPU seconds of this process (``time.process_time``; the machine is shared, so wall time
says more about the neighbours than about the sort), medians of ``K`` runs, with the wall time of
the same runs next to them. Prints a Markdown table (docs/benchmarks.md, "Sort orders").
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hudi_framework.layout.space_curves import curve_order

#: (strategy, build method) pairs measured; linear has no build method.
ORDERS = (
    ("linear", "direct"),
    ("z-order", "direct"),
    ("z-order", "sample"),
    ("hilbert", "direct"),
    ("hilbert", "sample"),
)


@dataclass(frozen=True)
class Timing:
    """Median CPU and wall seconds of one sort."""

    label: str
    cpu: float
    wall: float


def datasets(rows: int, seed: int = 0) -> dict[str, pa.Table]:
    """Two uniformly random int64 columns; an int64 column and a 12-character string column."""
    rng = np.random.default_rng(seed)
    ints = pa.table({"a": rng.integers(0, 1 << 40, rows), "b": rng.integers(0, 1 << 40, rows)})
    words = pa.array(np.char.add("rider-", rng.integers(0, 10**6, rows).astype("U6")).astype(object))
    mixed = pa.table({"a": rng.integers(0, 1 << 40, rows), "b": words})
    return {"2 x int64": ints, "int64 + string": mixed}


def measure(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median (CPU seconds, wall seconds) of ``repeat`` runs."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return statistics.median(cpu), statistics.median(wall)


def bench(table: pa.Table, repeat: int) -> list[Timing]:
    """The baseline (pyarrow ``sort_indices`` by both columns) and every order of :data:`ORDERS`."""
    keys = [("a", "ascending"), ("b", "ascending")]
    timings = [Timing("pyarrow sort_indices", *measure(lambda: pc.sort_indices(table, sort_keys=keys), repeat))]
    for strategy, method in ORDERS:
        label = strategy if strategy == "linear" else f"{strategy} ({method})"

        def run(strategy: str = strategy, method: str = method) -> object:
            return curve_order(table, ["a", "b"], strategy, build_method=method)

        timings.append(Timing(label, *measure(run, repeat)))
    return timings


def markdown(rows: int, results: dict[str, list[Timing]]) -> str:
    """One table per dataset: CPU and wall seconds and the CPU ratio to pyarrow's sort."""
    lines = [f"{rows:,} rows, sorted by two columns; CPU seconds (median), wall seconds in brackets.", ""]
    for name, timings in results.items():
        base = timings[0].cpu
        lines += [f"**{name}**", "", "| order | CPU s | wall s | CPU / pyarrow sort_indices |", "|---|---:|---:|---:|"]
        lines += [f"| {t.label} | {t.cpu:.3f} | ({t.wall:.3f}) | {t.cpu / base:.2f} |" for t in timings]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(prog="python -m bench.space_curves", description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    results = {name: bench(table, args.repeat) for name, table in datasets(args.rows).items()}
    text = markdown(args.rows, results)
    print(text)
    return text


if __name__ == "__main__":
    main()
