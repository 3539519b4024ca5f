"""hudi-rs (the ``hudi`` package) reading the copy-on-write table we wrote."""

from __future__ import annotations

from typing import Any

import hudi

from bench.step import Step, StepContext
from bench.systems import ours


def read(ctx: StepContext) -> dict[str, Any]:
    batches = hudi.HudiTableBuilder.from_base_uri(str(ctx.work / "table")).build().read()
    return {"rows": sum(b.num_rows for b in batches)}


STEPS = [Step("hudi-rs", "cow_read", read, ours.load_cow)]
