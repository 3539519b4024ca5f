"""Throughput of the vectorised mergers on a million rows (printed; bounds are deliberately loose)."""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa
import pytest

from hudi_framework.contracts.merger import MergeContext, RecordMerger
from hudi_framework.merge import merge_with_base

ROWS = 1_000_000
KEYS = pa.array([f"key-{i:08d}" for i in range(ROWS)])


def _version(seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table(
        {
            "_hoodie_record_key": KEYS,
            "ts": pa.array(rng.integers(0, 100, ROWS)),
            "name": pa.array(rng.integers(0, 10**9, ROWS)).cast(pa.string()),
            "price": pa.array(rng.random(ROWS)),
            "_hoodie_is_deleted": pa.array(rng.random(ROWS) < 0.01),
        }
    )


def _best_of(runs: int, action: object) -> float:
    assert callable(action)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.slow
@pytest.mark.parametrize("fixture", ["event_time", "commit_time"])
def test_million_rows(request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str], fixture: str) -> None:
    merger: RecordMerger = request.getfixturevalue(fixture)
    ctx = MergeContext(ordering_fields=("ts",))
    older, newer = _version(1), _version(2)
    incoming = newer.take(pa.array(np.random.default_rng(3).permutation(ROWS)[: ROWS // 2]))
    timings = {
        "merge 1M aligned rows": _best_of(3, lambda: merger.merge(older, newer, ctx)),
        "combine 2M rows (1M keys x2)": _best_of(1, lambda: merger.combine(pa.concat_tables([older, newer]), ctx)),
        "combine 1M unique keys": _best_of(1, lambda: merger.combine(older, ctx)),
        "merge_with_base 1M base + 500k incoming": _best_of(1, lambda: merge_with_base(older, incoming, merger, ctx)),
    }
    with capsys.disabled():
        for what, seconds in timings.items():
            print(f"\n{fixture:12} {what:42} {seconds:7.3f} s", end="")
    assert timings["merge 1M aligned rows"] < 10  # catches a per-row Python loop, not noise
