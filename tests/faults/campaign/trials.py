"""One scenario prepared on one store, and one trial on it with its verdict.

:class:`ScenarioPool` builds a scenario's template table and checks it against the model
(:func:`model_before`); :func:`prepare` copies it, runs the operation once in a child without a
fault while recording every storage call (the dry run: the range of kill points) and judges the
result like any trial, against the model (:func:`model_after`): the *control* trial of the
scenario, whose failures happen without any fault.

:func:`run_trial` copies the template, runs the operation in a child with one fault (a kill at a
drawn storage call, or S3 faults at a drawn rate), and :func:`judge` checks what follows.
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from hudi_framework.layout.naming import parse_data_file_name
from tests.faults.campaign.inventory import describe, find_strays, pending
from tests.faults.campaign.points import FAULT_KINDS
from tests.faults.campaign.report import Failure, TrialResult, row_diff
from tests.faults.campaign.runner import StepReport, run_step
from tests.faults.campaign.scenarios import (
    BASE_ROWS,
    CLEAN_HISTORY,
    OP_ROWS,
    RECOVERY_ROW,
    UPDATE_ROWS,
    Rows,
    Scenario,
    build,
    recover,
)
from tests.faults.campaign.stores import Store
from tests.faults.campaign.worker import Step

#: S3 fault probability per botocore call, drawn per trial from this range.
FAULT_RATE: Final = (0.05, 0.10)
#: How many stray keys of one kind a failure line names.
_SHOWN: Final = 6


class CampaignSetupError(AssertionError):
    """A template could not be built: the harness, not the trial, is broken."""


# ------------------------------------------------------------------------------ the model
def _upsert(rows: Rows, changes: Rows) -> Rows:
    by_key = {r[0]: r for r in rows}
    by_key.update({r[0]: r for r in changes})
    return sorted(by_key.values())


def model_before(scenario: Scenario) -> Rows:
    """The rows of the scenario's template (its failed write, if any, is not visible)."""
    rows = _upsert(BASE_ROWS, UPDATE_ROWS)
    if scenario.op == "clean":
        for change in CLEAN_HISTORY:
            rows = _upsert(rows, change)
    return rows


def model_after(scenario: Scenario) -> Rows:
    """The rows once the scenario's operation completed."""
    before, op = model_before(scenario), scenario.op
    if op in ("insert", "bulk_insert"):
        return sorted(before + OP_ROWS[op])
    if op in ("upsert", "rollback_failed"):
        return _upsert(before, OP_ROWS[op])
    if op == "delete":
        gone = {r[0] for r in OP_ROWS[op]}
        return [r for r in before if r[0] not in gone]
    if op == "rollback":
        return sorted(BASE_ROWS)
    return before  # compaction and clean change files, not rows


# ------------------------------------------------------------------------------ preparing
@dataclass
class Prepared:
    """A scenario ready for trials on one store.

    Attributes:
        scenario: The scenario.
        store: Where its tables live.
        template: Base path of the template table.
        labels: ``(label, mutating)`` of every storage call of the dry run.
        control: The dry run, judged as a trial.
    """

    scenario: Scenario
    store: Store
    template: str
    labels: list[tuple[str, bool]]
    control: TrialResult

    @property
    def before(self) -> Rows:
        return model_before(self.scenario)

    @property
    def after(self) -> Rows:
        return model_after(self.scenario)

    @property
    def usable(self) -> bool:
        """Whether fault trials can run: the dry run completed and counted its storage calls."""
        return bool(self.labels) and not any(f.kind.startswith("operation") for f in self.control.failures)


class ScenarioPool:
    """The scenarios prepared on one store; scenarios with alike templates (every write operation
    and ``rollback`` on one layout) share one template table."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._templates: dict[str, str] = {}
        self._prepared: dict[str, Prepared] = {}

    def get(self, scenario: Scenario) -> tuple[Prepared, bool]:
        """The prepared scenario, and whether it was prepared just now (its control trial is new).

        Raises:
            CampaignSetupError: The template could not be built.
        """
        ready = self._prepared.get(scenario.name)
        if ready is not None:
            return ready, False
        failures: list[Failure] = []
        template = self._templates.get(scenario.template)
        if template is None:
            template = self._templates[scenario.template] = self._build(scenario, failures)
        ready = self._prepared[scenario.name] = prepare(scenario, self.store, template, failures)
        return ready, True

    def _build(self, scenario: Scenario, failures: list[Failure]) -> str:
        store = self.store
        template = store.new_base(f"template-{scenario.template}")
        build(scenario, template, store.storage_options)
        if scenario.op == "rollback_failed":
            failed = run_step(Step("fail_write", scenario, template, store.storage_options, env=store.env))
            if not failed.built:
                raise CampaignSetupError(f"the failed write of the {scenario.template} template: {failed.describe()}")
        rows = _observe(store, template, "in the template", failures)
        if rows is not None and rows != model_before(scenario):
            failures.append(Failure("template differs from the model", row_diff(rows, model_before(scenario))))
        return template


def prepare(scenario: Scenario, store: Store, template: str, failures: list[Failure]) -> Prepared:
    """Dry-run the operation on a copy of ``template`` and judge the dry run as the control trial
    (with ``failures`` found in the template)."""
    control = TrialResult(f"control-{store.name}", scenario.name, 0, fault="none (the dry run)")
    dry = store.new_base(f"dry-{scenario.name}")
    store.copy(template, dry)
    step = Step("operate", scenario, dry, store.storage_options, env=store.env, strip=store.strip(dry), record=True)
    report = run_step(step)
    prepared = Prepared(scenario, store, template, report.labels, control)
    if report.finished and report.error is None and not any(_changes_data(*point) for point in report.labels):
        raise CampaignSetupError(
            f"{scenario.name} on {store.name}: the dry run changed no data file (no fault could matter)"
        )
    if report.error is not None:
        failures.append(
            Failure("operation failed without a fault", f"{report.error['type']}: {report.error['message']}")
        )
    control.outcome = f"{report.describe()} after {report.points} storage calls"
    control.failures = failures + judge(prepared, dry, report)
    return prepared


def _changes_data(label: str, mutating: bool) -> bool:
    """Whether a point changes a data file (a base file, a log file) of a partition."""
    key = label.split(" ")[-1] if not label.endswith(")") else label.split(" (")[0].split(" ")[-1]
    name = key.rsplit("/", 1)[-1]
    return mutating and not key.startswith(".hoodie") and parse_data_file_name(name) is not None


# ------------------------------------------------------------------------------ trials
def choose_point(rng: random.Random, labels: list[tuple[str, bool]]) -> int:
    """A kill point (1-based): half the time any storage call, half the time one that changes storage."""
    changing = [i for i, (_, mutating) in enumerate(labels, start=1) if mutating]
    if changing and rng.random() < 0.5:
        return rng.choice(changing)
    return rng.randint(1, len(labels))


def run_trial(prepared: Prepared, campaign: str, seed: int) -> TrialResult:
    """One fault trial of ``campaign`` (``kill-*`` or ``s3-faults``) on ``prepared``."""
    store, scenario = prepared.store, prepared.scenario
    rng = random.Random(seed)
    base = store.new_base(f"{campaign}-{scenario.name}-{seed}")
    store.copy(prepared.template, base)
    step = Step("operate", scenario, base, store.storage_options, env=store.env, strip=store.strip(base))
    result = TrialResult(campaign, scenario.name, seed)
    if campaign.startswith("kill"):
        point = choose_point(rng, prepared.labels)
        step = replace(step, kill_at=point)
        result.fault = f"SIGKILL at storage call {point} of {len(prepared.labels)}"
    else:
        rate = rng.uniform(*FAULT_RATE)
        step = replace(step, fault_rate=rate, fault_seed=rng.getrandbits(32))
        result.fault = f"S3 faults at {rate:.1%} per call"
    report = run_step(step)
    if report.injected:
        result.fault += f"; {len(report.injected)} injected: " + "; ".join(report.injected)
    elif not campaign.startswith("kill"):
        result.fault += "; none injected"
    result.landed = ["kill"] if report.killed_at else [next(k for k in FAULT_KINDS if k in i) for i in report.injected]
    result.outcome = report.describe()
    result.failures = judge(prepared, base, report)
    return result


def _allowed(prepared: Prepared, report: StepReport) -> dict[str, Rows]:
    """The states the table may be in after the operation ended as ``report`` says."""
    before, after = {"before": prepared.before}, {"after": prepared.after}
    if report.error is None and report.finished:
        return after
    if report.error is not None and not report.error["commit_state_unknown"]:
        return before  # a failed operation leaves the table as it was
    return before | after  # killed, hung, crashed, or the commit state is unknown


def judge(prepared: Prepared, base: str, report: StepReport) -> list[Failure]:
    """Everything wrong after the operation ended as ``report`` says, and after the recovery."""
    store = prepared.store
    failures: list[Failure] = []
    if report.hung:
        failures.append(Failure("operation hung"))
    elif report.exitcode not in (0, -9):
        failures.append(Failure("operation process crashed", f"exit code {report.exitcode}"))
    post = _observe(store, base, "after the fault", failures)
    if post is not None:
        failures += _check_outcome(prepared, report, post)
    try:
        recover(base, store.storage_options)  # in this process: nothing kills the next writer
    except Exception as e:
        failures.append(Failure(f"recovery raised {type(e).__name__}", _where(e)))
    final = _observe(store, base, "after recovery", failures)
    if final is not None:
        failures += _check_recovery(
            [prepared.before, prepared.after], post, final, finishes=prepared.scenario.recovery_finishes
        )
    failures += _leftovers(store, base)
    return failures


def _check_outcome(prepared: Prepared, report: StepReport, post: Rows) -> list[Failure]:
    allowed = _allowed(prepared, report)
    if post in allowed.values():
        return []
    if report.error is not None and post == prepared.after:
        return [
            Failure("operation raised but its change is visible", f"{report.error['type']}: {report.error['message']}")
        ]
    if report.finished and report.error is None and post == prepared.before:
        return [Failure("operation completed but its change is not visible")]
    diffs = "; ".join(
        f"vs {name}: {row_diff(post, rows)}" for name, rows in (("before", prepared.before), ("after", prepared.after))
    )
    return [Failure("partial table after the fault", diffs)]


def _check_recovery(states: list[Rows], post: Rows | None, final: Rows, *, finishes: bool = False) -> list[Failure]:
    """The recovery adds its row to the state (before or after) the fault left; from a partial
    state (or one no reader could read) it must reach the before or the after state. An operation
    the recovery finishes (``finishes``) may also go from the before state to the after state."""
    starts = [post] if post is not None and post in states else states
    if finishes and post is not None and post == states[0]:
        starts = states
    wanted = [sorted([*rows, RECOVERY_ROW]) for rows in starts]
    if final in wanted:
        return []
    if post is not None and final == sorted([*post, RECOVERY_ROW]):
        return [Failure("partial table after recovery", "the recovery left the partial table as it was")]
    return [Failure("recovery changed the table", row_diff(final, wanted[0]))]


def _leftovers(store: Store, base: str) -> list[Failure]:
    """Pending instants and strays after the recovery."""
    try:
        table = store.open(base)
        still = pending(table)
        strays = find_strays(table, store.listing(base))
    except Exception as e:  # a table the inventory cannot read is reported, not raised
        return [Failure("inventory failed", f"{type(e).__name__}: {e}")]
    failures = [
        Failure(f"pending {i.action} after recovery", text) for i, text in zip(still, describe(still), strict=True)
    ]
    kinds: dict[str, list[str]] = {}
    for stray in strays:
        kinds.setdefault(stray.kind, []).append(stray.key)
    for kind, keys in sorted(kinds.items()):
        shown = ", ".join(keys[:_SHOWN]) + (f" (+{len(keys) - _SHOWN} more)" if len(keys) > _SHOWN else "")
        failures.append(Failure(f"stray {kind}", shown))
    return failures


def _observe(store: Store, base: str, when: str, failures: list[Failure]) -> Rows | None:
    """Our reader's rows (hudi-rs's if ours fails), after checking that both return the same."""
    readers: list[tuple[str, Callable[[str], Rows]]] = [("our reader", store.ours), ("hudi-rs", store.hudi_rs)]
    rows: dict[str, Rows] = {}
    for name, read in readers:
        try:
            rows[name] = read(base)
        except Exception as e:
            failures.append(Failure(f"{name} failed {when}", f"{type(e).__name__}: {str(e)[:300]}"))
    if len(rows) == 2 and rows["our reader"] != rows["hudi-rs"]:
        failures.append(
            Failure(f"readers disagree {when}", f"ours vs hudi-rs: {row_diff(rows['our reader'], rows['hudi-rs'])}")
        )
    return rows.get("our reader", rows.get("hudi-rs"))


def _where(error: Exception) -> str:
    """The message and the innermost frame of ``error``."""
    frames = traceback.extract_tb(error.__traceback__)
    where = f" ({frames[-1].filename}:{frames[-1].lineno} in {frames[-1].name})" if frames else ""
    return f"{str(error)[:300]}{where}"
