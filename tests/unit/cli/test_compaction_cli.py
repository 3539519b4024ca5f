"""``hudi-fw compaction show|schedule|run`` on a copy of an Apache Hudi merge-on-read table."""

from __future__ import annotations

import json

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


def test_schedule_show_run(copy_table: CopyTable) -> None:  # noqa: F811
    base = str(copy_table(V9_WITH_LOGS))
    before = canonical(read_table(HudiTable.open(base)))
    result = runner.invoke(app, ["compaction", "show", base, "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == []

    result = runner.invoke(
        app,
        [
            "compaction",
            "schedule",
            base,
            "-o",
            "hoodie.compaction.strategy=org.apache.hudi.table.action.compact.strategy.UnBoundedCompactionStrategy",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "scheduled" in result.output
    (pending,) = HudiTable.open(base).timeline.pending({Action.COMPACTION})

    result = runner.invoke(app, ["compaction", "show", base, "--json"])
    rows = json.loads(result.output)
    assert [(r["instant"], r["state"], r["operations"]) for r in rows] == [(pending.requested_time, "requested", 2)]
    result = runner.invoke(app, ["compaction", "show", base, "--instant", pending.requested_time, "--json"])
    plan = json.loads(result.output)
    assert {op["partition"] for op in plan["operations"]} == {"2024/01/16/09", "2024/01/15/11"}
    result = runner.invoke(app, ["compaction", "show", base, "--instant", pending.requested_time])
    assert result.exit_code == 0
    assert "2131" in result.output

    result = runner.invoke(app, ["compaction", "run", base])
    assert result.exit_code == 0, result.output
    assert pending.requested_time in result.output
    table = HudiTable.open(base)
    done = table.timeline.get(pending.requested_time, Action.COMMIT)
    assert done.state is State.COMPLETED
    assert canonical(read_table(table)) == before
    rows = json.loads(runner.invoke(app, ["compaction", "show", base, "--json"]).output)
    assert [(r["instant"], r["state"]) for r in rows] == [(pending.requested_time, "completed")]
    result = runner.invoke(app, ["compaction", "run", base])
    assert "no pending compaction" in result.output


def test_nothing_to_compact_and_bad_options(copy_table: CopyTable) -> None:  # noqa: F811
    base = str(copy_table(V6_WITH_LOGS[0]))
    result = runner.invoke(
        app, ["compaction", "schedule", base, "-o", "hoodie.compaction.logfile.size.threshold=999999999"]
    )
    assert result.exit_code == 0, result.output
    assert "nothing to compact" in result.output
    assert HudiTable.open(base).timeline.pending() == []
    result = runner.invoke(app, ["compaction", "schedule", base, "-o", "no-equals-sign"])
    assert result.exit_code != 0
    result = runner.invoke(app, ["compaction", "show", base, "--instant", "29990101000000000"])
    assert result.exit_code != 0
