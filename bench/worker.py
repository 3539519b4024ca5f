"""Runs one phase of one step in this (fresh) process and prints its measurement as JSON.

``python -m bench.worker <step key> <prepare|run> <inputs dir> <work dir>``. Peak RSS is this
process's high-water mark, so it covers the step and its inputs, nothing measured before it.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

from bench.dataset import Inputs
from bench.registry import all_steps
from bench.step import StepContext


def main(argv: list[str]) -> int:
    key, phase, inputs, work = argv
    step = all_steps()[0][key]
    ctx = StepContext(Inputs(Path(inputs)), Path(work))
    ctx.work.mkdir(parents=True, exist_ok=True)
    if phase == "prepare":
        assert step.prepare is not None
        step.prepare(ctx)
        print(json.dumps({"prepared": key}))
        return 0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    counters = step.run(ctx)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": peak_kib / 1024, "counters": counters}, default=str))
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    # Skip interpreter teardown: some native libraries (deltalake's runtime) abort while shutting down,
    # after the measurement is complete.
    os._exit(code)
