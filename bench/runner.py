"""Runs the steps: each phase in its own subprocess, every repetition in a fresh copy of the state."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.dataset import Inputs
from bench.step import Step


@dataclass(frozen=True)
class Result:
    """Medians of one step at one size, over ``runs`` repetitions."""

    key: str
    rows: int
    wall_s: float
    cpu_s: float
    peak_rss_mb: float
    runs: int
    samples: tuple[float, ...] = field(default=())


def _phase(key: str, phase: str, inputs: Inputs, work: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "bench.worker", key, phase, str(inputs.root), str(work)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"{key} {phase} failed:\n{done.stderr[-4000:]}")
    parsed: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return parsed


def measure(
    step: Step, inputs: Inputs, scratch: Path, rows: int, repeat: int, log: Callable[[str], None] = print
) -> Result:
    """Median wall, CPU and peak RSS of ``repeat`` runs of ``step``, each on a fresh state."""
    prepared = scratch / "prepared" / step.key.replace(":", "-")
    if step.prepare is not None and step.relocatable and not prepared.exists():
        _phase(step.key, "prepare", inputs, prepared)
    samples = []
    for i in range(repeat):
        work = scratch / "runs" / f"{step.key.replace(':', '-')}-{i}"
        shutil.rmtree(work, ignore_errors=True)
        if step.prepare is not None:
            if step.relocatable:
                shutil.copytree(prepared, work)
            else:
                _phase(step.key, "prepare", inputs, work)
        samples.append(_phase(step.key, "run", inputs, work))
        shutil.rmtree(work, ignore_errors=True)
    walls = [float(s["wall_s"]) for s in samples]  # type: ignore[arg-type]
    result = Result(
        key=step.key,
        rows=rows,
        wall_s=statistics.median(walls),
        cpu_s=statistics.median(float(s["cpu_s"]) for s in samples),  # type: ignore[arg-type]
        peak_rss_mb=statistics.median(float(s["peak_rss_mb"]) for s in samples),  # type: ignore[arg-type]
        runs=repeat,
        samples=tuple(walls),
    )
    log(f"  {step.key:<28} {result.wall_s:8.2f} s  cpu {result.cpu_s:8.2f} s  rss {result.peak_rss_mb:7.0f} MB")
    return result


def run_all(
    steps: Sequence[Step], inputs: Inputs, scratch: Path, rows: int, repeat: int, log: Callable[[str], None] = print
) -> list[Result]:
    """Every step at one size (a failing step is reported and skipped); prepared states are removed."""
    results = []
    try:
        for step in steps:
            try:
                results.append(measure(step, inputs, scratch, rows, repeat, log))
            except RuntimeError as e:
                log(f"  {step.key:<28} FAILED: {str(e).splitlines()[-1]}")
        return results
    finally:
        shutil.rmtree(scratch / "prepared", ignore_errors=True)
