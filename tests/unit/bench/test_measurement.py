"""What the harness measures beyond one process (the Spark driver JVM's tree) and how it reports it:
/proc parsing, descendants' CPU and RSS, medians of the Spark-only fields, shared prepared states,
the report's columns and the Spark ratio's verdict."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.__main__ import DEFAULT_SIZES, _parser, _sizes
from bench.proctree import ProcStat, TreeSampler, descendants, own_peak_rss_bytes
from bench.registry import find_step
from bench.report import RATIOS, harness_table, plot, ratios_table, results_table
from bench.runner import Result, shared_states, summarize
from bench.step import Step, StepContext
from bench.worker import measure

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")

SPARK_RATIO = next(r for r in RATIOS if r.numerator == "ours-spark:cow_upsert")
#: A child holding 64 MB until its stdin closes.
HOLD_MEMORY = "import sys; b = bytearray(64 << 20); print('ready', flush=True); sys.stdin.read()"


def test_stat_lines_parse_even_with_parentheses_in_the_command_name() -> None:
    ticks, page = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")
    fields = ["S", "41", *["0"] * 9, str(3 * ticks), str(ticks), str(ticks), "0", *["0"] * 6, "250"]
    stat = ProcStat.parse(42, "42 (java (x) y) " + " ".join(fields))
    assert (stat.pid, stat.name, stat.ppid) == (42, "java (x) y", 41)
    assert stat.cpu_s == pytest.approx(5.0)
    assert stat.rss_bytes == 250 * page


def test_a_child_s_memory_is_sampled_and_its_cpu_counted_after_it_is_reaped() -> None:
    child = subprocess.Popen([sys.executable, "-c", HOLD_MEMORY], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None
        assert child.stdout.readline() == b"ready\n"
        assert child.pid in {p.pid for p in descendants(os.getpid())}
        with TreeSampler(interval=0.01) as sampler:
            pass
        assert sampler.samples >= 1
        assert sampler.peak.total >= 64 * 1024 * 1024
        # The python child is not counted as JVM (a session-scoped Spark JVM of the suite may be).
        assert sampler.peak.jvm <= sampler.peak.total - 64 * 1024 * 1024
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait()
    # Measured from a fresh process whose only descendant is the busy child: in this process, the
    # suite's Spark workers may exit between the two readings and take their CPU out of the sum.
    code = (
        "import subprocess, sys\n"
        "from bench.proctree import descendants_cpu_s\n"
        "before = descendants_cpu_s()\n"
        "subprocess.run([sys.executable, '-c', 'sum(i * i for i in range(3_000_000))'], check=True)\n"
        "print(descendants_cpu_s() - before)\n"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert float(out.stdout) >= 0.1


def test_a_child_s_peak_rss_is_its_own_not_its_parent_s() -> None:
    held = bytearray(256 << 20)  # touched below, so the parent's RSS is at least this
    held[::4096] = b"x" * len(held[::4096])
    code = "from bench.proctree import own_peak_rss_bytes; print(own_peak_rss_bytes())"
    root = Path(__file__).resolve().parents[3]
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert 0 < int(child.stdout) < 200 << 20
    assert own_peak_rss_bytes() >= 256 << 20


def test_a_local_step_is_measured_without_spark_fields(tmp_path: Path) -> None:
    step = Step("x", "y", lambda ctx: {"rows": 1})
    out = measure(step, StepContext(inputs=None, work=tmp_path))  # type: ignore[arg-type]
    assert out["counters"] == {"rows": 1}
    assert out["wall_s"] >= 0
    assert 0 < out["start_rss_mb"] <= out["peak_rss_mb"]
    assert 0 <= out["arrow_peak_mb"] < out["peak_rss_mb"]
    assert not {"startup_s", "warmup_s", "jvm_peak_rss_mb"} & out.keys()


def _sample(wall: float, **spark: float) -> dict[str, Any]:
    return {"wall_s": wall, "cpu_s": wall * 2, "peak_rss_mb": 100.0, **spark}


def test_spark_fields_are_medians_and_absent_for_local_steps() -> None:
    spark = summarize(
        "ours-spark:cow_upsert", 10,
        [_sample(3, startup_s=5, warmup_s=1, jvm_peak_rss_mb=900),
         _sample(1, startup_s=7, warmup_s=2, jvm_peak_rss_mb=700),
         _sample(2, startup_s=6, warmup_s=9, jvm_peak_rss_mb=800)],
        harness_s=40.0,
    )  # fmt: skip
    assert (spark.wall_s, spark.cpu_s, spark.runs, spark.samples) == (2, 4, 3, (3, 1, 2))
    assert (spark.startup_s, spark.warmup_s, spark.jvm_peak_rss_mb, spark.harness_s) == (6, 2, 800, 40.0)
    assert spark.system == "ours-spark"
    local = summarize("ours:cow_upsert", 10, [_sample(1), _sample(2), _sample(3)])
    assert (local.startup_s, local.warmup_s, local.jvm_peak_rss_mb) == (None, None, None)


def test_steps_preparing_the_same_way_share_one_prepared_state() -> None:
    def prepare_a(ctx: StepContext) -> None: ...
    def prepare_b(ctx: StepContext) -> None: ...
    def run(ctx: StepContext) -> dict[str, Any]:
        return {}

    steps = [
        Step("s", "plain", run),
        Step("s", "first", run, prepare_a),
        Step("s", "other", run, prepare_b),
        Step("t", "second", run, prepare_a),
        Step("t", "catalog", run, prepare_a, relocatable=False),
    ]
    assert shared_states(steps) == {"s:first": "s:first", "s:other": "s:other", "t:second": "s:first"}


def _result(key: str, wall: float, rows: int = 10, **extra: Any) -> Result:
    return Result(key=key, rows=rows, wall_s=wall, cpu_s=wall, peak_rss_mb=50.0, runs=3, **extra)


def test_the_report_shows_jvm_memory_start_up_and_the_spark_verdict() -> None:
    results = [
        _result("ours:cow_upsert", 1.0, harness_s=10.0),
        _result("ours-spark:cow_upsert", 4.0, startup_s=8.25, warmup_s=3.5, jvm_peak_rss_mb=1234.4, harness_s=60.0),
        _result("spark-naive:cow_upsert", 5.0, startup_s=8.0, warmup_s=3.0, jvm_peak_rss_mb=1100.0, harness_s=55.0),
        _result("ours-spark:cow_upsert", 6.0, rows=20, startup_s=8.0, warmup_s=3.0, jvm_peak_rss_mb=1.0),
        _result("spark-naive:cow_upsert", 5.0, rows=20, startup_s=8.0, warmup_s=3.0, jvm_peak_rss_mb=1.0),
    ]
    rows = {line.split("|")[2].strip(): line for line in results_table(results[:3]).splitlines()[2:]}
    assert [c.strip() for c in rows["`ours:cow_upsert`"].split("|")[6:8]] == ["-", "-"]
    assert [c.strip() for c in rows["`ours-spark:cow_upsert`"].split("|")[6:8]] == ["1234", "8.2 + 3.5"]
    verdicts = {line.split("|")[1].strip(): line for line in ratios_table(results).splitlines()[2:]}
    assert "0.80 met" in verdicts[SPARK_RATIO.label]
    assert "1.20 **not met**" in verdicts[SPARK_RATIO.label]
    spent = {line.split("|")[1].strip(): line.split("|")[2:4] for line in harness_table(results).splitlines()[2:]}
    assert [c.strip() for c in spent["ours-spark"]] == ["60", "0"]
    assert [c.strip() for c in spent["total"]] == ["125", "0"]


@pytest.mark.parametrize(
    ("argv", "sizes"),
    [
        ([], list(DEFAULT_SIZES)),
        (["--rows", "1000"], [1000]),
        (["--rows", "1000", "--sizes", "5,6"], [5, 6]),
        (["--quick", "--sizes", "5,6"], [20_000]),
    ],
)
def test_sizes_default_to_what_fits_the_budget(argv: list[str], sizes: list[int]) -> None:
    assert _sizes(_parser().parse_args(["run", *argv])) == sizes


def test_the_plot_needs_two_sizes_and_writes_a_png(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    results = [
        _result(key, wall * rows / 10, rows=rows)
        for rows in (10, 40)
        for key, wall in (("ours:cow_upsert", 1.0), ("ours-spark:cow_upsert", 4.0), ("spark-naive:cow_upsert", 5.0))
    ]
    assert not plot(results[:3], tmp_path / "one.png")  # one size: nothing to plot
    assert plot(results, tmp_path / "plot.png")
    assert (tmp_path / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_worker_imports_no_system_after_its_step_s() -> None:
    code = "import sys, bench.registry as r; r.find_step('ours:cow_upsert'); print('pyspark' in sys.modules)"
    root = Path(__file__).resolve().parents[3]
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root)
    assert child.stdout.strip() == "False"
    with pytest.raises(KeyError, match="nope:step"):
        find_step("nope:step")


@pytest.mark.parametrize(("walls", "repeat", "expected_runs"), [
    ([0.1, 0.3, 0.2], 3, 7),  # short: four more runs
    ([0.1, 0.6, 0.7], 3, 3),  # median 0.6 s: long enough
    ([0.1], 1, 1),  # --quick: one run whatever it took
    ([0.1] * 9, 9, 9),  # asked for more than the short-step count already
])  # fmt: skip
def test_short_steps_get_more_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, walls: list[float], repeat: int, expected_runs: int
) -> None:
    from bench import runner

    taken = iter([*walls, *([0.05] * 10)])
    phases: list[str] = []

    def fake_phase(key: str, phase: str, inputs: object, work: Path) -> dict[str, float]:
        phases.append(phase)
        return {"wall_s": next(taken), "cpu_s": 0.1, "peak_rss_mb": 100.0}

    monkeypatch.setattr(runner, "_phase", fake_phase)
    step = Step("ours", "tiny", lambda ctx: {})
    result = runner.measure(step, None, tmp_path, 10, repeat, log=lambda _: None)  # type: ignore[arg-type]
    assert result.runs == expected_runs
    assert phases == ["run"] * expected_runs


def test_steps_run_in_rounds_and_a_failing_one_is_dropped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import runner

    walls = {"ours:short": 0.1, "ours:long": 0.9}
    calls: list[str] = []

    def fake_phase(key: str, phase: str, inputs: object, work: Path) -> dict[str, float]:
        calls.append(key if phase == "run" else f"{key} {phase}")
        if key == "ours:broken":
            raise RuntimeError("ours:broken run failed:\nboom")
        return {"wall_s": walls[key], "cpu_s": 0.1, "peak_rss_mb": 100.0}

    monkeypatch.setattr(runner, "_phase", fake_phase)
    steps = [
        Step("ours", "short", lambda ctx: {}),
        Step("ours", "broken", lambda ctx: {}),
        Step("ours", "long", lambda ctx: {}),
    ]
    logged: list[str] = []
    results = runner.run_all(steps, None, tmp_path, 10, 3, log=logged.append)  # type: ignore[arg-type]
    assert [r.key for r in results] == ["ours:short", "ours:long"]
    assert [r.runs for r in results] == [7, 3]
    # One run of each per round (the broken one fails in the first and is dropped), then the short step alone.
    rounds = [calls[:3], calls[3:5], calls[5:7], calls[7:]]
    assert sorted(rounds[0]) == ["ours:broken", "ours:long", "ours:short"]
    assert sorted(rounds[1]) == sorted(rounds[2]) == ["ours:long", "ours:short"]
    assert rounds[3] == ["ours:short"] * 4
    assert any("ours:broken" in line and "FAILED: boom" in line for line in logged)


def test_a_missing_baseline_is_skipped_but_a_broken_module_of_ours_is_not(monkeypatch: pytest.MonkeyPatch) -> None:
    from bench import registry

    real = registry.importlib.import_module

    def fake(name: str) -> Any:
        if name == "bench.systems.delta":
            raise ModuleNotFoundError("No module named 'deltalake'", name="deltalake")
        return real(name)

    monkeypatch.setattr(registry.importlib, "import_module", fake)
    with pytest.raises(KeyError, match=r"nope:step.*delta \(deltalake not installed\)"):
        find_step("nope:step")
    assert "delta (deltalake not installed)" in registry.all_steps()[1]

    def broken(name: str) -> Any:
        raise ModuleNotFoundError("No module named 'hudi_framework.gone'", name="hudi_framework.gone")

    monkeypatch.setattr(registry.importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match=r"hudi_framework\.gone"):
        registry.all_steps()
