"""The campaign's scenarios: a template table per (operation, table type, version), the operation
under test, and the recovery that follows a fault.

Every table has the columns ``id`` (record key), ``city`` (partition) and ``ts`` (ordering). The
templates hold two or more commits, so updates merge with stored rows and merge-on-read tables
have log files. The operations:

* ``insert``, ``upsert``, ``delete``, ``bulk_insert``: one write (``WriteClient``);
* ``compaction``: executing a scheduled plan (what ``hudi-fw compaction run`` does);
* ``clean``: a clean that deletes older file slices (``commits.retained=1``);
* ``rollback``: rolling back the latest commit (what ``hudi-fw rollback`` does);
* ``rollback_failed``: the next writer's write when a dead writer left a write inflight, so the
  EAGER rollback of that failed write runs first.

The recovery is the next writer: an upsert of :data:`RECOVERY_ROW` (under the default EAGER
policy it rolls failed writes back first, and its inline clean finishes pending cleans), then the
services re-run: every pending compaction is executed and every pending clean finished.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import pyarrow as pa

from hudi_framework.cli.service_cli import build_service
from hudi_framework.config.settings import HudiSettings
from hudi_framework.runtime.table import HudiTable
from hudi_framework.table.table_config import new_table_config
from hudi_framework.timeline.instant import Action, Instant
from hudi_framework.timeline.transitions import TimelineWriter
from hudi_framework.write.client import WriteClient
from hudi_framework.write.savepoint import rollback_latest_commit

Row = tuple[str, str, int]
Rows = list[Row]
StorageOptions = dict[str, object] | None

WRITE_OPS: Final = ("insert", "upsert", "delete", "bulk_insert")
SERVICE_OPS: Final = ("compaction", "clean", "rollback", "rollback_failed")
LAYOUTS: Final = (("COPY_ON_WRITE", 6), ("COPY_ON_WRITE", 9), ("MERGE_ON_READ", 6), ("MERGE_ON_READ", 9))

#: The first two commits of every template.
BASE_ROWS: Final[Rows] = [("a", "sf", 1), ("b", "sf", 1), ("c", "sf", 1), ("x", "ny", 1), ("y", "ny", 1)]
UPDATE_ROWS: Final[Rows] = [("a", "sf", 2), ("x", "ny", 2), ("d", "sf", 2)]
#: More history for the clean templates (each commit makes an older file slice cleanable).
CLEAN_HISTORY: Final[tuple[Rows, ...]] = ([("b", "sf", 3), ("y", "ny", 3)], [("c", "sf", 4), ("x", "ny", 4)])
#: The write a dead writer left inflight in the ``rollback_failed`` templates.
FAILED_ROWS: Final[Rows] = [("a", "sf", 7), ("c", "sf", 7), ("q", "la", 7)]
#: The rows of each write operation (``la`` is a partition the template does not have).
OP_ROWS: Final[dict[str, Rows]] = {
    "insert": [("e", "sf", 5), ("z", "ny", 5), ("n", "la", 5)],
    "upsert": [("a", "sf", 5), ("e", "sf", 5), ("y", "ny", 5), ("n", "la", 5)],
    "delete": [("b", "sf", 5), ("y", "ny", 5)],
    "bulk_insert": [("f", "sf", 5), ("w", "ny", 5), ("m", "la", 5)],
    "rollback_failed": [("b", "sf", 5), ("y", "ny", 5), ("n", "la", 5)],
}
#: What the recovering writer upserts; the table after recovery is the one after the fault plus this row.
RECOVERY_ROW: Final[Row] = ("r", "sf", 9)
#: Clean settings of the ``clean`` scenarios: keep only the file slices of the latest commit.
CLEAN_OPTIONS: Final = {"hoodie.cleaner.commits.retained": "1"}
#: The table service slots (``services.compaction``, ``services.clean``).
COMPACTION_SERVICE: Final = "compaction"
CLEAN_SERVICE: Final = "clean"


@dataclass(frozen=True, slots=True)
class Scenario:
    """One operation on one table layout."""

    op: str
    table_type: str
    version: int

    @property
    def name(self) -> str:
        """``<op>-<cow|mor>-v<version>``, as trials and replays name it."""
        return f"{self.op}-{'mor' if self.merge_on_read else 'cow'}-v{self.version}"

    @property
    def template(self) -> str:
        """The kind of template table: scenarios of one kind start from the same table."""
        kind = self.op if self.op in ("compaction", "clean", "rollback_failed") else "plain"
        return f"{kind}-{'mor' if self.merge_on_read else 'cow'}-v{self.version}"

    @property
    def merge_on_read(self) -> bool:
        return self.table_type == "MERGE_ON_READ"

    @property
    def recovery_finishes(self) -> bool:
        """Whether the recovery completes this operation once it has started (a pending rollback,
        compaction or clean is finished, as Apache Hudi finishes them), rather than undoing it."""
        return self.op in ("rollback", "compaction", "clean")


def all_scenarios() -> list[Scenario]:
    """Every scenario: write operations on every layout, compaction on merge-on-read layouts,
    clean and both rollbacks on every layout."""
    out = [Scenario(op, t, v) for op in WRITE_OPS for t, v in LAYOUTS]
    out += [Scenario("compaction", t, v) for t, v in LAYOUTS if t == "MERGE_ON_READ"]
    out += [Scenario(op, t, v) for op in ("clean", "rollback", "rollback_failed") for t, v in LAYOUTS]
    return out


def scenario_named(name: str) -> Scenario:
    """The scenario called ``name``.

    Raises:
        KeyError: No scenario has that name.
    """
    for scenario in all_scenarios():
        if scenario.name == name:
            return scenario
    raise KeyError(f"no campaign scenario {name!r}; known: {', '.join(s.name for s in all_scenarios())}")


def batch(rows: Rows) -> pa.Table:
    return pa.table(
        {"id": [r[0] for r in rows], "city": [r[1] for r in rows], "ts": pa.array([r[2] for r in rows], pa.int64())}
    )


def _open(base: str, storage_options: StorageOptions) -> HudiTable:
    return HudiTable.open(base, storage_options=storage_options)


def _service(table: HudiTable, name: str, options: dict[str, str] | None = None) -> Any:
    settings = HudiSettings.from_hoodie_options(options) if options else HudiSettings()
    service, _ = build_service(table, settings, name)
    return service


def _compact(table: HudiTable) -> None:
    service = _service(table, COMPACTION_SERVICE)
    instant = service.schedule(table)
    if instant is None:
        raise AssertionError(f"{table.base_uri}: nothing to compact in a template that must compact")
    service.execute(table.reload(), instant)


# ------------------------------------------------------------------------------ templates
def build(scenario: Scenario, base: str, storage_options: StorageOptions) -> None:
    """Create the scenario's template table at ``base`` (``rollback_failed``: all but its failed
    write, which :func:`fail_write` adds in a process of its own)."""
    config = new_table_config(
        "t", version=scenario.version, table_type=scenario.table_type, record_key_fields=["id"],
        partition_fields=["city"], ordering_fields=["ts"],
    )  # fmt: skip
    table = HudiTable.create(base, config, storage_options=storage_options)
    client = WriteClient(table)
    client.insert(batch(BASE_ROWS))
    client.upsert(batch(UPDATE_ROWS))
    if scenario.op == "clean":
        for rows in CLEAN_HISTORY:
            if scenario.merge_on_read:
                _compact(table.reload())
            client.upsert(batch(rows))
    elif scenario.op == "compaction" and _service(table.reload(), COMPACTION_SERVICE).schedule(table) is None:
        raise AssertionError(f"{base}: no compaction plan for the compaction template")


def fail_write(base: str, storage_options: StorageOptions, *, before_kill: Callable[[], None]) -> None:
    """Leave an upsert inflight: this process kills itself when the upsert would complete its
    instant (as a writer dying there would), after calling ``before_kill``."""

    def complete(self: TimelineWriter, instant: Instant, *args: Any, **kwargs: Any) -> Instant:
        before_kill()
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")

    TimelineWriter.complete = complete  # type: ignore[method-assign]
    WriteClient(_open(base, storage_options)).upsert(batch(FAILED_ROWS))
    raise AssertionError("the failed write of the template completed")


# ------------------------------------------------------------------------------ operations
def operate(scenario: Scenario, base: str, storage_options: StorageOptions) -> None:
    """Run the operation under test on the table at ``base``."""
    table = _open(base, storage_options)
    op = scenario.op
    if op in WRITE_OPS or op == "rollback_failed":
        WriteClient(table).write(batch(OP_ROWS[op]), "upsert" if op == "rollback_failed" else op)
    elif op == "compaction":
        (pending,) = table.timeline.pending({Action.COMPACTION})
        _service(table, COMPACTION_SERVICE).execute(table, pending.requested_time)
    elif op == "clean":
        _service(table, CLEAN_SERVICE, CLEAN_OPTIONS).run(table, force=True)
    elif op == "rollback":
        rollback_latest_commit(table)
    else:
        raise ValueError(f"unknown campaign operation {op!r}")


def recover(base: str, storage_options: StorageOptions) -> None:
    """The next writer, then the services re-run (pending compactions executed, pending cleans finished)."""
    table = _open(base, storage_options)
    WriteClient(table).upsert(batch([RECOVERY_ROW]))
    timeline = table.reload().timeline
    for instant in timeline.pending({Action.COMPACTION}):
        _service(table, COMPACTION_SERVICE).execute(table, instant.requested_time)
    if table.reload().timeline.pending({Action.CLEAN}):
        _service(table, CLEAN_SERVICE).run(table)
