"""``python -m bench run [--sizes 500000,2000000,8000000 | --rows N] [--quick] [--only ...] [--out ...]
[--no-scaling | --scaling-sizes a,b,c]``: the comparison of every system, then the scaling section."""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import tempfile
import time
from pathlib import Path

from bench.dataset import generate
from bench.registry import all_steps, runnable, scaling_steps
from bench.report import (
    growth_table,
    harness_table,
    markdown,
    plot,
    ratios_table,
    results_table,
    scaling_plot,
    scaling_table,
)
from bench.runner import Result, run_all
from bench.scaling import DEFAULT_PLAN, QUICK_PLAN, ScalingPlan, run_scaling, select

DOCS = Path(__file__).resolve().parents[1] / "docs"
#: What fits the issue's ~15-minute budget on 2 cores with every system and 3 runs per step: one size.
#: The harness spent ~35 min on 500,000 rows on a loaded machine (walls ~2x CPU; docs/benchmarks.md,
#: "Method"), and most of it grows with rows, so 2M and 8M are for runs with a larger budget; the
#: scaling section shows growth to 8M rows for our upsert and the pyarrow floor alone.
DEFAULT_SIZES = (500_000,)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="measure every step and compare")
    run.add_argument("--rows", type=int, default=None, help="table rows (one size)")
    run.add_argument(
        "--sizes",
        type=str,
        default=None,
        help=f"comma-separated sizes (overrides --rows; default {','.join(map(str, DEFAULT_SIZES))})",
    )
    run.add_argument("--repeat", type=int, default=3, help="runs per step (median taken)")
    run.add_argument("--quick", action="store_true", help="20,000 rows (scaling 10k-40k), one run each: a smoke test")
    run.add_argument(
        "--only",
        type=str,
        default=None,
        help="comma-separated step keys, step names or systems (scaling steps too, e.g. scale_cow_read)",
    )
    run.add_argument("--workdir", type=Path, default=None, help="scratch directory (default: a temp dir)")
    run.add_argument("--out", type=Path, default=None, help="write the report here (e.g. docs/benchmarks.md)")
    run.add_argument("--no-scaling", action="store_true", help="skip the scaling section")
    run.add_argument(
        "--scaling-sizes",
        type=str,
        default=None,
        help=f"comma-separated sizes of the scaling section (default {','.join(map(str, DEFAULT_PLAN.sizes))})",
    )
    return parser


def _sizes(args: argparse.Namespace) -> list[int]:
    if args.quick:
        return [20_000]
    if args.sizes:
        return [int(s) for s in args.sizes.split(",")]
    return [args.rows] if args.rows else list(DEFAULT_SIZES)


def _scaling_plan(args: argparse.Namespace) -> ScalingPlan | None:
    """The scaling section's sizes and shape; None with ``--no-scaling``."""
    if args.no_scaling:
        return None
    if args.quick:
        return QUICK_PLAN
    if args.scaling_sizes:
        return ScalingPlan(tuple(int(s) for s in args.scaling_sizes.split(",")), DEFAULT_PLAN.shape)
    return DEFAULT_PLAN


def _command(args: argparse.Namespace, sizes: list[int]) -> str:
    """The command line that reproduces this run (for the report)."""
    parts = ["python -m bench run", f"--sizes {','.join(map(str, sizes))}" if len(sizes) > 1 else f"--rows {sizes[0]}"]
    if args.quick:
        parts.append("--quick")
    if args.only:
        parts.append(f"--only {args.only}")
    if args.no_scaling:
        parts.append("--no-scaling")
    elif args.scaling_sizes and not args.quick:
        parts.append(f"--scaling-sizes {args.scaling_sizes}")
    return " ".join(parts)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    sizes = _sizes(args)
    repeat = 1 if args.quick else max(3, args.repeat)
    steps, skipped = all_steps()
    only = args.only.split(",") if args.only else None
    if only:
        wanted = set(only)
        steps = {k: s for k, s in steps.items() if k in wanted or s.system in wanted or s.name in wanted}
    steps, unavailable = runnable(steps)
    skipped += unavailable
    for reason in unavailable:
        print(f"skipped: {reason}")
    plan = _scaling_plan(args)
    scaled = select(scaling_steps(), only) if plan is not None else []
    scratch = args.workdir or Path(tempfile.mkdtemp(prefix="hudi-bench-"))
    results: list[Result] = []
    scaling: list[Result] = []
    try:
        for rows in sizes if steps else []:
            print(f"== {rows:,} rows")
            began = time.perf_counter()
            inputs = generate(scratch / f"inputs-{rows}", rows)
            print(f"  inputs generated in {time.perf_counter() - began:.0f} s")
            results += run_all(list(steps.values()), inputs, scratch / f"work-{rows}", rows, repeat)
        if plan is not None and scaled:
            scaling = run_scaling(scaled, plan, scratch, repeat)
    finally:
        if args.workdir is None:
            shutil.rmtree(scratch, ignore_errors=True)
    if results:
        print()
        print(results_table(results))
        print()
        print(ratios_table(results))
        print()
        print(harness_table(results))
    if scaling:
        print()
        print(scaling_table(scaling))
        print()
        print(growth_table(scaling))
        print()
        print(harness_table(scaling))
    if args.out is not None:
        plot_name, scaling_plot_name = f"{args.out.stem}.png", f"{args.out.stem}-scaling.png"
        plotted = plot(results, args.out.parent / plot_name)
        scaling_plotted = scaling_plot(scaling, args.out.parent / scaling_plot_name)
        machine = (
            f"{os.cpu_count()} cores, {platform.system()} {platform.machine()}, Python {platform.python_version()}"
        )
        args.out.write_text(
            markdown(
                results,
                machine=machine,
                command=_command(args, sizes),
                skipped=skipped,
                plot_file=plot_name if plotted else None,
                scaling=scaling,
                scaling_plan=plan,
                scaling_plot_file=scaling_plot_name if scaling_plotted else None,
            ),
            encoding="utf-8",
        )
        print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
