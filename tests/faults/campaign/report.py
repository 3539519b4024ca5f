"""Trial results, their failure classes, and what the terminal summary prints.

Results of the whole session are kept in ``config.stash[RESULTS]`` (no module state); the
:mod:`tests.parallel` prints :func:`summary_lines` at the end of the run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import pytest

from tests.faults.campaign.scenarios import Rows

#: Campaign names: what the fault is, and where the table lives.
CAMPAIGN_TITLES = {
    "kill-local": "kill -9 (local disk)",
    "kill-s3": "kill -9 (S3)",
    "s3-faults": "S3 faults",
    "control-local": "no fault (local disk)",
    "control-s3": "no fault (S3)",
}


@dataclass(frozen=True, slots=True)
class Failure:
    """One thing wrong with a trial: a stable class (counted in the summary) and the details."""

    kind: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}" if self.detail else self.kind


@dataclass
class TrialResult:
    """One trial.

    Attributes:
        campaign: A key of :data:`CAMPAIGN_TITLES`.
        scenario: The scenario name.
        seed: The trial's seed (with campaign and scenario it replays the trial).
        fault: The fault: the kill point, or the S3 faults injected.
        outcome: What the operation did (completed, killed, raised ...).
        failures: Everything wrong; empty when the trial passed.
        landed: The faults that happened (``kill``, or one S3 fault kind per injection).
    """

    campaign: str
    scenario: str
    seed: int
    fault: str = ""
    outcome: str = ""
    failures: list[Failure] = field(default_factory=list)
    landed: list[str] = field(default_factory=list)

    @property
    def op(self) -> str:
        return self.scenario.rsplit("-", 2)[0]

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def replay(self) -> str:
        return f"HUDI_FAULT_REPLAY={self.campaign}/{self.scenario}/{self.seed}"

    def render(self) -> str:
        lines = [f"{self.campaign} {self.scenario} seed {self.seed} ({self.replay})", f"  fault: {self.fault}"]
        lines.append(f"  outcome: {self.outcome}")
        lines += [f"  - {f}" for f in self.failures]
        return "\n".join(lines)


RESULTS = pytest.StashKey[list[TrialResult]]()


def record(config: pytest.Config, results: Iterable[TrialResult]) -> None:
    """Add results to the session's list."""
    config.stash.setdefault(RESULTS, []).extend(results)


def row_diff(actual: Rows, expected: Rows) -> str:
    """``missing [...] unexpected [...]`` between two row multisets."""
    have, want = Counter(actual), Counter(expected)
    missing = sorted((want - have).elements())
    extra = sorted((have - want).elements())
    return f"missing {missing}, unexpected {extra}"


def summary_lines(results: list[TrialResult]) -> list[str]:
    """Trials per fault kind (campaign and operation) with passed and failed counts, then the
    failure classes with the number of trials each was seen in."""
    if not results:
        return []
    passed = sum(r.passed for r in results)
    lines = [f"fault campaign: {len(results)} trials, {passed} passed, {len(results) - passed} failed"]
    by_kind: dict[tuple[str, str], list[TrialResult]] = {}
    for r in results:
        by_kind.setdefault((r.campaign, r.op), []).append(r)
    for (campaign, op), group in sorted(by_kind.items()):
        ok = sum(r.passed for r in group)
        title = f"{CAMPAIGN_TITLES.get(campaign, campaign)} / {op}"
        lines.append(f"  {title:<42} {len(group):4d} trials, {ok:4d} passed, {len(group) - ok:4d} failed")
    for campaign in sorted({r.campaign for r in results if not r.campaign.startswith("control")}):
        group = [r for r in results if r.campaign == campaign]
        landed = Counter(kind for r in group for kind in r.landed)
        hit = sum(bool(r.landed) for r in group)
        what = ", ".join(f"{n} {kind}" for kind, n in sorted(landed.items()))
        lines.append(
            f"  {CAMPAIGN_TITLES.get(campaign, campaign)}: faults landed in {hit} of {len(group)} trials ({what})"
        )
    classes = Counter(kind for r in results for kind in {f.kind for f in r.failures})
    if classes:
        lines.append("  failure classes (trials):")
        lines += [f"    {n:4d}  {kind}" for kind, n in sorted(classes.items(), key=lambda kv: (-kv[1], kv[0]))]
    return lines
