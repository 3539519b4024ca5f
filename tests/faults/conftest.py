"""Fault-injection scenarios: each test on local disk and on S3 (the session summary, with how
many ran and the campaign's trial counts, is :mod:`tests.parallel`'s)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.s3_faults import Place, new_bucket


@pytest.fixture(params=["local", pytest.param("s3", marks=pytest.mark.s3)])
def place(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Place]:
    """Each test once on local disk and once on a fresh bucket of the module's moto server."""
    if request.param == "local":
        yield Place(str(tmp_path / "t"), None)
    else:
        endpoint = request.getfixturevalue("endpoint")
        yield Place(f"s3://{new_bucket(endpoint, monkeypatch)}/t", endpoint)
