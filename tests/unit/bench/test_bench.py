"""The benchmark harness measures what it claims: the data's proportions, every system's result rows,
the ratio verdicts."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pytest

from bench.dataset import DELETED, KEY, Inputs, generate, split_changes
from bench.registry import all_steps
from bench.report import RATIOS, ratios_table
from bench.runner import Result
from bench.step import StepContext

ROWS = 2_000


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return generate(tmp_path_factory.mktemp("inputs"), ROWS)


def test_the_change_batch_has_the_documented_mix(inputs: Inputs) -> None:
    base, changes = inputs.read_base(), inputs.read_changes()
    assert base.num_rows == ROWS
    assert len(set(base.column(KEY).to_pylist())) == ROWS
    upserts, deletes = split_changes(changes)
    stored = set(base.column(KEY).to_pylist())
    updates = [k for k in upserts.column(KEY).to_pylist() if k in stored]
    assert (len(updates), upserts.num_rows - len(updates), deletes.num_rows) == (ROWS // 10, ROWS // 50, ROWS // 100)
    assert set(deletes.column(KEY).to_pylist()) <= stored
    assert pc.sum(changes.column(DELETED)).as_py() == ROWS // 100
    assert inputs.read_small_changes().num_rows == ROWS // 100


@pytest.mark.parametrize("key", ["ours:cow_upsert", "ours:mor_upsert", "pyarrow:cow_upsert", "deltalake:cow_upsert"])
def test_every_upsert_leaves_the_same_rows(key: str, inputs: Inputs, tmp_path: Path) -> None:
    steps, missing = all_steps()
    if key not in steps:
        pytest.skip(f"{key}: baseline package not installed (pip install -e '.[bench]'): {missing}")
    step = steps[key]
    ctx = StepContext(inputs, tmp_path)
    assert step.prepare is not None
    step.prepare(ctx)
    step.run(ctx)
    reader = {"ours": "cow_read", "pyarrow": "cow_read", "deltalake": "cow_read"}[step.system]
    rows = steps[f"{step.system}:{reader}"].run(ctx)["rows"]
    assert rows == ROWS + ROWS // 50 - ROWS // 100


def test_ratios_report_targets_met_and_not_met() -> None:
    def result(key: str, wall: float) -> Result:
        return Result(key=key, rows=10, wall_s=wall, cpu_s=wall, peak_rss_mb=1.0, runs=3)

    table = ratios_table([result("ours:cow_upsert", 1.2), result("pyarrow:cow_upsert", 1.0),
                          result("deltalake:cow_upsert", 1.0)])  # fmt: skip
    lines = {line.split("|")[1].strip(): line for line in table.splitlines()[2:]}
    assert "1.20 met" in lines[RATIOS[0].label]
    assert "1.20 **not met**" in lines[RATIOS[1].label]
    assert "n/a" in lines[RATIOS[2].label]
