"""``hudi-fw logcompaction show|schedule|run`` on copies of Apache Hudi merge-on-read tables: the
log-compacted table reads exactly as before, and hudi-rs agrees."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from typer.testing import CliRunner

from hudi_framework.cli.app import app
from hudi_framework.read.reader import read_table
from hudi_framework.runtime.table import HudiTable
from hudi_framework.timeline.instant import Action, State
from tests.unit.services.conftest import (
    V6_WITH_LOGS,
    V9_WITH_LOGS,
    CopyTable,
    canonical,
    copy_table,  # noqa: F401  (fixture)
)

runner = CliRunner()


@pytest.mark.parametrize("fixture_id", [V9_WITH_LOGS, V6_WITH_LOGS[0]])
def test_schedule_show_run(copy_table: CopyTable, fixture_id: str) -> None:  # noqa: F811
    import hudi

    base = str(copy_table(fixture_id))
    before = canonical(read_table(HudiTable.open(base)))
    result = runner.invoke(app, ["logcompaction", "show", base, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == []

    result = runner.invoke(app, ["logcompaction", "schedule", base, "-o", "hoodie.log.compaction.blocks.threshold=100"])
    assert result.exit_code == 0, result.output
    assert "nothing to log-compact" in result.output
    result = runner.invoke(app, ["logcompaction", "schedule", base, "-o", "hoodie.log.compaction.blocks.threshold=1"])
    assert result.exit_code == 0, result.output
    assert "scheduled" in result.output
    (pending,) = HudiTable.open(base).timeline.pending({Action.LOG_COMPACTION})
    rows = json.loads(runner.invoke(app, ["logcompaction", "show", base, "--json"]).output)
    assert [(r["instant"], r["state"]) for r in rows] == [(pending.requested_time, "requested")]

    result = runner.invoke(app, ["logcompaction", "run", base])
    assert result.exit_code == 0, result.output
    assert pending.requested_time in result.output
    table = HudiTable.open(base)
    done = table.timeline.get(pending.requested_time, Action.DELTA_COMMIT)
    assert done.state is State.COMPLETED
    rows = json.loads(runner.invoke(app, ["logcompaction", "show", base, "--json"]).output)
    assert [(r["instant"], r["state"]) for r in rows] == [(pending.requested_time, "completed")]
    assert canonical(read_table(table)).equals(before)
    theirs = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(base).build().read(hudi.HudiReadOptions()))
    ours = canonical(theirs.select([*before.column_names, "_hoodie_file_name"]))
    assert ours.to_pylist() == before.to_pylist()

    result = runner.invoke(app, ["logcompaction", "run", base])
    assert "no pending log compaction" in result.output
