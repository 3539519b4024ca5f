"""Runs one phase of one step in this (fresh) process and prints its measurement as JSON.

``python -m bench.worker <step key> <prepare|run> <inputs dir> <work dir>``. Peak RSS is this
process's high-water mark (``VmHWM``), so it covers the step and its inputs (and the imports of
every system), nothing measured before it.

A Spark step's run first starts its session (:mod:`bench.spark_session`, or
:mod:`bench.apache_hudi_session` for Apache Hudi's steps; timed apart as ``startup_s`` and
``warmup_s``). Its CPU time then includes the JVM and the Python workers (the
descendants of this process), and ``jvm_peak_rss_mb`` is the peak sum of their RSS, sampled every
200 ms while the step runs; ``java_peak_rss_mb`` is the JVM alone.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa

from bench.dataset import Inputs
from bench.proctree import TreeSampler, descendants_cpu_s, own_peak_rss_bytes, own_rss_bytes
from bench.registry import find_step
from bench.step import Step, StepContext

MB = 1024 * 1024


def _timed(step: Step, ctx: StepContext) -> dict[str, Any]:
    # Every step reads its inputs with pq.read_table, whose first call imports pyarrow.dataset and,
    # through it, pandas (~0.3 s CPU). Systems that import it themselves pay that before the timer;
    # import it here for all, so no step times the harness's own input reading machinery.
    import pyarrow.dataset  # noqa: F401

    if step.system.startswith("ours"):
        # Our plugins and the implementations they name are imported on a table's first use; like
        # every system's modules they are imported before the timer (the entry-point scan stays timed).
        from bench.systems import ours

        ours.preload()
    start_rss = own_rss_bytes()
    wall0, cpu0, tree0 = time.perf_counter(), time.process_time(), descendants_cpu_s()
    counters = step.run(ctx)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    return {
        "wall_s": wall,
        "cpu_s": cpu + descendants_cpu_s() - tree0,
        "counters": counters,
        "start_rss_mb": start_rss / MB,
    }


def _session_fields(startup_s: float, warmup_s: float, sampler: TreeSampler) -> dict[str, Any]:
    """What a Spark step reports beside its run: its session's start-up and the memory of the JVM
    (and whatever else the worker's descendants are) while the step ran."""
    return {
        "startup_s": startup_s,
        "warmup_s": warmup_s,
        "jvm_peak_rss_mb": sampler.peak.total / MB,
        "java_peak_rss_mb": sampler.peak.jvm / MB,
        "rss_samples": sampler.samples,
    }


def measure(step: Step, ctx: StepContext) -> dict[str, Any]:
    """The step's run, measured (a Spark step in a session of its own, stopped afterwards).

    ``start_rss_mb`` is the resident memory just before the timer starts (interpreter, imports, a
    Spark step's session client): what the peak holds beyond it is the step's own. ``arrow_peak_mb``
    is the most this process's Arrow memory pool held (Arrow data only; RSS also counts what the
    allocator keeps after freeing, which varies from run to run).
    """
    if step.engine == "apache-hudi":
        from bench import apache_hudi_session

        with TreeSampler() as sampler:
            oracle = apache_hudi_session.start()
            session_ctx = replace(ctx, apache_hudi=oracle.client)
            if step.warm is not None:
                step.warm(session_ctx)
            sampler.reset()
            out = _timed(step, session_ctx)
        out |= _session_fields(oracle.startup_s, oracle.warmup_s, sampler)
        apache_hudi_session.stop(oracle)
    elif step.engine != "spark":
        out = _timed(step, ctx)
    else:
        from bench import spark_session

        with TreeSampler() as sampler:
            started = spark_session.start(planners=step.planners)
            session_ctx = replace(ctx, spark=started.spark)
            if step.warm is not None:
                step.warm(session_ctx)
            sampler.reset()
            out = _timed(step, session_ctx)
        out |= _session_fields(started.startup_s, started.warmup_s, sampler)
        spark_session.stop(started.spark)
    out["peak_rss_mb"] = own_peak_rss_bytes() / MB
    # What Arrow's allocator held at most: the data, without what the allocator keeps after freeing.
    out["arrow_peak_mb"] = pa.default_memory_pool().max_memory() / MB
    return out


def main(argv: list[str]) -> int:
    key, phase, inputs, work = argv
    step = find_step(key)
    ctx = StepContext(Inputs(Path(inputs)), Path(work))
    ctx.work.mkdir(parents=True, exist_ok=True)
    if phase == "prepare":
        assert step.prepare is not None
        step.prepare(ctx)
        print(json.dumps({"prepared": key}))
        return 0
    print(json.dumps(measure(step, ctx), default=str))
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1:])
    sys.stdout.flush()
    # Skip interpreter teardown: some native libraries (deltalake's runtime) abort while shutting down,
    # after the measurement is complete.
    os._exit(code)
