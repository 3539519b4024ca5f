"""Fault-injection scenarios: the suite reports how many ran and passed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.s3_faults import Place, new_bucket

_FAULTS = "tests/faults/"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print the number of fault scenarios run and passed."""
    stats = terminalreporter.stats
    ran = [r for key in ("passed", "failed", "error") for r in stats.get(key, []) if _is_fault(r)]
    passed = [r for r in stats.get("passed", []) if _is_fault(r)]
    if ran:
        terminalreporter.write_line(f"fault scenarios: {len(ran)} ran, {len(passed)} passed")


def _is_fault(report: object) -> bool:
    nodeid = getattr(report, "nodeid", "")
    when = getattr(report, "when", "call")
    return isinstance(nodeid, str) and nodeid.startswith(_FAULTS) and when == "call"


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.s3)])
def place(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    """A fresh table location, on local disk and on the moto S3 server."""
    if request.param == "local":
        yield Place(str(tmp_path / "t"), None)
    else:
        endpoint = request.getfixturevalue("endpoint")
        yield Place(f"s3://{new_bucket(endpoint, monkeypatch)}/t", endpoint)
