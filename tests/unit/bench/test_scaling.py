"""The scaling section: its inputs hold the file-group size and the batch fixed, our writer and the
pyarrow floor really write file groups of that size and leave the same rows, the steps chosen by the
command line, the time-linear and memory-flat verdicts, and the report and plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from bench.__main__ import _command, _parser, _scaling_plan
from bench.dataset import DELETED, EVENT_TIME, KEY, Inputs, ScalingShape, generate_scaling, split_changes
from bench.registry import find_step, scaling_steps
from bench.report import growth_table, markdown, scaling_plot, scaling_table
from bench.runner import Result, summarize
from bench.scaling import (
    DEFAULT_PLAN,
    FLAT_MEMORY_LIMIT,
    LINEAR_TIME_LIMIT,
    QUICK_PLAN,
    ScalingPlan,
    growth,
    run_scaling,
    select,
)
from bench.step import StepContext
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable

SHAPE = ScalingShape(file_group_rows=400, batch_rows=500)
ROWS = 6_400  # 800 rows per partition: two full file groups each


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return generate_scaling(tmp_path_factory.mktemp("scaling"), ROWS, SHAPE)


def test_the_batch_has_a_fixed_size_and_mix_whatever_the_table(tmp_path: Path) -> None:
    for rows in (2_000, 8_000):
        made = generate_scaling(tmp_path / str(rows), rows, SHAPE)
        base, changes = made.read_base(), made.read_changes()
        assert base.num_rows == rows
        assert made.scaling_shape() == SHAPE
        assert changes.num_rows == SHAPE.batch_rows
        upserts, deletes = split_changes(changes)
        stored = dict(zip(base.column(KEY).to_pylist(), base.column(EVENT_TIME).to_pylist(), strict=True))
        updates = [(k, ts) for k, ts in zip(upserts.column(KEY).to_pylist(), upserts.column(EVENT_TIME).to_pylist(),
                                            strict=True) if k in stored]  # fmt: skip
        assert (len(updates), upserts.num_rows - len(updates), deletes.num_rows) == (400, 50, 50)
        assert all(ts > stored[k] for k, ts in updates)
        assert set(deletes.column(KEY).to_pylist()) <= stored.keys()
        assert pc.sum(changes.column(DELETED)).as_py() == 50


def test_inputs_are_reused_only_for_the_same_shape(tmp_path: Path) -> None:
    made = generate_scaling(tmp_path, 1_000, SHAPE)
    before = made.base.stat().st_mtime_ns
    assert generate_scaling(tmp_path, 1_000, SHAPE).base.stat().st_mtime_ns == before
    other = ScalingShape(file_group_rows=100, batch_rows=200)
    assert generate_scaling(tmp_path, 1_000, other).read_changes().num_rows == 200
    with pytest.raises(FileNotFoundError, match=r"scaling\.json"):
        Inputs(tmp_path / "nowhere").scaling_shape()


def _run(key: str, inputs: Inputs, work: Path) -> dict[str, Any]:
    step = scaling_steps()[key]
    ctx = StepContext(inputs, work)
    work.mkdir()
    if step.prepare is not None:
        step.prepare(ctx)
    counters: dict[str, Any] = step.run(ctx)
    return counters


def test_our_file_groups_and_the_floor_s_files_hold_the_fixed_rows_and_every_one_is_rewritten(
    inputs: Inputs, tmp_path: Path
) -> None:
    bulk = _run("ours:scale_bulk_insert", inputs, tmp_path / "bulk")
    assert (bulk["files"], bulk["largest_file_rows"]) == (16, SHAPE.file_group_rows)
    ours = _run("ours:scale_cow_upsert", inputs, tmp_path / "ours")
    floor = _run("pyarrow:scale_cow_upsert", inputs, tmp_path / "floor")
    # 16 file groups rewritten, plus one new file group per partition for the new keys.
    assert (ours["file_groups_rewritten"], ours["files"], ours["deletes"]) == (16, 24, 50)
    assert floor["file_groups_rewritten"] == 16
    assert ours["largest_file_rows"] == floor["largest_file_rows"] <= SHAPE.file_group_rows + 50
    assert ours["rows"] == floor["rows"] == ROWS  # 50 new keys, 50 deleted
    ours_rows = read_table(HudiTable.open(str(tmp_path / "ours" / "table"))).select([KEY, EVENT_TIME, "amount"])
    floor_rows = pq.read_table(tmp_path / "floor" / "files").select([KEY, EVENT_TIME, "amount"])
    assert ours_rows.sort_by(KEY).equals(floor_rows.sort_by(KEY))


def test_workers_find_the_scaling_steps_and_their_keys_are_the_comparison_s_own() -> None:
    assert find_step("ours:scale_cow_upsert").name == "scale_cow_upsert"
    assert find_step("pyarrow:scale_cow_read").system == "pyarrow"
    assert set(scaling_steps()) == {
        f"{s}:scale_{n}" for s in ("ours", "pyarrow") for n in ("bulk_insert", "cow_upsert", "cow_read")
    }


@pytest.mark.parametrize(
    ("only", "keys"),
    [
        (None, {"ours:scale_cow_upsert", "pyarrow:scale_cow_upsert"}),
        (["ours"], {"ours:scale_cow_upsert"}),
        (["ours:cow_upsert", "deltalake"], set()),
        (["scale_bulk_insert"], {"ours:scale_bulk_insert", "pyarrow:scale_bulk_insert"}),
        (["ours", "ours:scale_cow_read"], {"ours:scale_cow_upsert", "ours:scale_cow_read"}),
    ],
)
def test_only_selects_scaling_steps_by_system_key_or_name(only: list[str] | None, keys: set[str]) -> None:
    assert {s.key for s in select(scaling_steps(), only)} == keys


def test_the_command_line_sets_the_scaling_plan() -> None:
    def plan(*argv: str) -> ScalingPlan | None:
        return _scaling_plan(_parser().parse_args(["run", *argv]))

    assert plan() == DEFAULT_PLAN
    assert plan("--no-scaling") is None
    assert plan("--quick", "--scaling-sizes", "5,6") == QUICK_PLAN
    assert plan("--scaling-sizes", "1000,4000") == ScalingPlan((1000, 4000), DEFAULT_PLAN.shape)
    args = _parser().parse_args(["run", "--only", "ours", "--scaling-sizes", "1000,4000"])
    assert _command(args, [500_000]) == "python -m bench run --rows 500000 --only ours --scaling-sizes 1000,4000"


def _result(key: str, rows: int, wall: float, rss: float, **counters: int) -> Result:
    return Result(key, rows, wall, wall, rss, 3, start_rss_mb=90.0, arrow_peak_mb=70.2, counters=counters)


def _grown(key: str, walls: tuple[float, float, float], rss: tuple[float, float, float]) -> list[Result]:
    sizes = (500_000, 2_000_000, 8_000_000)
    return [_result(key, n, w, m) for n, w, m in zip(sizes, walls, rss, strict=True)]


def test_time_is_judged_per_row_against_the_next_size_and_memory_against_the_smallest() -> None:
    linear = growth(_grown("ours:scale_cow_upsert", (3.0, 8.0, 32.0), (360, 380, 400)))[0]
    assert linear.time_ratio == pytest.approx(1.0)
    assert linear.time_linear
    assert linear.memory_ratio == pytest.approx(400 / 360)
    assert linear.memory_flat
    assert linear.rows_ratio == 16
    worse = growth(_grown("ours:scale_cow_upsert", (3.0, 8.0, 8.0 * 4 * (LINEAR_TIME_LIMIT + 0.1)), (300, 600, 1200)))
    assert worse[0].time_linear is False
    assert worse[0].memory_flat is False
    assert worse[0].memory_ratio == pytest.approx(4.0)
    assert FLAT_MEMORY_LIMIT < 4.0
    alone = growth([_result("ours:scale_cow_upsert", 10, 1.0, 100)])[0]
    assert (alone.time_ratio, alone.time_linear, alone.memory_flat) == (None, None, None)


def test_the_growth_table_judges_our_steps_and_memory_of_upserts_only() -> None:
    results = [
        *_grown("ours:scale_cow_upsert", (3.0, 8.0, 32.0), (360, 380, 400)),
        *_grown("ours:scale_cow_read", (1.0, 2.0, 16.0), (300, 900, 3000)),
        *_grown("pyarrow:scale_cow_upsert", (1.0, 2.0, 16.0), (300, 900, 3000)),
    ]
    rows = {line.split("|")[1].strip(): [c.strip() for c in line.split("|")[2:6]] for line in
            growth_table(results).splitlines()[2:]}  # fmt: skip
    assert rows["`ours:scale_cow_upsert`"] == ["1.00 met", "1.00", "1.11 met", "16"]
    assert rows["`ours:scale_cow_read`"] == ["2.00 **not met**", "2.00", "10.00", "16"]  # memory: not judged
    assert rows["`pyarrow:scale_cow_upsert`"] == ["2.00", "2.00", "10.00", "16"]  # the floor: reference only


def test_the_scaling_table_shows_time_per_million_rows_and_the_files_written() -> None:
    results = [_result("ours:scale_cow_upsert", 2_000_000, 8.0, 380.4, file_groups_rewritten=32,
                       largest_file_rows=62_500, largest_file_bytes=4 * 1024 * 1024)]  # fmt: skip
    row = [c.strip() for c in scaling_table(results).splitlines()[2].split("|")[1:-1]]
    assert row == ["2,000,000", "`ours:scale_cow_upsert`", "8.00", "4.00", "8.00", "380", "90", "70", "32",
                   "62,500", "4.0", "3"]  # fmt: skip
    bare = [c.strip() for c in scaling_table([_result("x:y", 10, 1.0, 1.0)]).splitlines()[2].split("|")[9:12]]
    assert bare == ["-", "-", "-"]


def test_the_report_has_the_scaling_section_and_its_plot(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    results = [*_grown("ours:scale_cow_upsert", (3.0, 8.0, 32.0), (360, 380, 400)),
               *_grown("pyarrow:scale_cow_upsert", (1.0, 4.0, 16.0), (260, 262, 270))]  # fmt: skip
    assert not scaling_plot(results[:1], tmp_path / "one.png")
    assert scaling_plot(results, tmp_path / "s.png")
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = markdown([], machine="m", command="c", skipped=[], plot_file=None, scaling=results,
                    scaling_plan=DEFAULT_PLAN, scaling_plot_file="s.png")  # fmt: skip
    section = text[text.index("## Scaling") : text.index("## Method")]
    assert "file groups of 62,500 rows" in section
    assert "50,000-row batch" in section
    assert "![time and peak RSS against rows](s.png)" in section
    assert "| `ours:scale_cow_upsert` | 1.00 met |" in section
    assert "## Scaling" not in markdown([], machine="m", command="c", skipped=[], plot_file=None)


def test_summaries_keep_the_last_run_s_counters_and_the_median_start_rss() -> None:
    samples = [{"wall_s": w, "cpu_s": w, "peak_rss_mb": 100.0, "start_rss_mb": s, "arrow_peak_mb": s / 2,
                "counters": {"files": f}} for w, s, f in ((1.0, 90.0, 3), (2.0, 95.0, 4), (3.0, 80.0, 4))]  # fmt: skip
    result = summarize("ours:scale_cow_upsert", 10, samples)
    assert (result.start_rss_mb, result.arrow_peak_mb, dict(result.counters)) == (90.0, 45.0, {"files": 4})
    assert summarize("x:y", 10, [{"wall_s": 1.0, "cpu_s": 1.0, "peak_rss_mb": 1.0}]).arrow_peak_mb is None


def test_the_section_runs_each_size_in_worker_processes_and_removes_its_inputs(tmp_path: Path) -> None:
    plan = ScalingPlan((2_000, 4_000), ScalingShape(file_group_rows=250, batch_rows=200))
    lines: list[str] = []
    results = run_scaling([scaling_steps()["ours:scale_cow_upsert"]], plan, tmp_path, 1, lines.append)
    assert [(r.key, r.rows, r.runs) for r in results] == [("ours:scale_cow_upsert", 2_000, 1),
                                                         ("ours:scale_cow_upsert", 4_000, 1)]  # fmt: skip
    assert [r.counters["file_groups_rewritten"] for r in results] == [8, 16]
    assert all(0 < (r.start_rss_mb or 0) <= r.peak_rss_mb for r in results)
    assert all(0 < (r.arrow_peak_mb or 0) < r.peak_rss_mb for r in results)
    assert "== scaling: 4,000 rows, 250-row file groups, 200-row batch" in lines
    assert list(tmp_path.iterdir()) == []
