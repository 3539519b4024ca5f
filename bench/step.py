"""A benchmark step: an optional unmeasured ``prepare`` (state on disk) and the measured ``run``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.dataset import Inputs


@dataclass(frozen=True)
class StepContext:
    """What a step works with: the inputs and its own fresh working directory."""

    inputs: Inputs
    work: Path
    spark: Any = None  #: the SparkSession, for steps on the Spark engine (run phase only)
    apache_hudi: Any = None  #: the Apache Hudi session's client, for its steps (run phase only)


Prepare = Callable[[StepContext], object]
Run = Callable[[StepContext], dict[str, Any]]
#: Why a step cannot run on this machine (e.g. "cannot provision Apache Hudi offline"), None when it can.
Requirement = Callable[[], str | None]


@dataclass(frozen=True)
class Step:
    """One measured operation of one system.

    Attributes:
        system: Who runs it ("ours", "ours-spark", "pyarrow", "deltalake", "pyiceberg", "hudi-rs",
            "spark-naive").
        name: What it does ("cow_upsert", ...), shared by the systems doing the same thing.
        run: The measured work; returns counters for the report (rows, files).
        prepare: Builds the state ``run`` starts from (copied afresh for every repetition).
        relocatable: Whether a prepared state still works when copied elsewhere (an Iceberg catalog
            records absolute paths: its state is prepared again for every repetition instead).
        engine: "spark" when ``run`` needs a SparkSession (``ctx.spark``), "apache-hudi" when it needs
            Apache Hudi's Spark session (``ctx.apache_hudi``); the worker starts it before the measured
            run and reports its start-up apart. ``prepare`` never gets one.
        requires: Checked once before a run of the harness: a step whose requirement gives a reason is
            skipped with that reason (shown in the report).
        warm: Unmeasured work in the step's session before ``run`` (a Spark or Apache Hudi step only):
            what a long-lived job has already done by the time it runs ``run``.
        planners: For a Spark step, whether its session starts the ``format("hudi")`` planner
            processes during its warm-up, as a session built by ``spark_session`` does; False for
            a session without them (the first read starts them).
    """

    system: str
    name: str
    run: Run
    prepare: Prepare | None = None
    relocatable: bool = True
    engine: str = "local"
    requires: Requirement | None = None
    warm: Run | None = None
    planners: bool = True

    @property
    def key(self) -> str:
        return f"{self.system}:{self.name}"
