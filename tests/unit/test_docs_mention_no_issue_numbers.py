"""User docs describe the product, not its tracker: no "issue 7", "issue #7" or "coming in issue N"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([*(ROOT / "docs").glob("*.md"), ROOT / "README.md"])
ISSUE_NUMBER = re.compile(r"\bissues?\s*(?:no\.?\s*)?#?\s*\d+", re.IGNORECASE)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_doc_mentions_no_issue_number(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [f"{i}: {line.strip()}" for i, line in enumerate(lines, 1) if ISSUE_NUMBER.search(line)]
    assert found == [], f"{path.relative_to(ROOT)} mentions issue numbers"


@pytest.mark.parametrize(
    "text", ["rollback comes with issue 7", "see Issue #12", "issues 3 and 4", "(issue#7)", "issue no. 9"]
)
def test_the_pattern_catches_issue_numbers(text: str) -> None:
    assert ISSUE_NUMBER.search(text)


@pytest.mark.parametrize(
    "text", ["`.issues` lists every bad value", "issued as a PostCommitWarning", "issued 2 requests"]
)
def test_the_pattern_leaves_other_words_alone(text: str) -> None:
    assert ISSUE_NUMBER.search(text) is None
