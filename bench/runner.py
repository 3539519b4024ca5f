"""Runs the steps: each phase in its own subprocess, every repetition in a fresh copy of the state."""

from __future__ import annotations

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.dataset import Inputs
from bench.step import Step

#: A step whose median wall time after its first runs is below this is run :data:`SHORT_STEP_RUNS`
#: times in all: on a 2-core VM single runs come out 2-3x slow now and then, and with three runs two
#: such outliers set the median of a 0.1 s step (the COW read verdicts flipped between runs so).
SHORT_STEP_S = 0.5
SHORT_STEP_RUNS = 7


@dataclass(frozen=True)
class Result:
    """Medians of one step at one size, over ``runs`` repetitions.

    ``startup_s``, ``warmup_s`` and ``jvm_peak_rss_mb`` are set for Spark steps only: the session's
    start-up and first Python-worker job (not part of ``wall_s``), and the peak RSS of the driver
    JVM with the Python workers it forked (``peak_rss_mb`` is always the measuring Python process).
    ``harness_s`` is everything the harness spent on the step: its share of preparing, copying
    states, process start-ups and all runs (what decides whether a set of sizes fits a time budget).
    ``start_rss_mb`` is the worker's resident memory just before the run, ``arrow_peak_mb`` the most
    its Arrow memory pool held; ``counters`` are what the last run reported (rows and files written,
    the same every run).
    """

    key: str
    rows: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    runs: int
    samples: tuple[float, ...] = field(default=())
    startup_s: float | None = None
    warmup_s: float | None = None
    jvm_peak_rss_mb: float | None = None
    harness_s: float = 0.0
    start_rss_mb: float | None = None
    arrow_peak_mb: float | None = None
    counters: Mapping[str, Any] = field(default_factory=dict)

    @property
    def system(self) -> str:
        return self.key.split(":", 1)[0]


def _worker_env(inputs: Inputs) -> dict[str, str]:
    """The worker's environment, with the bytecode cache on.

    Some environments set PYTHONDONTWRITEBYTECODE; then every fresh worker recompiles ~470 of our modules
    (0.3-0.4 s CPU) while the baselines' site-packages are compiled already. A user's Python caches
    bytecode, so workers do too, in a cache beside the inputs (the preparation runs fill it).
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("PYTHONPYCACHEPREFIX", str(inputs.root / ".pycache"))
    return env


def _phase(key: str, phase: str, inputs: Inputs, work: Path) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.worker", key, phase, str(inputs.root), str(work)],
        capture_output=True, text=True, check=False, env=_worker_env(inputs),
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{key} {phase} failed:\n{done.stderr[-4000:]}")
    parsed: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return parsed


def _median(samples: Sequence[dict[str, Any]], name: str) -> float | None:
    values = [float(s[name]) for s in samples if s.get(name) is not None]
    return statistics.median(values) if values else None


def summarize(key: str, rows: int, samples: Sequence[dict[str, Any]], harness_s: float = 0.0) -> Result:
    """The medians of the workers' measurements of one step."""
    walls = [float(s["wall_s"]) for s in samples]
    return Result(
        key=key,
        rows=rows,
        wall_s=statistics.median(walls),
        cpu_s=statistics.median(float(s["cpu_s"]) for s in samples),
        peak_rss_mb=statistics.median(float(s["peak_rss_mb"]) for s in samples),
        runs=len(samples),
        samples=tuple(walls),
        startup_s=_median(samples, "startup_s"),
        warmup_s=_median(samples, "warmup_s"),
        jvm_peak_rss_mb=_median(samples, "jvm_peak_rss_mb"),
        harness_s=harness_s,
        start_rss_mb=_median(samples, "start_rss_mb"),
        arrow_peak_mb=_median(samples, "arrow_peak_mb"),
        counters=dict(samples[-1].get("counters") or {}),
    )


class _StepRuns:
    """The runs of one step so far: prepared once, then run one at a time (see :func:`run_all`)."""

    def __init__(self, step: Step, inputs: Inputs, scratch: Path, repeat: int, state: str | None) -> None:
        self.step = step
        self._inputs = inputs
        self._scratch = scratch
        self._repeat = repeat
        self._state = state or step.key
        self._runs = repeat
        self.samples: list[dict[str, Any]] = []
        self.harness_s = 0.0

    @property
    def done(self) -> bool:
        return len(self.samples) >= self._runs

    def run_once(self) -> None:
        """One more run on a fresh copy of the prepared state (prepared on the first call)."""
        began = time.perf_counter()
        step, inputs = self.step, self._inputs
        prepared = self._scratch / "prepared" / self._state.replace(":", "-")
        if step.prepare is not None and step.relocatable and not prepared.exists():
            _phase(self._state, "prepare", inputs, prepared)
        work = self._scratch / "runs" / f"{step.key.replace(':', '-')}-{len(self.samples)}"
        shutil.rmtree(work, ignore_errors=True)
        try:
            if step.prepare is not None:
                if step.relocatable:
                    shutil.copytree(prepared, work)
                else:
                    _phase(step.key, "prepare", inputs, work)
            self.samples.append(_phase(step.key, "run", inputs, work))
        finally:
            shutil.rmtree(work, ignore_errors=True)
            self.harness_s += time.perf_counter() - began
        walls = [float(x["wall_s"]) for x in self.samples]
        if len(walls) == self._repeat > 1 and statistics.median(walls) < SHORT_STEP_S:
            self._runs = max(self._repeat, SHORT_STEP_RUNS)

    def result(self, rows: int, log: Callable[[str], None]) -> Result:
        result = summarize(self.step.key, rows, self.samples, self.harness_s)
        line = f"  {self.step.key:<28} {result.wall_s:8.2f} s  cpu {result.cpu_s:8.2f} s"
        line += f"  rss {result.peak_rss_mb:7.0f} MB"
        if result.startup_s is not None:
            jvm, warmup = result.jvm_peak_rss_mb or 0.0, result.warmup_s or 0.0
            line += f"  jvm {jvm:7.0f} MB  start-up {result.startup_s:.1f}+{warmup:.1f} s"
        log(f"{line}  (harness {result.harness_s:.0f} s)")
        return result


def measure(
    step: Step,
    inputs: Inputs,
    scratch: Path,
    rows: int,
    repeat: int,
    log: Callable[[str], None] = print,
    *,
    state: str | None = None,
) -> Result:
    """Median wall, CPU and peak RSS of ``repeat`` runs of ``step``, each on a fresh state (a short
    step gets :data:`SHORT_STEP_RUNS`).

    ``state`` names the prepared state to start from (the key of the first step with the same
    ``prepare``; default: this step's own), prepared once and copied for every run.
    """
    runs = _StepRuns(step, inputs, scratch, repeat, state)
    while not runs.done:
        runs.run_once()
    return runs.result(rows, log)


def shared_states(steps: Sequence[Step]) -> dict[str, str]:
    """For every step with a relocatable prepared state, the key of the first step preparing it the
    same way (the same ``prepare`` object): that state is prepared once and copied for each."""
    owners: dict[int, str] = {}
    states = {}
    for step in steps:
        if step.prepare is not None and step.relocatable:
            states[step.key] = owners.setdefault(id(step.prepare), step.key)
    return states


def run_all(
    steps: Sequence[Step], inputs: Inputs, scratch: Path, rows: int, repeat: int, log: Callable[[str], None] = print
) -> list[Result]:
    """Every step at one size (a failing step is reported and skipped); prepared states are removed.

    The steps run in rounds, one run of each per round in a shuffled (seeded) order, so that the
    machine's speed drifting over minutes (seen on shared 2-core VMs) weighs on every step alike
    instead of on whichever ran last: each ratio of the report compares runs taken side by side.
    Results keep ``steps`` order.
    """
    states = shared_states(steps)
    pending = [_StepRuns(step, inputs, scratch, repeat, states.get(step.key)) for step in steps]
    finished: dict[str, Result] = {}
    rounds = 0
    try:
        while pending:
            # Each round in its own (seeded) order: what ran just before a step, whose freed memory
            # the system is still reclaiming, differs from round to round instead of always being
            # the same neighbour.
            order = list(pending)
            random.Random(rounds).shuffle(order)
            rounds += 1
            for runs in order:
                try:
                    runs.run_once()
                except RuntimeError as e:
                    log(f"  {runs.step.key:<28} FAILED: {str(e).splitlines()[-1]}")
                    pending.remove(runs)
                    continue
                if runs.done:
                    finished[runs.step.key] = runs.result(rows, log)
                    pending.remove(runs)
        return [finished[step.key] for step in steps if step.key in finished]
    finally:
        shutil.rmtree(scratch / "prepared", ignore_errors=True)
