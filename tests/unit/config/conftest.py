"""Fixtures for config tests: an environment without ``HUDI_*`` variables."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _clean_hudi_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's or CI's own HUDI_* variables must not change what these tests see.
    for name in list(os.environ):
        if name.upper().startswith("HUDI_"):
            monkeypatch.delenv(name)
