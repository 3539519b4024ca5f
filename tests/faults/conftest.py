"""Fault-injection scenarios: the suite reports how many ran and passed, and the campaign's trial counts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.campaign.report import RESULTS, summary_lines
from tests.faults.s3_faults import Place, new_bucket

_FAULTS = "tests/faults/"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the number of fault scenarios run and passed, then the campaign's trials per fault kind."""
    stats = terminalreporter.stats
    ran = [r for key in ("passed", "failed", "error") for r in stats.get(key, []) if _is_fault(r)]
    passed = [r for r in stats.get("passed", []) if _is_fault(r)]
    if ran:
        terminalreporter.write_line(f"fault scenarios: {len(ran)} ran, {len(passed)} passed")
    stash = terminalreporter.config.stash
    for line in summary_lines(stash.get(RESULTS, [])):
        terminalreporter.write_line(line)


def _is_fault(report: object) -> bool:
    nodeid = getattr(report, "nodeid", "")
    when = getattr(report, "when", "call")
    return isinstance(nodeid, str) and nodeid.startswith(_FAULTS) and when == "call"


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.s3)])
def place(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    """Each test once on local disk and once on a fresh bucket of the module's moto server."""
    if request.param == "local":
        yield Place(str(tmp_path / "t"), None)
    else:
        endpoint = request.getfixturevalue("endpoint")
        yield Place(f"s3://{new_bucket(endpoint, monkeypatch)}/t", endpoint)
